"""Policies: agents, scripted baselines and (later) torch card-play networks."""
