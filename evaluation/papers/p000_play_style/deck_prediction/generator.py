"""The bundled decklist corpora: synthetic "community" decklists grown from each game's own decks.

The paper mined 6000 netrunnerdb.com decklists (000 §2.8); our games have no such site, so we generate decks that
look like a community's: a few archetypes played by many people, each person changing the core a little.

1. **Archetypes**: every bundled deck is one (Fifth Aeon's 12, Hearth's 3), its cards the core and its mana curve
   the target. Hearth adds, per class, an aggro and a control archetype whose cores are grown by step 3 from the
   class's cards (its 3 decks alone would make a corpus of three near-copies).
2. **A deck** of an archetype keeps each core card with probability ``KEEP`` (copies moved by one at random;
   ``--keep`` sets it: 0 keeps only the archetype's identity and curve, a corpus of less archetype structure), and
   with probability ``SPLASH`` (Fifth Aeon, mono-faction archetypes) takes a splash of 2-3 cards of one other
   faction: the corpus's special (influence-like) cards.
3. **Filling** to the deck size (Hearth 30; Fifth Aeon 40, or 41-50 with probability ``LARGE``) draws cards that
   the identity allows with weight = meta popularity (one log-normal draw per card and corpus) x (1 + synergy with
   the cards already in) x how much the card's cost is still wanted by the target curve. **Synergy** of two cards:
   how often they share a bundled deck (co-occurrence, cosine) plus half the overlap of their tags (tribe, unit
   type, keywords). Self-play co-occurrence was not used: with a dozen fixed decks it measures the same thing as
   the decks do. Copies: Hearth 2 (1 of a legendary, 1 sometimes), Fifth Aeon mostly 4, sometimes 2-3.

``cardboard deck-corpus --game GAME`` writes the corpus; the bundled files were made by the command in their header
line (the same seed gives the same file).
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from cardboard.envs.errors import InvalidParameterError

from .deck_rules import DeckRules, rules_for
from .decklists import Decklist, corpus_file, dump_jsonl

KEEP = 0.8  # a core card stays in a community deck
SPLASH = 0.3  # a mono-faction Fifth Aeon deck splashes a second faction
LARGE = 0.2  # a Fifth Aeon deck is above the 40-card minimum
POPULARITY_SIGMA = 0.8  # the meta's spread of card popularity (log-normal)
CURVE_BINS = 8  # costs 0, 1, ..., 6, 7+
# Hearth's extra archetypes: the share of each cost 0..7+ (aggro: cheap; control: expensive).
SHAPES = {"aggro": (0.02, 0.30, 0.30, 0.18, 0.10, 0.05, 0.03, 0.02),
          "control": (0.02, 0.06, 0.16, 0.14, 0.16, 0.14, 0.14, 0.18)}


def _bundled_decks(rules: DeckRules) -> list[tuple[str, dict[int, int]]]:
    if rules.game == "hearth":
        from cardboard.envs.hearth.cards import DECK_NAMES, load_deck

        out = []
        for name in DECK_NAMES:
            counts: dict[int, int] = {}
            for card in load_deck(name).cards:
                counts[rules.ids.index(card.id)] = counts.get(rules.ids.index(card.id), 0) + 1
            out.append((name, counts))
        return out
    from cardboard.envs.fifth_aeon.cards import DECK_LIST, load_deck

    return [(name, {rules.ids.index(c): n for c, n in load_deck(name).counts().items()}) for name in DECK_LIST]


def synergy_matrix(rules: DeckRules, seeds: list[dict[int, int]]) -> np.ndarray:
    """Pairwise synergy of cards: co-occurrence in the seed decks (cosine) + half their tags' Jaccard overlap."""
    n = len(rules.ids)
    member = np.zeros((len(seeds), n))
    for i, deck in enumerate(seeds):
        member[i, list(deck)] = 1
    both = member.T @ member
    counts = np.sqrt(np.maximum(np.diag(both), 1))
    cooc = both / np.outer(counts, counts)
    generic = {"unit", "minion", "spell", "item", "enchantment", "weapon"}
    tags = [t - generic for t in rules.tags]
    overlap = np.array([[len(a & b) / len(a | b) if a and b else 0.0 for b in tags] for a in tags])
    out = cooc + 0.5 * overlap
    np.fill_diagonal(out, 0)
    return out


def _curve(rules: DeckRules, deck: dict[int, int]) -> np.ndarray:
    hist = np.zeros(CURVE_BINS)
    for c, k in deck.items():
        hist[min(rules.costs[c], CURVE_BINS - 1)] += k
    return hist / max(hist.sum(), 1)


class Generator:
    """Draws decks of a game's archetypes (module docstring) from one seed."""

    def __init__(self, rules: DeckRules, seed: int, keep: float = KEEP):
        if not 0 <= keep <= 1:
            raise InvalidParameterError(f"keep is a probability (0 to 1), got {keep}")
        self.rules, self.rng, self.keep = rules, np.random.default_rng(seed), keep
        bundled = _bundled_decks(rules)
        self.synergy = synergy_matrix(rules, [d for _, d in bundled])
        self.popularity = self.rng.lognormal(0.0, POPULARITY_SIGMA, len(rules.ids))
        self.bins = np.minimum(np.array(rules.costs), CURVE_BINS - 1)
        self.archetypes = [(name, rules.identity(d), d, _curve(rules, d)) for name, d in bundled]
        if rules.game == "hearth":
            for identity in sorted({a[1] for a in self.archetypes}):
                for shape, curve in SHAPES.items():
                    core = self._fill({}, identity, np.array(curve), rules.sizes[0], set())
                    self.archetypes.append((f"{identity.lower()}_{shape}", identity, core, np.array(curve)))

    def deck(self, index: int) -> Decklist:
        """A deck of a random archetype (named after it and ``index``)."""
        rules, rng = self.rules, self.rng
        name, identity, core, curve = self.archetypes[rng.integers(len(self.archetypes))]
        low, high = rules.sizes
        size = low if high == low or rng.random() >= LARGE else int(rng.integers(low + 1, high + 1))
        deck = {c: int(np.clip(k + rng.choice((-1, 0, 0, 1)), 1, rules.limits[c]))
                for c, k in core.items() if rng.random() < self.keep}
        factions = set(rules.factions(identity))
        if not rules.identity_rule and len(factions) == 1 and rng.random() < SPLASH:
            others = sorted({rules.groups[c] for c in rules.deck_cards} - factions)
            splash = others[rng.integers(len(others))]
            for _ in range(int(rng.integers(2, 4))):
                self._add(deck, identity, curve, size, {splash}, limit_copies=3)
        while sum(deck.values()) > size:
            c = sorted(deck)[rng.integers(len(deck))]
            deck[c] -= 1
            if not deck[c]:
                del deck[c]
        deck = self._fill(deck, identity, curve, size, factions)
        return Decklist(f"{name} #{index}", rules.identity(deck), Counter({c: k for c, k in deck.items() if k > 0}))

    def _fill(self, deck: dict[int, int], identity: str, curve: np.ndarray, size: int,
              factions: set[str]) -> dict[int, int]:
        factions = factions or set(self.rules.factions(identity))
        while sum(deck.values()) < size:
            self._add(deck, identity, curve, size, factions)
        return deck

    def _add(self, deck: dict[int, int], identity: str, curve: np.ndarray, size: int, factions: set[str],
             limit_copies: int = 4) -> None:
        rules, rng = self.rules, self.rng
        room = size - sum(deck.values())
        if room <= 0:
            return
        allowed = np.array([rules.limits[c] > 0 and c not in deck and rules.groups[c] in factions
                            and rules.legal(c, identity) for c in range(len(rules.ids))])
        present = np.zeros(len(rules.ids))
        for c, k in deck.items():
            present[c] = k
        total = max(present.sum(), 1)
        have = np.bincount(self.bins, weights=present, minlength=CURVE_BINS) / total
        want = (curve + 0.02) / (have + 0.02)
        weight = allowed * self.popularity * (1 + self.synergy @ present / total * 10) * want[self.bins]
        card = int(rng.choice(len(weight), p=weight / weight.sum()))
        if rules.limits[card] == 1:
            copies = 1
        elif rules.limits[card] == 2:
            copies = 2 if rng.random() < 0.8 else 1
        else:
            copies = int(rng.choice((4, 4, 4, 3, 2)))
        deck[card] = min(copies, limit_copies, rules.limits[card], room)


def generate(game: str, decks: int, seed: int, keep: float = KEEP) -> list[Decklist]:
    """``decks`` decklists of ``game`` from ``seed``, each core card kept with probability ``keep`` (module
    docstring)."""
    gen = Generator(rules_for(game), seed, keep)
    return [gen.deck(i) for i in range(decks)]


SUMMARY = "paper 000 ch. 6: generate a decklist corpus (the bundled ones: see their header line)"
DEFAULT_DECKS = 2400  # 30 folds of 80 (the paper: 6000 decks, folds of 200)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, choices=("hearth", "fifth_aeon"))
    p.add_argument("--decks", type=int, default=DEFAULT_DECKS, help=f"decklists (default {DEFAULT_DECKS})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep", type=float, default=KEEP, help=f"probability that a deck keeps each card of its "
                   f"archetype's core (default {KEEP}; 0: only its identity and mana curve)")
    p.add_argument("--out", default=None, help="the file to write (default: the bundled corpus's name here)")


def run(args: argparse.Namespace, console: Any) -> int:
    rules = rules_for(args.game)
    decks = generate(args.game, args.decks, args.seed, args.keep)
    command = f"cardboard deck-corpus --game {args.game} --decks {args.decks} --seed {args.seed}"
    command += f" --keep {args.keep}" if args.keep != KEEP else ""
    out = Path(args.out or corpus_file(args.game))
    out.write_text(dump_jsonl(decks, rules, {"generator": command, "decks": len(decks)}))
    console.print(f"{len(decks)} {args.game} decklists in {out} ({out.stat().st_size / 1e3:.0f} kB)")
    return 0
