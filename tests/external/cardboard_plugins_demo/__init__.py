"""Games written outside the cardboard repository, against ``cardboard.api`` and numpy only.

``demo_tricks`` (``tricks.TrickDuelGame``): a two-player trick-taking duel with hidden hands.
``demo_pig3`` (``pig.PigGame``): three-player Pig, a dice game with explicit chance nodes.

Both reach cardboard through the ``cardboard.games`` entry points of ``cardboard_plugins_demo-0.1.dist-info``,
as a pip-installed plugin would; ``command`` adds ``cardboard pig-odds`` through ``cardboard.commands``.
"""
