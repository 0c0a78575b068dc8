"""Paper 002 (Sephton et al.): heuristic move pruning in MCTS for Lords of War (``low_pruning``; the extrapolation
diagnostic ``low_extrapolation``). The pruning itself is a search strategy: ``cardboard.search.pruning``."""
