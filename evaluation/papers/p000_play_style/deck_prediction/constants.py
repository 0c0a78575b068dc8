"""Paper 000's numbers for deck prediction (ch. 6; notes §2.8, §3.8), and ours where the paper is silent, in one
place. "000 §x" cites the reading notes of the thesis (``shared/papers/000_*.notes.md``)."""
from __future__ import annotations

FOLDS = 30  # 000 §2.8: "30-fold cross-validation on a total set of size 6000"
DEFAULT_OBSERVED = 5  # 000 §2.8: the identity plus 5 random cards, "roughly two complete turns of play"
OBSERVED_RANGE = tuple(range(11))  # 000 §3.8: 0..10 observed cards, plus the identity
# 000 §5.1 item 8: minsup about 5..25, absolute counts (not fractions), on 5,800 training decks of 600+ cards.
# Ours per game: our pools are small (Fifth Aeon 137 cards, Hearth 55) and our decks dense, so the same counts
# fire nearly every rule; the grids reach where the rules separate the cards (measured: p000_play_style/RESULTS.md, issue 37).
MIN_SUPPORTS = {"fifth_aeon": (10, 20, 40, 80, 160), "hearth": (20, 50, 100, 200, 400)}
PAPER_MIN_SUPPORT = 15  # 000 §3.8: a1 best at minsup ≈15, a4, a6, a7 at 15-20 (a corpus of another game: ours)
DEFAULT_MIN_SUPPORT = {"fifth_aeon": 80, "hearth": 100}  # ours: where the variants peak in our support curves
VARIANTS = ("a1", "a2", "a3", "a4", "a5", "a6", "a7")  # 000 §2.8 (a0, random, is our RandomBaseline)

# The paper's prose numbers at 5 observed cards (000 §3.8; figures 6.1-6.3 are lost): best match accuracy.
PAPER_ACCURACY = {"a0": (0.00, 0.06), "a1": 0.48, "a2": 0.53, "a4": 0.57, "a7": 0.59}

# Ours. Itemsets longer than this are not mined: rules S -> c with |S| <= 2. Decks of one archetype share a core
# of 20+ cards and every subset of a frequent core is frequent (2^20 itemsets): at 4 items Hearth's copy-level
# itemsets at support 5 are 1.8 million and take 130 s to mine (3 items: 124,000, 12 s).
MAX_ITEMSET = 3
PRECISION_AT = (5, 10, 20)  # precision / recall@k of the predicted remaining list
