"""Search over the forward-model protocol: UCT, SO-ISMCTS, DUCT, PIMC and flat Monte Carlo.

``mcts`` holds the engine (one tree policy, pluggable worlds, evaluator, chance
sampler and final-move selection); ``tree`` its nodes, soft-key table and
compiled tree step; ``chance`` chance-node bucketing (CNB); ``turn_budget`` 001 §3.3's per-turn time
policies (one-search, multiple-search); ``agents`` wraps each algorithm as an agent,
registered as ``uct``, ``ismcts``, ``duct``, ``pimc`` and ``mc`` (see
``cardboard.agents()`` and ``cardboard.make_agent``).
"""
