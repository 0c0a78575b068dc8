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
names), a copy limit, a card of another Hearth class, a wrong deck size (at the deck's first line).
"""
from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from cardboard.envs.errors import DecklistError

from .deck_rules import DeckRules, rules_for

FORMAT = "cardboard-decklists"
CORPUS_VERSION = 1
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


@cache
def _bundled(game: str) -> tuple[Decklist, ...]:
    path = resources.files(__package__).joinpath(corpus_file(game))
    return tuple(parse_jsonl(path.read_text(), rules_for(game), corpus_file(game)))


def bundled_corpus(game: str) -> list[Decklist]:
    """The bundled corpus of ``game`` (loaded once a process; see ``generator`` for how it was made)."""
    return [Decklist(d.name, d.identity, Counter(d.cards), d.line) for d in _bundled(game)]


def load_decklists(path: str | Path, game: str) -> list[Decklist]:
    """The decks of a decklist file (text or ``.jsonl``), each checked against ``game``'s deck rules."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise DecklistError(str(path), 0, f"cannot read the file ({err})") from None
    parse = parse_jsonl if path.suffix == ".jsonl" else parse_text
    return parse(text, rules_for(game), str(path))


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
                                                f"'# DECK NAME' or 'identity: X', got {line!r}")
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
                                                    f"got {data.get('format')!r} for {data.get('game')!r}")
            continue
        cards = data.get("cards")
        if not isinstance(cards, dict):
            raise DecklistError(source, number, "a deck is {'name': ..., 'identity': ..., 'cards': {card: count}}")
        deck = Decklist(str(data.get("name", f"deck {len(decks) + 1}")), str(data.get("identity", "")), Counter(),
                        number)
        for name, count in cards.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise DecklistError(source, number, f"the count of {name!r} must be a positive integer, got {count!r}")
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
        raise DecklistError(source, line, f"{text!r} is not a {rules.game} card a deck may hold{hint}")
    return card


def _check(deck: Decklist, rules: DeckRules, source: str, lines: dict[int, int]) -> None:
    """Fill a missing identity from the cards, then ``DecklistError`` at the first broken rule (a card's own line
    where it has one, else the deck's first line)."""
    if not deck.identity:
        deck.identity = rules.identity(deck.cards)
    elif not _known_identity(rules, deck.identity):
        raise DecklistError(source, deck.line, f"deck {deck.name!r}: unknown identity {deck.identity!r}")
    for card in sorted(deck.cards, key=lambda c: lines.get(c, 0)):
        problems = rules.problems({card: deck.cards[card]}, deck.identity, size=False)
        if problems:
            raise DecklistError(source, lines.get(card, deck.line), f"deck {deck.name!r}: {problems[0]}")
    problems = rules.problems(deck.cards, deck.identity)
    if problems:
        raise DecklistError(source, deck.line, f"deck {deck.name!r}: {problems[0]}")


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
