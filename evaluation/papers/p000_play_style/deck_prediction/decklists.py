"""Decklist files: the bundled corpora and a user's own lists, read into ``Decklist`` (card-id multisets).

Two formats, chosen by the file's suffix:

- **text** (any suffix but ``.jsonl``), for people: a line ``# NAME`` starts a deck, ``identity: X`` (optional:
  Hearth's class, Fifth Aeon's factions as ``Decay+Growth``, main first) names its identity, and each card line
  is ``COUNT NAME`` (``2 Mortal Coil``, ``4x Crawling Zombie``; the name or the card id, case ignored). Blank lines
  and lines starting with ``//`` are skipped::

      # Zoo
      identity: Warlock
      2 Mortal Coil
      1 Dr. Boom

- **JSON lines** (``.jsonl``), for data sets: a header line ``{"format": "cardboard-decklists", "version": 1,
  "game": ..., "generator": ...}``, then one deck a line ``{"name": ..., "identity": ..., "cards": {id: count}}``.

Any problem raises ``DecklistError`` naming the file and line: a malformed line, an unknown card (with the closest
names), a copy limit, a card of another Hearth class, a wrong deck size (at the deck's first line), a file without a
deck (line 0). A value from the file shows in a message as a glimpse (``quoted``), never a whole line. The file is
read through ``cardboard.envs.files``: a regular file of at most ``DECKLIST_LIMIT`` bytes, checked before reading
(``InputFileError`` otherwise).
"""
from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from cardboard.envs.errors import DecklistError
from cardboard.envs.files import MiB, quoted, read_text

from .deck_rules import DeckRules, rules_for

FORMAT = "cardboard-decklists"
CORPUS_VERSION = 1
# About 15,000 decks (a bundled corpus of 2,400 is 0.6-0.7 MB): 2.5 times the paper's 6,000. Mining and the folds
# grow with the corpus (12,000 Hearth decks mine in 38 s, 2,400 in 7 s), so a larger file is refused at once.
DECKLIST_LIMIT = 4 * MiB
_CARD_LINE = re.compile(r"^(\d+)\s*[xX]?\s+(\S.*)$")


@dataclass
class Decklist:
    """A deck as a multiset of card ids, with its name, identity and the line it starts on in its file."""

    name: str
    identity: str
    cards: Counter = field(default_factory=Counter)
    line: int = 0

    @property
    def size(self) -> int:
        return sum(self.cards.values())


def corpus_file(game: str) -> str:
    """The bundled corpus's file name (in this package)."""
    return f"{game}-decklists-v{CORPUS_VERSION}.jsonl"


def digest(text: str) -> str:
    """The SHA-256 of a decklist file's text (its UTF-8 bytes): what a run folder records of its input."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def _bundled(game: str) -> tuple[tuple[Decklist, ...], str]:
    text = resources.files(__package__).joinpath(corpus_file(game)).read_text(encoding="utf-8")
    return tuple(parse_jsonl(text, rules_for(game), corpus_file(game))), digest(text)


def bundled_corpus(game: str) -> list[Decklist]:
    """The bundled corpus of ``game`` (loaded once a process; see ``generator`` for how it was made)."""
    return [Decklist(d.name, d.identity, Counter(d.cards), d.line) for d in _bundled(game)[0]]


def bundled_digest(game: str) -> str:
    """The SHA-256 of the bundled corpus file of ``game``."""
    return _bundled(game)[1]


def load_decklists(path: str | Path, game: str) -> list[Decklist]:
    """The decks of a decklist file (text or ``.jsonl``), each checked against ``game``'s deck rules."""
    return read_decklists(path, game)[0]


def read_decklists(path: str | Path, game: str) -> tuple[list[Decklist], str]:
    """The decks of a decklist file (``load_decklists``) and the SHA-256 of the text they were read from."""
    text = read_text(path, DECKLIST_LIMIT, "decklist file")
    parse = parse_jsonl if Path(path).suffix == ".jsonl" else parse_text
    decks = parse(text, rules_for(game), str(path))
    if not decks:
        raise DecklistError(str(path), 0, "no decks in the file (it is empty, or holds only comments or a header)")
    return decks, digest(text)


def parse_text(text: str, rules: DeckRules, source: str) -> list[Decklist]:
    """The decks of the text format (module docstring), checked."""
    decks: list[Decklist] = []
    lines: dict[int, int] = {}  # card -> its first line in the current deck

    def close() -> None:
        if decks:
            _check(decks[-1], rules, source, lines)

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if line.startswith("#"):
            close()
            decks.append(Decklist(line[1:].strip() or f"deck {len(decks) + 1}", "", Counter(), number))
            lines = {}
            continue
        if not decks:
            decks.append(Decklist("deck 1", "", Counter(), number))
        if line.lower().startswith("identity:"):
            decks[-1].identity = line.split(":", 1)[1].strip()
            continue
        match = _CARD_LINE.match(line)
        if not match:
            raise DecklistError(source, number, f"expected 'COUNT CARD NAME' (e.g. '2 {_example(rules)}'), "
                                                f"'# DECK NAME' or 'identity: X', got {quoted(line)}")
        count, card = int(match[1]), _card(rules, match[2].strip(), source, number)
        if count < 1:
            raise DecklistError(source, number, f"a card's count is at least 1, got {count}")
        decks[-1].cards[card] += count
        lines[card] = number  # its last line: where a copy limit is crossed
    close()
    return decks


def parse_jsonl(text: str, rules: DeckRules, source: str) -> list[Decklist]:
    """The decks of the JSON-lines format (module docstring), checked."""
    decks = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as err:
            raise DecklistError(source, number, f"not JSON ({err.msg})") from None
        if not isinstance(data, dict):
            raise DecklistError(source, number, "expected a JSON object")
        if "format" in data:
            if data["format"] != FORMAT or data.get("game", rules.game) != rules.game:
                raise DecklistError(source, number, f"a header of format {FORMAT!r} for {rules.game!r} expected, "
                                                    f"got {quoted(data.get('format'))} for {quoted(data.get('game'))}")
            continue
        cards = data.get("cards")
        if not isinstance(cards, dict):
            raise DecklistError(source, number, "a deck is {'name': ..., 'identity': ..., 'cards': {card: count}}")
        deck = Decklist(str(data.get("name", f"deck {len(decks) + 1}")), str(data.get("identity", "")), Counter(),
                        number)
        for name, count in cards.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise DecklistError(source, number, f"the count of {quoted(name)} must be a positive integer, "
                                                    f"got {quoted(count)}")
            deck.cards[_card(rules, str(name), source, number)] += count
        _check(deck, rules, source, {})
        decks.append(deck)
    return decks


def _card(rules: DeckRules, text: str, source: str, line: int) -> int:
    card = rules.card(text)
    if card is None:
        names = [rules.names[c] for c in rules.deck_cards]
        close = difflib.get_close_matches(text, names, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise DecklistError(source, line, f"{quoted(text)} is not a {rules.game} card a deck may hold{hint}")
    return card


def _check(deck: Decklist, rules: DeckRules, source: str, lines: dict[int, int]) -> None:
    """Fill a missing identity from the cards, then ``DecklistError`` at the first broken rule (a card's own line
    where it has one, else the deck's first line)."""
    if not deck.identity:
        deck.identity = rules.identity(deck.cards)
    elif not _known_identity(rules, deck.identity):
        raise DecklistError(source, deck.line, f"deck {quoted(deck.name)}: unknown identity {quoted(deck.identity)}")
    for card in sorted(deck.cards, key=lambda c: lines.get(c, 0)):
        problems = rules.problems({card: deck.cards[card]}, deck.identity, size=False)
        if problems:
            raise DecklistError(source, lines.get(card, deck.line), f"deck {quoted(deck.name)}: {problems[0]}")
    problems = rules.problems(deck.cards, deck.identity)
    if problems:
        raise DecklistError(source, deck.line, f"deck {quoted(deck.name)}: {problems[0]}")


def _known_identity(rules: DeckRules, identity: str) -> bool:
    groups = {rules.groups[c] for c in rules.deck_cards}
    return identity in groups - {"Neutral"} if rules.identity_rule else set(identity.split("+")) <= groups


def _example(rules: DeckRules) -> str:
    return rules.names[rules.deck_cards[0]]


def dump_text(decks: list[Decklist], rules: DeckRules) -> str:
    """Decks in the text format (cards by display name, cheapest first)."""
    out = []
    for d in decks:
        out += [f"# {d.name}", f"identity: {d.identity}"]
        out += [f"{n} {rules.names[c]}" for c, n in sorted(d.cards.items(), key=lambda cn: (rules.costs[cn[0]], cn[0]))]
        out.append("")
    return "\n".join(out)


def dump_jsonl(decks: list[Decklist], rules: DeckRules, header: dict) -> str:
    """Decks in the JSON-lines format after ``header`` (format, version and game added)."""
    head = {"format": FORMAT, "version": CORPUS_VERSION, "game": rules.game, **header}
    lines = [json.dumps(head)]
    lines += [json.dumps({"name": d.name, "identity": d.identity,
                          "cards": {rules.ids[c]: n for c, n in sorted(d.cards.items())}}, separators=(",", ":"))
              for d in decks]
    return "\n".join(lines) + "\n"
