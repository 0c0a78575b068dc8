"""Each paper's reproduction in one home: its code, its README (claims, commands, our numbers beside theirs,
decisions) and its commands.

``p000_play_style``  Sephton 2016 (thesis): Lords of War play style and parallel search
``p001_hearthstone``  Zhang 2017 (thesis): card-play networks, CNN + greedy, HLR rollouts (DUCT and CNB: ``search``)
``p002_pruning``     Sephton et al.: heuristic move pruning in MCTS for Lords of War
``p003_pandemic``    Sfikas & Liapis 2020: RHEA agents on Pandemic, the testbed of set-ups
``p004_fifth_aeon``  Ritson 2019 (thesis): Fifth Aeon competition formats and card balancer

A paper's code may use every layer (games included); nothing outside ``papers`` imports it. Its agents register
through ``cardboard.registry.BUNDLED`` and its commands through the ``cardboard.commands`` entry points
(pyproject.toml), as a plugin's would.
"""
