"""The rolling horizon EA (``cardboard.search.rhea``): plans as turn-genes, replay with repair, the horizon, the
(1+1) loop's evaluation counts and strict replacement, mutation, the per-game name registries, and the agent on
every registered game."""
from __future__ import annotations

import time

import numpy as np
import pytest

import cardboard
from cardboard.envs.errors import InvalidParameterError
from cardboard.envs.protocol import CHANCE, sample_chance
from cardboard.envs.registration import AGENTS, Entry
from cardboard.search.rhea import RHEA, Mutator, RandomPolicy, heuristic_fitness, returns_fitness

from .games import dice_race, hidden_cards, nim, tictactoe

ROLL, STOP = dice_race.ROLL, dice_race.STOP
TTT = tictactoe.TicTacToeGame()
DICE = dice_race.DiceRaceGame(target=10, faces=3)


class Always:
    """A policy that plays ``action`` when legal, else the lowest legal action; records (turn, action) asked."""

    name = "always"

    def __init__(self, action: int = -1):
        self.action, self.asked = action, []

    def reset(self) -> None:
        pass

    def act(self, state, rng) -> int:
        legal = [int(a) for a in state.legal_actions()]
        action = self.action if self.action in legal else legal[0]
        self.asked.append((state.turn, action))
        return action


class Recorder:
    """A fitness that records what it was called on and scores ``score(state, player, call)``."""

    def __init__(self, score=lambda state, player, call: 0.5):
        self.score, self.seen = score, []

    def __call__(self, state, player) -> float:
        self.seen.append((state.turn, state.current_player, state.is_terminal(), player))
        return self.score(state, player, len(self.seen))



# ---- the agent on every game -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", cardboard.games())
def test_the_agent_plays_legal_actions_on_every_registered_game(name):
    game = cardboard.make_game(name)
    agent = cardboard.make_agent("rhea:horizon=3,generations=5,evaluations=2", game)
    asked = 0
    for seed in range(3):
        state, rng = game.new_state(seed), np.random.default_rng(seed)
        for step in range(60):
            if state.is_terminal():
                break
            if state.current_player == CHANCE:
                state.apply(sample_chance(state, rng))
                continue
            legal = state.legal_actions().copy()
            if step % 4 == 0:
                action = agent.act(state, rng)
                assert action in legal and isinstance(action, int)
                asked += 1
            else:
                action = int(legal[rng.integers(len(legal))])
            state.apply(action)
    assert asked >= 3
    agent.reset()


def test_the_spec_builds_without_a_game_and_refuses_bad_numbers():
    agent = cardboard.make_agent("rhea:generations=5")
    state = tictactoe.TicTacToeState(TTT, "XO.......")
    assert agent.act(state, np.random.default_rng(0)) in state.legal_actions()
    assert agent.name == "rhea:generations=5" and agent.reset() is None
    for spec in ("rhea:horizon=0", "rhea:evaluations=0", "rhea:generations=-1", "rhea:rate_end=1.5",
                 "rhea:seconds=-1"):
        with pytest.raises(InvalidParameterError):
            cardboard.make_agent(spec)


def test_the_same_seed_gives_the_same_plan_and_seeds_differ():
    state = cardboard.new_state("lords_of_war", seed=3)
    planner = RHEA(horizon=3, generations=20, evaluations=2)
    first = planner.plan(state, np.random.default_rng(11))
    again = planner.plan(state, np.random.default_rng(11))
    assert (first.genome, first.score, first.improvements) == (again.genome, again.score, again.improvements)
    others = [planner.plan(state, np.random.default_rng(seed)).genome for seed in range(5)]
    assert any(genome != first.genome for genome in others)


class Peek:
    """Hidden cards: player 1 calls with a card of 3 or more, else folds (reads the world it is handed)."""

    name = "peek"

    def reset(self) -> None:
        pass

    def act(self, state, rng) -> int:
        return hidden_cards.BET if state.current_player == 0 else (
            hidden_cards.CALL if state.cards[1] >= 3 else hidden_cards.FOLD)


@pytest.mark.parametrize("generations", [0, 10])
def test_the_plan_uses_only_what_the_player_may_know(generations):
    """Two true states that differ only in the opponent's hidden card give the same plan and score: every world
    is a determinization (built on the true state, the plan and its score would follow the true card)."""
    game = hidden_cards.HiddenCardsGame(5)
    planner = RHEA(horizon=2, generations=generations, evaluations=3, repair=Peek())
    low, high = (planner.plan(game.state_with(3, c1), np.random.default_rng(5)) for c1 in (1, 5))
    assert (low.genome, low.score) == (high.genome, high.score)


# ---- genes are turns; replay and repair ------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: DICE.new_state(), lambda: cardboard.new_state("lords_of_war", seed=2)],
                         ids=["dice_race", "lords_of_war"])
def test_an_empty_genome_is_filled_turn_by_turn_by_the_repair_policy(make):
    state = make()
    repair = Always()
    planner = RHEA(horizon=3, repair=repair)
    genome = [[], [], []]
    planner.replay(genome, state.clone(), state.turn, np.random.default_rng(0))
    assert sum(map(len, genome)) == len(repair.asked) > 3
    assert genome == [[a for t, a in repair.asked if t == state.turn + g] for g in range(3)]


def test_illegal_gene_actions_are_repaired_in_place():
    state = tictactoe.TicTacToeState(TTT, "X...O....")  # X to move; cells 0 and 4 are taken
    repair = Always(8)
    genome = [[4], [0], []]  # both occupied: illegal there; the third gene is empty
    world = RHEA(horizon=3, repair=repair).replay(genome, state.clone(), state.turn, np.random.default_rng(0))
    assert genome == [[8], [1], [2]]  # 8 for X; 8 is taken for O, whose repair falls back to the lowest legal
    assert world.board[8] == 0 and world.board[1] == 1 and world.board[2] == 0 and world.turn == state.turn + 3


def test_a_turn_that_ends_early_drops_the_rest_of_its_gene():
    genome = [[ROLL, ROLL, STOP, ROLL, ROLL], []]  # two rolls of at most 3 cannot bust a target of 10
    world = RHEA(horizon=2, repair=Always(STOP)).replay(genome, DICE.new_state(), 0, np.random.default_rng(1))
    assert genome == [[ROLL, ROLL, STOP], [STOP]] and world.is_terminal()
    genome = [[ROLL, STOP, ROLL]]  # the last turn of the horizon
    world = RHEA(horizon=1).replay(genome, DICE.new_state(), 0, np.random.default_rng(1))
    assert genome == [[ROLL, STOP]] and world.current_player == 1
    genome = [[2, 5], [6]]  # X wins on 2: the game ends inside the gene
    world = RHEA(horizon=2).replay(genome, tictactoe.TicTacToeState(TTT, "XX.OO...."), 0, np.random.default_rng(1))
    assert genome == [[2], [6]] and world.is_terminal()


def test_chance_inside_the_horizon_is_sampled_by_its_probabilities():
    """Rolling until a bust: the busting total (11, 12 or 13 on a d3 and target 10) varies from world to world."""
    busts = []
    fitness = Recorder(lambda state, player, call: busts.append(state.totals[0]) or 0.0)
    RHEA(horizon=1, generations=0, evaluations=60, repair=Always(ROLL), fitness=fitness).plan(
        DICE.new_state(), np.random.default_rng(0))
    assert set(busts) == {11, 12, 13} and all(terminal for _, _, terminal, _ in fitness.seen)


def test_a_mutation_point_takes_the_mutators_action_and_the_repair_refills_the_rest():
    planner = RHEA(horizon=2, repair=Always(STOP), mutator=Mutator(Always(ROLL)))
    genome = [[STOP], [ROLL, ROLL, STOP]]
    planner.replay(genome, DICE.new_state(), 0, np.random.default_rng(1), points={0: 0, 1: 1})
    assert genome == [[ROLL, STOP], [ROLL, ROLL, STOP]]  # gene 1's old rest (ROLL, STOP) is refilled by STOP
    genome = [[ROLL, ROLL, ROLL, STOP], [STOP]]
    planner.replay(genome, DICE.new_state(), 0, np.random.default_rng(1), points={0: 1})
    assert genome == [[ROLL, ROLL, STOP], [STOP]]


@pytest.mark.parametrize("name", ["lords_of_war", "hearth"])
@pytest.mark.parametrize("horizon", [1, 2, 4])
def test_fitness_is_called_when_the_turn_after_the_horizon_begins(kit, name, horizon):
    """After the horizon-th turn's end-of-turn chance, at the next turn's first decision, or at the end."""
    fitness = Recorder()
    for seed in range(2):
        state = kit.played_state(name, seed, 25)
        while state.current_player == CHANCE:
            state.apply(sample_chance(state, np.random.default_rng(seed)))
        RHEA(horizon=horizon, generations=3, evaluations=2, fitness=fitness).plan(state, np.random.default_rng(0))
        for turn, player, terminal, _ in fitness.seen[-8:]:
            assert terminal or (turn == state.turn + horizon and player >= 0)
    assert sum(not terminal for _, _, terminal, _ in fitness.seen) >= 8


def test_the_returns_fitness_maps_returns_at_the_end_and_the_heuristic_before():
    game = hidden_cards.HiddenCardsGame(5)
    state = game.state_with(4, 2)
    assert returns_fitness(state, 0) == heuristic_fitness(state, 0) == (0.5 + 1) / 2  # P(higher) = 3/4
    state.apply(hidden_cards.FOLD)  # returns (-1, +1) in [-2, 2]; the heuristic is the sign
    assert (returns_fitness(state, 1), heuristic_fitness(state, 1)) == (0.75, 1.0)
    assert (returns_fitness(state, 0), heuristic_fitness(state, 0)) == (0.25, 0.0)
    named = {name: cardboard.make_agent(f"rhea:fitness={name}", game).planner(game.new_state(0)).fitness
             for name in ("returns", "heuristic")}
    assert named == {"returns": returns_fitness, "heuristic": heuristic_fitness}


# ---- the (1+1) loop --------------------------------------------------------------------------------------
@pytest.mark.parametrize("generations,evaluations", [(0, 3), (4, 1), (7, 3)])
def test_the_parent_is_scored_once_and_each_child_over_its_own_evaluations(generations, evaluations):
    fitness = Recorder()
    planner = RHEA(horizon=2, generations=generations, evaluations=evaluations, fitness=fitness)
    result = planner.plan(DICE.new_state(), np.random.default_rng(0))
    assert len(fitness.seen) == result.evaluations_run == evaluations * (generations + 1)
    assert result.generations_run == generations
    assert all(player == 0 for *_, player in fitness.seen)  # the acting player's fitness


def test_only_a_strictly_better_child_replaces_the_parent():
    state = tictactoe.TicTacToeState(TTT, "X...O....")
    rng = np.random.default_rng(3)
    flat = RHEA(horizon=3, generations=10, fitness=Recorder()).plan(state, rng)
    built = RHEA(horizon=3, generations=0, fitness=Recorder()).plan(state, np.random.default_rng(3))
    assert flat.improvements == 0 and flat.score == 0.5 and flat.genome == built.genome  # ties keep the parent
    rising = Recorder(lambda state, player, call: call)  # every later evaluation scores higher
    result = RHEA(horizon=3, generations=10, evaluations=2, fitness=rising).plan(state, rng)
    assert result.improvements == 10 and result.score == (21 + 22) / 2  # the last child, evaluations 21 and 22


def test_with_no_generations_the_agent_plays_the_repair_policys_first_action():
    state = nim.NimState(nim.NimGame((1, 3, 5)))
    for action in (0, 7, 14):
        planner = RHEA(horizon=3, generations=0, repair=Always(action))
        assert planner.act(state, np.random.default_rng(0)) == action


@pytest.mark.parametrize("board,win", [("XX.OO....", 2), ("XX.OO.X..", 5)], ids=["X", "O"])
def test_evolution_finds_the_winning_move_that_the_repair_plan_misses(board, win):
    """The player to move wins at once on one cell while the opponent threatens another: one of 4-5 moves for
    the repair policy's random plan, every seed for RHEA."""
    state = tictactoe.TicTacToeState(TTT, board)
    evolved = [RHEA(horizon=2, generations=30, evaluations=2).act(state, np.random.default_rng(s)) for s in range(20)]
    seeded = [RHEA(horizon=2, generations=0, evaluations=2).act(state, np.random.default_rng(s)) for s in range(20)]
    assert evolved == [win] * 20 and seeded.count(win) < 10


def test_the_time_limit_stops_the_generations():
    slow = Recorder(lambda state, player, call: time.sleep(0.002) or 0.0)
    result = RHEA(generations=200, evaluations=1, seconds=0.1, fitness=slow).plan(TTT.new_state(),
                                                                               np.random.default_rng(0))
    assert 1 <= result.generations_run < 200
    assert len(slow.seen) == result.evaluations_run + 2  # and the untimed warm-up plan's parent and one child


# ---- mutation --------------------------------------------------------------------------------------------
def test_the_mutation_rate_anneals_linearly():
    mutator = Mutator(RandomPolicy(), 1.0, 0.5)
    assert [mutator.rate(g, 5) for g in range(5)] == [1.0, 0.875, 0.75, 0.625, 0.5]
    assert Mutator(RandomPolicy()).rate(0, 1) == 1.0


def test_mutation_points_lie_in_non_empty_genes_and_at_least_one_is_drawn():
    genome = [[1, 2, 3], [], [4], [5, 6]]
    rng = np.random.default_rng(0)
    mutator = Mutator(RandomPolicy())
    for _ in range(50):
        assert sorted(mutator.points(genome, 0.0, rng)) in ([0], [2], [3])
        points = mutator.points(genome, 1.0, rng)
        assert sorted(points) == [0, 2, 3] and all(0 <= i < len(genome[g]) for g, i in points.items())
    positions = {mutator.points(genome, 1.0, rng)[0] for _ in range(100)}
    assert positions == {0, 1, 2}


# ---- names: the generic ones, a game's evaluation hook, registered agents as policies ----------------------
def test_an_unknown_name_is_refused_with_the_names_available():
    with pytest.raises(InvalidParameterError, match="fitness 'nope'.*game 'tictactoe'; available: returns, heuristic "
                                                    r"\(the game offers no evaluation hook\)"):
        cardboard.make_agent("rhea:fitness=nope", TTT)
    for knob in ("repair", "mutator"):
        with pytest.raises(InvalidParameterError, match="unknown agent 'nope'; known: "):
            cardboard.make_agent(f"rhea:{knob}=nope", TTT)


def test_a_game_offers_its_own_fitness_and_a_registered_agent_serves_as_policy(monkeypatch):
    asked = []

    def evaluation(self, name):
        asked.append(name)
        if name != "centre":
            raise InvalidParameterError(f"no evaluation {name!r}")
        return lambda state, player: float(state.board[4] == player)

    monkeypatch.setattr(type(TTT.new_state()), "evaluation", evaluation, raising=False)
    agent = cardboard.make_agent("rhea:horizon=1,generations=20,fitness=centre", TTT)
    assert asked == ["centre"] and agent.act(TTT.new_state(), np.random.default_rng(0)) == 4
    with pytest.raises(InvalidParameterError, match="no evaluation 'edge'"):
        cardboard.make_agent("rhea:fitness=edge", TTT)
    monkeypatch.setitem(AGENTS, "corner", Entry.of("corner", lambda: Always(8), "always the corner"))
    lazy = cardboard.make_agent("rhea:horizon=1,generations=0,repair=corner")  # no game: built at the first act
    assert lazy.act(TTT.new_state(), np.random.default_rng(0)) == 8
    with pytest.raises(InvalidParameterError, match="fitness 'centre' is not available for game 'nim"):
        cardboard.make_agent("rhea:fitness=centre", nim.NimGame())


def test_the_agent_hands_back_its_decision_for_self_play_records(tmp_path):
    from cardboard.training.selfplay import generate

    agent = cardboard.make_agent("rhea:generations=5,horizon=2")
    state = tictactoe.TicTacToeGame().new_state()
    action = agent.act(state, np.random.default_rng(0))
    key = state.action_key(action)
    assert agent.last.action == action and agent.last.visits == {key: 1} and agent.last.policy == {key: 1.0}
    assert agent.last.iterations > 0
    agent.reset()
    assert agent.last is None
    generate("lords_of_war", ["rhea:generations=2,horizon=1"], games=1, seed=0, out=tmp_path)
    shard = np.load(next(tmp_path.glob("shard-*.npz")))
    searched = shard["searched"]
    assert searched.any()  # RHEA's decisions are recorded, each policy on the move played (and its soft-key twins)
    rows = np.flatnonzero(searched)
    assert (shard["policy"][rows, shard["action"][rows]] > 0).all()
    assert shard["policy"][rows].sum(axis=1) == pytest.approx(1.0)


# ---- a seed policy: the first parent's plan ----------------------------------------------------------------
def test_a_seed_policy_plans_the_first_parent_and_repair_still_fills_the_replays():
    state = nim.NimState(nim.NimGame((1, 3, 5)))
    repair, seed = Always(0), Always(14)
    planner = RHEA(horizon=3, generations=0, evaluations=2, repair=repair, seed=seed)
    assert planner.act(state, np.random.default_rng(0)) == 14
    assert seed.asked[0] == (0, 14) and seed.asked[1][0] == 1  # the seed decides both players' turns
    assert RHEA(horizon=3, generations=0, repair=Always(0)).act(state, np.random.default_rng(0)) == 0


def test_a_seed_given_as_an_agent_spec_is_built_for_the_game(monkeypatch):
    monkeypatch.setitem(AGENTS, "cell", Entry.of("cell", lambda cell=8: Always(cell), "always one cell"))
    agent = cardboard.make_agent("rhea:horizon=1,generations=0,seed=cell:cell=6", TTT)
    assert agent.act(TTT.new_state(), np.random.default_rng(0)) == 6
    spec = "rhea:horizon=1,generations=0,seed=cell:cell=6,evaluations=1,random"  # split as two agents
    assert cardboard.registry.split_agent_specs(spec) == ["rhea:horizon=1,generations=0,seed=cell:cell=6,"
                                                          "evaluations=1", "random"]
    with pytest.raises(InvalidParameterError, match="unknown agent 'nope'"):
        cardboard.make_agent("rhea:seed=nope:x=1", TTT)
    with pytest.raises(InvalidParameterError, match="parameter 'cell': 'x' is not a valid int"):
        cardboard.make_agent("rhea:seed=cell:cell=x", TTT)
    from cardboard.search.rhea import rhea_agent  # a factory called below the registry, handed no builder, says so

    with pytest.raises(InvalidParameterError, match="'cell:cell=6' is an agent spec, and no agent builder was handed"):
        rhea_agent(TTT, seed="cell:cell=6")
