"""Paper 000 ch. 6: opponent deck prediction by association rules, on decklist corpora of our own games.

- ``deck_rules``: each game's deck-building rules as the predictor needs them (``rules_for``);
- ``decklists``: the decklist files (a text format users fill with their own lists, and JSON lines), typed errors
  naming file and line; the bundled corpora (``bundled_corpus``);
- ``generator``: how the bundled corpora were made (``cardboard deck-corpus``);
- ``mining``: frequent itemsets (efficient-apriori) and the rules S -> c they give;
- ``predictor``: ``DeckPredictor`` (the paper's a1-a7 on our deck rules) and ``predictor_for``;
- ``baselines``: random legal, most popular, nearest decklist;
- ``corpus_stats``: what a corpus is like (distinct cards a deck, copies a card, overlap with the nearest deck);
- ``experiment``: 30-fold cross-validated accuracy curves (``cardboard deck-prediction``).
"""
from .baselines import NearestDeck, PopularCards, RandomLegal
from .deck_rules import DeckRules, rules_for
from .decklists import Decklist, bundled_corpus, load_decklists
from .predictor import DeckPredictor, predictor_for

__all__ = ["DeckPredictor", "predictor_for", "DeckRules", "rules_for", "Decklist", "bundled_corpus",
           "load_decklists", "RandomLegal", "PopularCards", "NearestDeck"]
