"""Paper 003 (Sfikas & Liapis 2020): the RHEA agents' experiment on Pandemic (``pandemic_agents``) and the testbed
of random set-ups (``testbed``: ``cardboard pandemic-testbed``). RHEA itself is ``cardboard.search.rhea``."""
