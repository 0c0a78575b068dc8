"""The Hearthstone-style card game of paper 001 (2015 Blackrock-era decks). IN PROGRESS.

So far: the card data and the three deck lists with validation (``cards``).
The rules engine, forward model and environment are not written yet, so the
game is not registered (``cardboard.games()`` does not list it).
"""
