"""Paper 000 ch. 6 deck prediction: rules, supports and predictions on a corpus small enough to check by hand; the
legality of every prediction; the accuracy formula; decklist files and their errors; the bundled corpora; the
command's quick setting."""
from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardboard.envs.errors import DecklistError
from cardboard.evaluation.papers.p000_play_style.deck_prediction import (DeckPredictor, DeckRules, NearestDeck,
                                                                          PopularCards, RandomLegal, bundled_corpus,
                                                                          load_decklists, predictor_for, rules_for)
from cardboard.evaluation.papers.p000_play_style.deck_prediction.corpus_model import accuracy, precision_recall
from cardboard.evaluation.papers.p000_play_style.deck_prediction.decklists import Decklist
from cardboard.evaluation.papers.p000_play_style.deck_prediction.generator import generate
from cardboard.evaluation.papers.p000_play_style.deck_prediction.mining import Itemsets, identity_item

# A toy game: cards 0 and 4 of class A, 1-3 neutral; 2 copies of a card; decks of 4-6 cards.
TOY = DeckRules("toy", ("c0", "c1", "c2", "c3", "c4"), ("Zero", "One", "Two", "Three", "Four"), (2,) * 5,
                ("A", "Neutral", "Neutral", "Neutral", "A"), (1, 2, 3, 4, 5), (frozenset(),) * 5, (4, 6), True)
CORPUS = [Counter({0: 2, 1: 1, 2: 1}), Counter({0: 1, 1: 2, 2: 1}), Counter({0: 2, 1: 2}), Counter({3: 2, 4: 2})]


def printed(text: str, capsys) -> bool:
    """Whether ``text`` is in what was printed, whatever rich's line wrapping did to its spaces."""
    return "".join(text.split()) in "".join(capsys.readouterr().out.split())


def test_hand_counted_itemsets_and_rules():
    i = identity_item(0)
    transactions = [(i, 0, 8, 16), (i, 0, 8, 16), (i, 0, 8), (i, 24, 32)]  # card c is item 8c
    itemsets = Itemsets(transactions, 2)
    found = dict(zip(itemsets.sets, itemsets.counts.tolist()))
    assert found == {(i,): 4, (0,): 3, (8,): 3, (16,): 2, (i, 0): 3, (i, 8): 3, (i, 16): 2, (0, 8): 3, (0, 16): 2,
                     (8, 16): 2, (i, 0, 8): 3, (i, 0, 16): 2, (i, 8, 16): 2, (0, 8, 16): 2}
    itemsets.per_fold(transactions, [1, 1, 0, 1])  # without deck 3 ({I, 0, 1}) only the pairs of 2 survive
    alive = dict(zip(itemsets.sets, itemsets.alive(3, fold=0)))
    assert [s for s, a in alive.items() if a] == [(i,)]
    # Observed card 0 with the identity: rules {I} -> 0, 1, 2; {0} -> 1, 2; {I, 0} -> 1, 2 fire.
    predictor = DeckPredictor(CORPUS, TOY, "a1", 2)
    assert predictor.scores({0: 1}) == {0: 1.0, 1: 3.0, 2: 3.0, 3: 0.0, 4: 0.0}


def test_hand_computed_predictions():
    observed = {0: 1}
    # a1: by rule count (ties: decks of the identity holding the card), each at its limit: 1 x2, 2 x2, then 0.
    assert DeckPredictor(CORPUS, TOY, "a1", 2).ranked(observed, 6) == [1, 1, 2, 2, 0]
    # a2: at cardinality (card 0: 5/3 -> 2, card 1: 5/3 -> 2, card 2: 1, card 3: 2), the deck filled by card 3.
    assert DeckPredictor(CORPUS, TOY, "a2", 2).ranked(observed, 6) == [1, 1, 2, 0, 3]
    # a7: class cards first up to the budget (mean 7/4 -> 2: one more 0), by rules among class cards; then the
    # neutral ones by rules among neutral cards, each added card fed back: 1 x2 (the identity's rules tie 1
    # and 2; 1 is in more decks), 2 (now fired by {1} and {I, 1} too), 3 to fill.
    predictor = DeckPredictor(CORPUS, TOY, "a7", 2)
    assert predictor.budget == {"A": 2}
    assert predictor.ranked(observed, 6) == [0, 1, 1, 2, 3]
    assert predictor.predict(observed, 6) == Counter({0: 2, 1: 2, 2: 1, 3: 1})


def test_accuracy_and_precision_on_hand_numbers():
    assert accuracy(Counter({0: 2, 1: 1}), Counter({0: 1, 1: 2, 2: 1})) == 2 / 4
    assert precision_recall([0, 1, 2], Counter({1: 1, 2: 2}), 2) == (0.5, 1 / 3)


@pytest.fixture(scope="module", params=["hearth", "fifth_aeon"])
def models(request):
    game = request.param
    decks = bundled_corpus(game)[:300]
    rules = rules_for(game)
    out = {v: DeckPredictor(decks, rules, v, 30) for v in ("a1", "a2", "a3", "a4", "a5", "a6", "a7")}
    out.update(random=RandomLegal(decks, rules), popular=PopularCards(decks, rules), nearest=NearestDeck(decks, rules))
    return rules, bundled_corpus(game)[300:400], out


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_prediction_is_legal(models, data):
    rules, decks, predictors = models
    deck = data.draw(st.sampled_from(decks))
    cards = sorted(deck.cards.elements())
    seen = Counter(data.draw(st.lists(st.sampled_from(cards), max_size=10)))
    seen = Counter({c: min(n, deck.cards[c]) for c, n in seen.items()})
    identity = data.draw(st.sampled_from([deck.identity, None]))
    for name, model in predictors.items():
        predicted = model.predict(seen, deck.size, identity)
        assert sum(predicted.values()) == deck.size, name
        assert all(predicted[c] >= n for c, n in seen.items()), name
        assert not rules.problems(predicted, identity or rules.identity(predicted)), (name, predicted)


def test_predictor_for_is_built_once():
    assert predictor_for("hearth", "a2") is predictor_for("hearth", "a2")
    assert sum(predictor_for("hearth", "a2").predict({}, 30).values()) == 30


def test_bundled_corpora_load_legal_and_regenerate():
    for game in ("hearth", "fifth_aeon"):
        rules, decks = rules_for(game), bundled_corpus(game)
        assert len(decks) == 2400 and all(not rules.problems(d.cards, d.identity) for d in decks)
        again = generate(game, 20, 0)
        assert [(d.name, d.cards) for d in again] == [(d.name, d.cards) for d in decks[:20]]


def _write(tmp_path, text, name="decks.txt"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_text_decklists(tmp_path):
    text = "// my lists\n# Handlock\nidentity: Warlock\n2 Mortal Coil\n2x Ancient Watcher\n" + "".join(
        f"2 {n}\n" for n in ("Darkbomb", "Sunfury Protector", "Hellfire", "Twilight Drake", "Voidcaller",
                             "Mountain Giant", "Molten Giant", "Antique Healbot", "Defender of Argus",
                             "Shadowflame", "Siphon Soul")) + "1 Dr. Boom\n1 EX1_016\n1 Loatheb\n1 Emperor Thaurissan\n"
    [deck] = load_decklists(_write(tmp_path, text), "hearth")
    assert (deck.name, deck.identity, deck.size, deck.line) == ("Handlock", "Warlock", 30, 2)
    assert deck.cards[rules_for("hearth").card("Sylvanas Windrunner")] == 1


@pytest.mark.parametrize("text, line, words", [
    ("# a\n2 Mortal Coil\ntwo Hellfire\n", 3, "expected 'COUNT CARD NAME'"),
    ("# a\n2 Mortal Coil\n1 Mortal Coyl\n", 3, "did you mean 'Mortal Coil'"),
    ("# a\n3 Mortal Coil\n", 2, "3 copies of 'Mortal Coil', at most 2"),
    ("# a\n2 Dr. Boom\n", 2, "at most 1"),
    ("# a\n2 Mortal Coil\n2 Frostbolt\n", 3, "is a Mage card, the deck is Warlock"),
    ("\n# a\n2 Mortal Coil\n", 2, "a deck has 30 cards, this one 2"),
    ("# a\nidentity: Priest\n", 1, "unknown identity"),
])
def test_text_decklist_errors_name_the_line(tmp_path, text, line, words):
    with pytest.raises(DecklistError) as err:
        load_decklists(_write(tmp_path, text), "hearth")
    assert err.value.line == line and words in str(err.value) and str(err.value).startswith(f"{tmp_path}")


def test_fifth_aeon_text_and_jsonl_errors(tmp_path):
    deck = "# undead\n" + "".join(f"4 {n}\n" for n in ("Imp", "Gargoyle Sentry", "Tomb Guardian", "Abyssal Shield",
                                                      "Raider", "Raid Ship", "Whip of Torment", "Skeleton",
                                                      "Crawling Zombie", "Death’s Ascendancy"))
    [d] = load_decklists(_write(tmp_path, deck), "fifth_aeon")
    assert d.size == 40 and d.identity == "Decay"
    with pytest.raises(DecklistError, match=r":2: .*5 copies of 'Crawling Zombie', at most 4"):
        load_decklists(_write(tmp_path, "# z\n5 Crawling Zombie\n"), "fifth_aeon")
    with pytest.raises(DecklistError, match=r":1: deck 'undead': a deck has 40-50 cards, this one 52"):
        load_decklists(_write(tmp_path, deck + "4 Lich\n4 Toxin\n4 Decapitate\n"), "fifth_aeon")
    header = json.dumps({"format": "cardboard-decklists", "version": 1, "game": "fifth_aeon"})
    with pytest.raises(DecklistError, match=r"decks.jsonl:2: not JSON"):
        load_decklists(_write(tmp_path, header + "\n{oops\n", "decks.jsonl"), "fifth_aeon")
    with pytest.raises(DecklistError, match=r"decks.jsonl:1: a header .* for 'fifth_aeon'"):
        load_decklists(_write(tmp_path, header.replace("fifth_aeon", "hearth") + "\n", "decks.jsonl"), "fifth_aeon")
    with pytest.raises(DecklistError, match=r"decks.jsonl:2: 'Nope' is not a fifth_aeon card"):
        load_decklists(_write(tmp_path, header + '\n{"cards": {"Nope": 4}}\n', "decks.jsonl"), "fifth_aeon")


def test_decklist_type():
    assert Decklist("x", "Mage", Counter({1: 2})).size == 2


def test_quick_command_writes_curves_and_resumes(tmp_path):
    from cardboard.cli import main

    out = tmp_path / "dp"
    assert main(["deck-prediction", "--game", "hearth", "--quick", "--quiet", "--out", str(out)]) == 0
    curves = json.loads((out / "curves.json").read_text())["hearth"]
    assert curves["folds"] == 3 and set(curves["by_k"]) >= {"a1", "a7", "random", "popular", "nearest"}
    assert all(0 <= v[0] <= 1 for curve in curves["by_k"].values() for v in curve)
    assert (out / "hearth-observed.png").exists() and (out / "hearth-support.png").exists()
    lines = (out / "folds.jsonl").read_text()
    assert main(["deck-prediction", "--game", "hearth", "--quick", "--quiet", "--out", str(out)]) == 0
    assert (out / "folds.jsonl").read_text() == lines


def test_the_command_takes_a_users_decklists(tmp_path):
    from cardboard.cli import main
    from cardboard.evaluation.papers.p000_play_style.deck_prediction.decklists import dump_text

    path = _write(tmp_path, dump_text(bundled_corpus("hearth")[:30], rules_for("hearth")))
    out = tmp_path / "mine"
    assert main(["deck-prediction", "--game", "hearth", "--decklists", str(path), "--folds", "3", "--tests", "2",
                 "--quiet", "--out", str(out)]) == 0
    assert json.loads((out / "curves.json").read_text())["hearth"]["tests"] == 6
    assert main(["deck-prediction", "--decklists", str(path), "--quiet", "--out", str(tmp_path / "x")]) == 2


def test_corpus_statistics_on_hand_numbers():
    from cardboard.evaluation.papers.p000_play_style.deck_prediction.corpus_stats import corpus_statistics

    decks = [Decklist("a", "X", Counter({0: 2, 1: 2})), Decklist("b", "X", Counter({0: 1, 2: 3})),
             Decklist("c", "X", Counter({0: 2, 1: 1, 3: 1})), Decklist("d", "Y", Counter({4: 2, 5: 2}))]
    stats = corpus_statistics(decks)
    # 9 distinct cards in 4 decks of 16 cards; nearest of the same identity: a-c share 3 (3/4), b shares 1 with
    # either (1/4), c-a 3 (3/4); d is alone in Y and left out.
    assert (stats.decks, stats.identities, stats.distinct, stats.copies) == (4, 2, 9 / 4, 16 / 9)
    assert stats.nearest == pytest.approx(7 / 12)


def test_lead_over_baselines_on_hand_numbers():
    from cardboard.evaluation.papers.p000_play_style.deck_prediction.experiment import lead_over_baselines

    by_k = {"a1": [[0.5, 0, 0], [0.6, 0, 0]], "a5": [[0.4, 0, 0], [0.7, 0, 0]], "random": [[0.9, 0, 0], [0.9, 0, 0]],
            "popular": [[0.45, 0, 0], [0.5, 0, 0]], "nearest": [[0.3, 0, 0], [0.75, 0, 0]]}
    assert lead_over_baselines(by_k) == pytest.approx([0.05, -0.05])  # random is no bar to clear


def test_less_archetype_structure_lowers_the_nearest_overlap():
    from cardboard.evaluation.papers.p000_play_style.deck_prediction.corpus_stats import corpus_statistics

    rules = rules_for("fifth_aeon")
    loose, bundled = generate("fifth_aeon", 200, 0, keep=0.0), generate("fifth_aeon", 200, 0)
    assert all(not rules.problems(d.cards, d.identity) for d in loose)
    assert corpus_statistics(loose).nearest < corpus_statistics(bundled).nearest - 0.1


def _cli(*argv):
    from cardboard.cli import main

    return main(["deck-prediction", "--game", "hearth", "--folds", "3", "--tests", "2", "--quiet", *map(str, argv)])


def _hearth_lists(tmp_path, start=0, name="decks.txt"):
    from cardboard.evaluation.papers.p000_play_style.deck_prediction.decklists import dump_text

    return _write(tmp_path, dump_text(bundled_corpus("hearth")[start:start + 30], rules_for("hearth")), name)


def test_a_changed_decklist_file_is_refused_not_reprinted(tmp_path, capsys):
    path, out = _hearth_lists(tmp_path), tmp_path / "run"
    assert _cli("--decklists", path, "--out", out) == 0
    before = {f: (out / f).read_text() for f in ("config.json", "folds.jsonl", "curves.json")}
    assert json.loads(before["config.json"])["sha256"]["hearth"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert _cli("--decklists", path, "--out", out) == 0  # the same file resumes
    _hearth_lists(tmp_path, start=30)  # the same path, other decks
    capsys.readouterr()
    assert _cli("--decklists", path, "--out", out) == 2
    assert printed(f"{path} has changed since {out}", capsys)
    assert {f: (out / f).read_text() for f in before} == before


def test_nothing_is_written_before_the_decklists_are_read(tmp_path, capsys):
    bad, out = _write(tmp_path, "# a\n2 Mortal Coil\n", "bad.txt"), tmp_path / "run"
    assert _cli("--decklists", bad, "--out", out) == 2
    assert printed("bad.txt:1: deck 'a': a deck has 30 cards", capsys)
    assert not out.exists()
    assert _cli("--decklists", _hearth_lists(tmp_path), "--out", out) == 0  # the corrected command runs


def test_an_empty_decklist_file_is_named(tmp_path, capsys):
    empty = _write(tmp_path, "// nothing yet\n", "empty.txt")
    with pytest.raises(DecklistError, match=r"empty.txt:0: no decks in the file"):
        load_decklists(empty, "hearth")
    assert _cli("--decklists", empty, "--out", tmp_path / "run") == 2
    assert printed("empty.txt:0: no decks", capsys)
    few = _write(tmp_path, "".join(_hearth_lists(tmp_path).read_text().split("\n# ")[0]), "one.txt")
    assert _cli("--decklists", few, "--out", tmp_path / "run") == 2
    assert printed("one.txt: 1 hearth decklists cannot make 3 folds", capsys)
    assert not (tmp_path / "run").exists()


def test_a_decklist_file_is_checked_before_it_is_read(tmp_path):
    import os

    from cardboard.envs.files import InputFileError
    from cardboard.evaluation.papers.p000_play_style.deck_prediction.decklists import DECKLIST_LIMIT

    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate(DECKLIST_LIMIT + 1)  # sparse: nothing to read, only its size
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    for path, words in ((big, "MiB limit of a decklist file"), (fifo, "not a regular file"),
                        ("/dev/zero", "not a regular"), (tmp_path, "a folder"), (tmp_path / "no.txt", "no such file")):
        with pytest.raises(InputFileError, match=words) as err:
            load_decklists(path, "hearth")
        assert str(err.value).startswith(str(path))


def test_decklist_errors_show_a_glimpse_not_the_line(tmp_path):
    secret = "database_password " + "x" * 200
    with pytest.raises(DecklistError) as err:
        load_decklists(_write(tmp_path, f"# a\n{secret}\n"), "hearth")
    assert err.value.line == 2 and secret not in str(err.value) and len(str(err.value)) < len(str(tmp_path)) + 200


def test_the_progress_bar_names_what_it_reads(tmp_path):
    import io

    from rich.console import Console

    from cardboard.cli import build_parser
    from cardboard.evaluation.papers.p000_play_style.deck_prediction import experiment

    path = _hearth_lists(tmp_path)
    args = build_parser().parse_args(["deck-prediction", "--game", "hearth", "--decklists", str(path), "--folds", "3",
                                      "--tests", "2", "--out", str(tmp_path / "run")])
    console = Console(file=io.StringIO(), force_terminal=True, color_system=None, width=500)
    assert experiment.run(args, console) == 0
    shown = console.file.getvalue()
    for words in (f"reading {path}", f"hearth: mining 30 decks of {path}", f"hearth: fold 3/3 of {path}",
                  "lead", "hearth corpus: 30 decks, 3 identities"):
        assert words in shown, words
