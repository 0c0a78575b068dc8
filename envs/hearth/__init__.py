"""The Hearthstone-style card game of paper 001 (Zhang 2017): the 2015 Blackrock-era decks.

Mech Mage, Handlock and Face Hunter with every card, token and hero power
(``cards``, ``brm_cards.json``), rules compiled over one flat state array
(``rules``, ``layout``), the forward model (``state``), the observation
(``observation``), the end-of-turn evaluation (``evaluation``) and hand-built
positions for tests (``positions``). The rules and every decision taken where
the sources are silent are in this folder's README.
"""
