"""Game-agnostic trainers, one readable file each (CleanRL style), seeded and smoke-tested: ``ppo``
(MaskablePPO against a fixed opponent, ``cardboard train-ppo GAME``)."""
