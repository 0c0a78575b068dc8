"""Set-up files (``setup_file``): the round trip of positions through JSON, the errors a hand-written file
meets (each a ``SetupError`` naming the problem), and the files through ``new_state``, ``make_env`` and the CLI."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pandemic_helpers import L, deck_orders, draw, groups, infect, piles, position, random_states, setup_dict, to_draw

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.pandemic import SetupError, load_setup, setup_of, write_setup
from cardboard.envs.pandemic.setup_file import parse_setup
from cardboard.envs.pandemic.state import PandemicState

CARDBOARD = Path(sys.executable).with_name("cardboard")


def write(tmp_path, data, name="setup.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def reload(state, tmp_path) -> PandemicState:
    """``state`` through its set-up file on disk."""
    path = tmp_path / "round_trip.json"
    write_setup(state, path)
    return PandemicState(state.game, load_setup(path).array())


# The deck is stored with offsets (drawn cards stay before the top) and the loaded infection groups all have a
# fixed order: a round trip keeps the position, not those storage details.
STORAGE = [(L.PDECK, L.PDECK + L.PLAYER_DECK_MAX), (L.PILE_END, L.PILE_END + L.MAX_PILES),
           (L.IDECK, L.IDECK + L.NUM_CITIES), (L.GROUP_START, L.GROUP_START + 2 * L.MAX_GROUPS),
           (L.PTOP, L.PTOP + 1), (L.PEND, L.PEND + 1), (L.NPILES, L.NPILES + 1), (L.ITOP, L.ITOP + 1),
           (L.IBOT, L.IBOT + 1), (L.NGROUPS, L.NGROUPS + 1), (L.RESUME, L.RESUME + 1)]


def position_parts(state):
    keep = np.ones(L.STATE_LEN, dtype=bool)
    for a, b in STORAGE:
        keep[a:b] = False
    return state.s[keep].tolist(), deck_orders(state), piles(state), [len(g) for g in groups(state)], groups(state)


def turn_starts(seeds=range(8)):
    """Clones of states at the start of a seat's actions along random games, 2-4 players, all six roles."""
    return [s.clone() for seed in seeds
            for s in random_states(seed, players=2 + seed % 3, mode=("sample", "benign")[seed % 2], roles="random_all")
            if s.phase == "actions" and s.s[L.ACTIONS_LEFT] == 4
            and s.s[L.PEND] - s.s[L.PTOP] >= 2][::3]  # (a last turn: test_round_trip_of_the_last_turn)


# ---- round trip --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("state", turn_starts(), ids=str)
def test_round_trip_keeps_the_position(state, tmp_path):  # setup_file: "reading it back gives the same position"
    back = reload(state, tmp_path)
    assert position_parts(back) == position_parts(state)
    assert setup_of(back) == setup_of(state)
    assert back.card_multiset() == state.card_multiset()
    assert (back.legal_actions() == state.legal_actions()).all()
    assert all((back.observation(q) == state.observation(q)).all() for q in range(state.num_players))


def test_round_trip_of_a_set_up_is_the_same_array(tmp_path):  # a state read from a file is stored canonically
    state = position(roles=("medic", "dispatcher", "scientist"), at={1: "Paris"}, hands={0: ["Lima", "Tokyo"]},
                     cubes={"Cairo": 3, "Paris": {"red": 2}}, cured=["yellow"], outbreaks=3, epidemics_drawn=1,
                     player_deck=[["Essen", "epidemic", "Milan"], ["Madrid", "London", "epidemic"]],
                     infection_deck=[["Cairo", "Paris"], ["Osaka", "Seoul", "Delhi"]], current_player=2,
                     actions_left=2, turn=7, infection_rate_track="paper", stations=["Atlanta", "Cairo"])
    assert (reload(state, tmp_path).s == state.s).all()


def test_round_trip_mid_turn_and_after_an_epidemic(tmp_path):  # setup_file: during a seat's actions
    state = position(player_deck=[["epidemic", "Lima", "Tokyo", "Osaka"]], infection_discard=["Paris", "Cairo"])
    draw(to_draw(state), "epidemic", "Lagos", "Lima")
    infect(state, "Paris", "Lagos")
    state.apply(L.A_DRIVE + 1)  # seat 1 drives to Chicago
    back = reload(state, tmp_path)
    assert position_parts(back) == position_parts(state) and back.s[L.ACTIONS_LEFT] == 3
    assert setup_of(back)["infection_deck"][0] == {"unordered": ["Cairo"]}  # the epidemic's stack: no order yet


@pytest.mark.parametrize("deck", [["Lima", "Santiago", "Bogota"], ["Lima", "Santiago"]], ids=["one_left", "none_left"])
def test_round_trip_of_the_last_turn(deck, tmp_path):  # setup_file round trip, 003 §1.6 (iii)
    state = position(roles=("scientist", "medic"), player_deck=[deck])
    infect(draw(to_draw(state), "Lima", "Santiago"), "Paris", "Essen")
    assert state.current_player == 1 and not state.is_terminal()  # seat 1 still plays its actions
    assert position_parts(reload(state, tmp_path)) == position_parts(state)


def test_setup_of_refuses_outside_a_seats_actions():  # setup_file: written during a seat's actions
    with pytest.raises(InvalidParameterError, match="phase 'draw'"):
        setup_of(to_draw(position()))


# ---- errors ------------------------------------------------------------------------------------------------------
def mutated(change):
    data = setup_dict(hands={0: ["Paris"]})
    change(data)
    return data


def remove(zone, name):
    def change(d):
        for part in d[zone]:
            if name in part:
                part.remove(name)
    return change


EIGHT = ["Lima", "Tokyo", "Osaka", "Seoul", "Cairo", "Delhi", "Essen", "Milan"]
ERRORS = {
    "card_twice": (lambda d: d["player_discard"].append("Paris"),
                   r"Paris is in seats\[0\]\.hand and in player_discard"),
    "city_not_on_map": (lambda d: d["seats"][1].update(city="Gotham"), r"seats\[1\]\.city: 'Gotham' is not a city"),
    "four_cubes_in_a_city": (lambda d: d["cubes"].update(Cairo={"black": 4}),
                             r"cubes\['Cairo'\]\['black'\] must be an integer in \[0, 3\], got 4"),
    "over_24_cubes": (lambda d: d["cubes"].update({c: {"black": 3} for c in ("Cairo", "Delhi", "Tehran", "Moscow",
                      "Riyadh", "Baghdad", "Karachi", "Mumbai", "Chennai")}), r"27 black cubes on the board"),
    "unknown_role": (lambda d: d["seats"][0].update(role="doctor"), r"seats\[0\]\.role: 'doctor' is not a role"),
    "role_twice": (lambda d: d["seats"][1].update(role="operations_expert"), r"a role is taken twice"),
    "card_in_no_zone": (remove("player_deck", "Lima"), r"city card\(s\) in no hand, pile or discard: Lima"),
    "infection_card_missing": (remove("infection_deck", "Lima"), r"infection card\(s\) in neither .*: Lima"),
    "infection_card_twice": (lambda d: d["infection_discard"].append("Lima"),
                             r"infection card\(s\) listed twice: Lima"),
    "unknown_field": (lambda d: d.update(epidemics=4), r"1 unknown field\(s\); the fields are actions_left, cubes"),
    "hand_over_7": (lambda d: d["seats"][1].update(hand=EIGHT), r"seats\[1\]\.hand holds 8 cards; the hand limit is 7"),
    "bad_colour": (lambda d: d["cubes"].update(Cairo={"purple": 1}), r"'purple' is not a colour"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_setup_error_names_the_problem(name, tmp_path):  # setup_file: SetupError naming field and fault
    change, message = ERRORS[name]
    data = mutated(change)
    if name == "card_in_no_zone":  # keep the other zone explicit so the card is really nowhere
        data["player_discard"] = [c for c in data["player_discard"] if c != "Lima"]
    path = write(tmp_path, data)
    with pytest.raises(SetupError, match=message) as err:
        load_setup(path)
    assert isinstance(err.value, InvalidParameterError) and str(path) in str(err.value)


def test_a_valid_base_loads():  # the base of the error cases is itself valid
    assert parse_setup(mutated(lambda d: None)).roles == (0, 1, 2, 3)


def test_invalid_json(tmp_path):
    with pytest.raises(SetupError, match=r"\.json:1: not valid JSON"):
        load_setup(write(tmp_path, '{"seats": [}'))


def test_missing_file(tmp_path):
    with pytest.raises(SetupError, match="no such file"):
        load_setup(tmp_path / "absent.json")


def test_an_unknown_bare_name_lists_the_bundled_setups():
    bundled = ", ".join(f"S{i:02d}" for i in range(1, 11))
    with pytest.raises(SetupError, match=f"set-up S11: no such file, nor a bundled set-up \\({bundled}\\)"):
        cardboard.make_game("pandemic", setup="S11")


# ---- through the API and the CLI ---------------------------------------------------------------------------------
def test_new_state_and_make_env_read_the_file(tmp_path):  # registry: setup option
    data = setup_dict(roles=("medic", "scientist", "researcher"), hands={0: ["Lima"]}, cubes={"Cairo": 2})
    path = write(tmp_path, data)
    state = cardboard.new_state("pandemic", setup=str(path))
    assert state.num_players == 3 and (state.s == parse_setup(data).array()).all()
    env = cardboard.make_env("pandemic", setup=str(path))
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2"]
    for _ in range(30):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))


def test_shuffle_decks_reorders_a_set_up_keeping_its_structure(tmp_path):  # game option shuffle_decks (D_rand)
    path = tmp_path / "start.json"
    write_setup(cardboard.new_state("pandemic", seed=2), path)
    fixed = cardboard.new_state("pandemic", setup=str(path))
    shuffled = [cardboard.new_state("pandemic", setup=str(path), shuffle_decks=1, seed=s) for s in range(5)]
    assert all(piles(s) == piles(fixed) and groups(s) == groups(fixed) for s in shuffled)
    assert all(s.card_multiset() == fixed.card_multiset() for s in shuffled)
    assert len({deck_orders(s) for s in shuffled} | {deck_orders(fixed)}) == 6
    assert deck_orders(cardboard.new_state("pandemic", setup=str(path))) == deck_orders(fixed)


def cli(*args):
    return subprocess.run([str(CARDBOARD), "play", "pandemic", *args, "--games", "1", "--quiet"],
                          capture_output=True, text=True, timeout=120)


def test_cli_plays_a_set_up_file(tmp_path):  # CLI: --option setup=FILE
    path = tmp_path / "start.json"
    write_setup(cardboard.new_state("pandemic", seed=2), path)
    run = cli("--option", f"setup={path}", "--agents", "random,random,random,random")
    assert run.returncode == 0, run.stderr


def test_cli_reports_a_malformed_file_without_a_traceback(tmp_path):  # CLI: errors as messages
    path = write(tmp_path, mutated(lambda d: d["seats"][0].update(role="doctor")))
    run = cli("--option", f"setup={path}", "--agents", "random,random,random,random")
    output = " ".join((run.stdout + run.stderr).split())  # the console wraps long lines
    assert run.returncode != 0
    assert "'doctor' is not a role" in output and "Traceback" not in output
