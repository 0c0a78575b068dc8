"""The search agents' knobs (``search.knobs``): declared once, grouped, and the spec errors derived from the
declarations."""
import pytest

import cardboard
from cardboard import registry
from cardboard.envs.errors import InvalidParameterError
from cardboard.search.knobs import GROUPS, KNOBS, Knob, check, grouped

TREE_AGENTS = ("uct", "ismcts", "duct", "pimc", "mc")


def test_every_declaration_names_declared_knobs_and_a_group():
    for name, knob in KNOBS.items():
        assert knob.group in GROUPS and knob.meaning, name
        assert set(knob.needs) | set(knob.clashes) <= set(KNOBS), name


@pytest.mark.parametrize("agent", TREE_AGENTS)
def test_every_parameter_of_a_tree_agent_is_a_declared_knob_shown_in_its_group(agent):
    entry = registry.agent_entry(agent)
    params = [k for k in entry.defaults if k != "game"]
    assert set(params) <= set(KNOBS)
    groups = entry.factory.knob_groups
    assert sorted(n for names in groups.values() for n in names) == sorted(params)
    assert list(groups) == [g for g in GROUPS if g in groups]


def test_the_errors_come_from_the_declarations():
    knobs = {"a": Knob("tree policy", "A", clashes=("b",), why="one or the other"),
             "b": Knob("tree policy", "B"), "c": Knob("network", "C", needs=("a", "b"))}
    defaults = {"a": 0, "b": "", "c": False}
    original = dict(KNOBS)
    KNOBS.clear()
    KNOBS.update(knobs)
    try:
        check({"a": 1}, defaults)
        check({"a": 0, "b": "x", "c": True}, defaults)
        with pytest.raises(InvalidParameterError, match=r"^a=1 cannot be combined with b=x \(one or the other\)$"):
            check({"a": 1, "b": "x"}, defaults)
        with pytest.raises(InvalidParameterError, match=r"^c=1 needs a= or b=$"):
            check({"c": True}, defaults)
    finally:
        KNOBS.clear()
        KNOBS.update(original)


@pytest.mark.parametrize("spec, message", [
    ("ismcts:gumbel=1,cnb=1", "gumbel=1 cannot be combined with cnb=1"),
    ("ismcts:gumbel=1,prune=h4", "gumbel=1 cannot be combined with prune=h4"),
    ("ismcts:parallel=tree,reuse=1", "parallel=tree cannot be combined with reuse=1"),
    ("ismcts:accuracy=0.5,deckmodel=uniform", "accuracy=0.5 cannot be combined with deckmodel=uniform"),
    ("ismcts:heuristic=1,depth=2", "heuristic=1 cannot be combined with depth=2"),
    ("ismcts:cpuct=2", "cpuct=2.0 needs net=PATH"),
    ("ismcts:value=0", "value=0 needs net=PATH"),
    ("duct:chi=0.3", "chi=0.3 needs hlr=PATH"),
    ("uct:m=4", "m=4 needs gumbel="),
    ("ismcts:device=cuda", "device=cuda needs a network")])
def test_a_spec_that_breaks_a_declaration_is_refused_naming_both_knobs(spec, message):
    with pytest.raises(InvalidParameterError, match=message):
        cardboard.make_agent(spec, cardboard.make_game("lords_of_war"))


def test_gumbel_with_sensible_moves_is_allowed_and_hard_pruning_is_not():
    assert cardboard.make_agent("ismcts:gumbel=1,prune=1,iterations=4", cardboard.make_game("hearth"))
    assert cardboard.make_agent("ismcts:prune=h4,iterations=4", cardboard.make_game("lords_of_war"))


def test_agents_v_prints_the_groups():
    lines = grouped(["iterations", "c", "net", "parallel"])
    assert lines == ["search budget:", f"  iterations: {KNOBS['iterations'].meaning}", "tree policy:",
                     f"  c: {KNOBS['c'].meaning}", "network:", f"  net: {KNOBS['net'].meaning}", "parallelism:",
                     f"  parallel: {KNOBS['parallel'].meaning}"]
