"""The forward-model protocol: the one interface every cardboard game state offers.

Search, networks, trainers and tournaments talk to games only through this
protocol, so that each of them runs unchanged on every game of the suite. A game
author needs only this page and ``cardboard.api`` (which re-exports everything
named here, plus the registration calls).

A state is mutable and cheap to copy. Its public names:

=====================  ==========================================================
``current_player``     int: the player to decide now, or ``CHANCE`` when chance
                       acts, or ``TERMINAL`` once the game is over.
``is_terminal()``      True once the game is over.
``returns()``          one float per player in [``min_return``, ``max_return``]
                       (zero-sum games: +1 / -1 / 0); zeros before the end.
``legal_actions()``    the legal action ids (ints in ``range(num_actions)``), in
                       increasing order, never empty at a decision node. High-
                       performance engines return a read-only view that is
                       valid until the next ``apply``: copy it if you keep it.
``action_mask()``      bool array of length ``num_actions``, True = legal.
``apply(action)``      play an action in place. An illegal id raises
                       ``IllegalActionError`` and leaves the state unchanged.
                       At a chance node, ``action`` is a chance outcome.
``clone()``            an independent copy (a few flat array copies).
``chance_outcomes()``  at a chance node: ``[(outcome, probability), ...]``.
                       Elsewhere raises ``ProtocolError``.
``determinize(p, rng)`` a full state sampled uniformly from what player ``p``
                       cannot see, consistent with all ``p`` has seen (hands,
                       deck contents but not order, revealed cards; with
                       hidden decklists, see below, not the opponent's
                       deck contents).
``observation(p, perfect=False)`` a float32 vector of the game's
                       ``observation_shape``: what ``p`` may see, or with
                       ``perfect=True`` the perfect-information view.
``action_key(a)``      a hashable soft key: actions that mean the same thing in
                       different determinizations compare equal ("play the
                       card named X on square s", not "play hand slot 3").
                       A game whose keys are small ints declares
                       ``info.num_action_keys`` (every legal action's key is
                       in ``range(num_action_keys)``): search then indexes
                       its statistics by the key directly.
``action_to_string(a)`` human-readable action.
``heuristic(p)``       a cheap game-specific evaluation for player ``p`` in
                       [-1, 1] (+1/-1 at decided terminals): scripted
                       baselines, pruning and leaf evaluation use it.
``turn``               index of the current player turn (see the rules below);
                       rollout depths are counted in turns.
``num_players``, ``num_actions``  as in ``info``.
``info``               the game's ``GameInfo``: its properties as data.
=====================  ==========================================================

A ``Game`` (the static object a registered factory returns) has ``info``,
``new_state(seed)`` (a ``numpy.random.Generator``, an int or None),
``render_ansi(state, perspective=None)`` and ``render_rgb(state)``.

Rules search relies on
----------------------
Search and the evaluation tools assume these; the conformance suite
(``tests/test_conformance.py``) checks each of them on every registered game.

1. ``determinize(p, rng)`` returns a NEW state, independent of the source
   (applying moves to it never changes the source, and vice versa), even in a
   perfect-information game (return ``self.clone()`` there). It leaves the
   source unchanged, keeps ``p``'s observation, ``current_player``, ``turn``
   and, when ``p`` acts, ``p``'s legal actions and their keys. A player outside
   ``range(num_players)`` raises ``ValueError`` (``InvalidParameterError`` is
   one). ``protocol.determinize`` calls it with a guard: a game that returns
   the live state gets a ``ProtocolError`` naming the game instead of a search
   that silently plays the real game to its end.
2. Chance outcome ids are non-negative ints, distinct within one node; they
   need not lie in ``range(num_actions)`` (they are never agents' actions).
   Probabilities are positive and sum to 1. Search keys a chance node's
   children by outcome id, so the same id must mean the same outcome at the
   same node of the game.
3. ``turn`` starts at 0 and never decreases. Two consecutive decisions by
   different players have different turns, unless the game declares
   ``info.reactions`` (a player may decide inside another's turn, as Fifth
   Aeon's blocking: such a decision keeps ``turn``). The same player deciding
   again after a chance node keeps its turn when the game's rules say the turn
   goes on (Hearth: a card drawn by a spell) and gets a new one when a new
   turn of the rules begins (Hearth: the next turn starts, then its draw).
   ``turn <= info.max_turns`` in every state.
4. ``legal_actions()`` is non-empty at every decision node, and
   ``action_mask()`` is all False at chance and terminal nodes.
5. ``returns()`` lie in [``min_return``, ``max_return``]; a zero-sum game's sum
   to 0; a cooperative game's are equal for every seat, and it is won when
   they reach ``max_return`` (the match tools' team win rate counts that).
6. The same seed gives the same ``new_state``; states survive ``copy.deepcopy``
   and ``pickle``.

Optional hooks
--------------
Fast paths and research knobs a state MAY offer, each by exactly the name and
signature in ``HOOKS`` (below). Search and the tools look them up by their
declared names only (``hook(state, name)``, which refuses an undeclared name;
the hottest loops read the name from ``HOOKS`` once), and the conformance
suite fails a state whose method names look like a hook but are not one (a
misspelt ``random_playouts`` would otherwise fall back to the slow path without
a word). Agents that need a hook (``prune=1``, ``cnb=1``, ``accuracy=a``) check
it against the game when they are built, with an ``InvalidParameterError``
naming the game and the knob. A hook that is a fast path must do exactly what
the slow path does, random draws included (``random_playout`` draws its stream
with ``kernels.seed_stream``; ``compiled_model``'s kernels are the methods they
name): seeded searches give the same trees either way.

A network reads ``observation(p)`` as one flat vector unless the game says what its parts are: the hook
``observation_structure()`` returns an ``envs.structure.ObservationStructure`` whose parts (``Planes``,
``Tokens``, ``Graph``, ``Attached``, ``Globals``) tile the vector exactly, each named, with its shape and
meaning; ``policies.trunks`` builds convolutions, set encoders, message passing and an MLP from it. It may also
map ranges of the action ids onto the parts (``ActionPairs``: one id per token slot x board square,
``ActionCells``: per square, ``ActionNodes``: per node of a graph), whose logits ``policies.heads`` then computes
from those elements. It is data: a game declaring it imports no torch.

Agents
------
An ``Agent`` has a ``name``, ``act(state, rng) -> action`` for
``state.current_player`` (using only what that player may know: its
observation or ``determinize``), and ``reset()``, called before every game so
that an agent that keeps memory between decisions (a search tree, a plan, a
batched network's cache) starts clean. An agent factory given to
``register_agent`` may take ``game`` (the ``Game``, with its ``info``) at
construction.

Hidden decklists
----------------
In a card game whose option hides the deck lists (Fifth Aeon's ``decklists="hidden"``) a player knows its own
list but not the opponent's: ``determinize(p, rng)`` deals the opponent's cards ``p`` has not seen (its unseen
hand cards and the deck positions ``p`` does not know, the same numbers) from a **deck model**, by default
uniformly over the cards the opponent may legally play (copy limits counted with the cards ``p`` has seen), and
keeps everything ``p`` has seen. The optional keyword ``determinize(p, rng, deck_model=M)`` takes another model: an
object with ``sample(seen, count, rng) -> list`` (``DeckModel``: ``count`` card ids for the opponent's unseen
cards, given ``seen``, a ``collections.Counter`` of the opponent's cards ``p`` has seen: the hook
``seen_cards(p)``); search's ``deckmodel=`` knob passes it (``cardboard.search.deck_models``: a predictor's deck, or
the oracle that reads the truth through ``hidden_cards(p)``). With open lists a deck model has nothing to guess and
is refused (``InvalidParameterError``). Rule 1 holds as it is; the card conservation the conformance suite checks
(``card_multiset``) covers only what may be known: with hidden lists a player's cards the other has not seen are
counted, not named, since ``determinize`` by the other deals them anew (the suite runs such option variants too).

Non-active players may have to decide inside another's turn (Fifth Aeon's
blocking): ``current_player`` simply names them, ``turn`` does not change, and
the game declares ``info.reactions = True``.

Rewards are ``returns()`` at terminal states; search maps them to [0, 1]
with ``GameInfo.min_return`` / ``max_return``.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Hashable, Protocol, runtime_checkable

import numpy as np

from .errors import InvalidParameterError, ProtocolError

CHANCE = -1
TERMINAL = -2


@dataclass(frozen=True)
class GameInfo:
    """A game's properties as data, so search can check them before it starts."""

    name: str
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    chance: str  # "none" | "setup" (only the initial shuffle) | "explicit" (chance nodes in play)
    information: str  # "perfect" | "imperfect"
    utility: str  # "zero_sum" | "general_sum" | "cooperative"
    min_return: float
    max_return: float
    max_turns: int
    num_action_keys: int | None = None  # when set, every legal action's key is an int in range(num_action_keys)
    # a player holds information some other player does not see (a hand); None: the same as information ==
    # "imperfect". A game whose only hidden information is shared by everyone (a deck's order) says False.
    private_information: bool | None = None
    reactions: bool = False  # a player may decide inside another player's turn (keeping ``turn``): rule 3

    def __post_init__(self) -> None:
        if self.private_information is None:
            object.__setattr__(self, "private_information", self.information == "imperfect")


@runtime_checkable
class GameState(Protocol):
    """Structural type of a forward-model state (see the module docstring)."""

    info: GameInfo

    @property
    def current_player(self) -> int: ...

    @property
    def turn(self) -> int: ...

    @property
    def num_players(self) -> int: ...

    @property
    def num_actions(self) -> int: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> np.ndarray: ...

    def legal_actions(self) -> np.ndarray: ...

    def action_mask(self) -> np.ndarray: ...

    def apply(self, action: int) -> None: ...

    def clone(self) -> "GameState": ...

    def chance_outcomes(self) -> list[tuple[int, float]]: ...

    def determinize(self, player: int, rng: np.random.Generator) -> "GameState": ...

    def observation(self, player: int, perfect: bool = False) -> np.ndarray: ...

    def action_key(self, action: int) -> Hashable: ...

    def action_to_string(self, action: int) -> str: ...

    def heuristic(self, player: int) -> float: ...


@runtime_checkable
class Game(Protocol):
    """A game's static data (cards, board) and its factory of initial states."""

    info: GameInfo

    def new_state(self, seed: int | np.random.Generator | None = None) -> GameState: ...

    def render_ansi(self, state: GameState, perspective: int | None = None) -> str: ...

    def render_rgb(self, state: GameState) -> np.ndarray: ...


@runtime_checkable
class Agent(Protocol):
    """Picks one legal action for ``state.current_player``; ``reset()`` is called before every game.

    Optional, called by the match runner (``evaluation.match.play_game``) when an agent has them:
    ``observe(state, action, seat)`` before every action is applied (chance outcomes and the other seats' moves
    too; ``seat`` is the agent's; the state must not be changed), and ``game_over(state, seat)`` with the final
    state. The human seat logs what its seat saw with them."""

    name: str

    def act(self, state: GameState, rng: np.random.Generator) -> int: ...

    def reset(self) -> None: ...


@runtime_checkable
class DeckModel(Protocol):
    """What ``determinize(p, rng, deck_model=M)`` deals the opponent's unseen cards from (hidden decklists)."""

    def sample(self, seen: Any, count: int, rng: np.random.Generator) -> list:
        """``count`` card ids for the opponent's cards ``p`` has not seen, given ``seen`` (a ``Counter`` of the
        opponent's card ids ``p`` has seen), in any order."""
        ...


# ---- optional hooks -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hook:
    """An optional state method (or, with ``keyword``, an optional keyword of a protocol method)."""

    name: str
    signature: str
    meaning: str
    keyword: str | None = None  # the hook is this keyword argument of the method ``name``

    def offered_by(self, state: Any) -> bool:
        """True when ``state`` offers this hook."""
        method = getattr(state, self.name, None)
        if method is None or not callable(method):
            return False
        if self.keyword is None:
            return True
        try:
            return self.keyword in inspect.signature(method).parameters
        except (TypeError, ValueError):
            return False


HOOKS: dict[str, Hook] = {h.name if h.keyword is None else h.keyword: h for h in (
    Hook("sample_chance", "sample_chance(rng) -> int",
         "one chance outcome drawn by the probabilities with rng (protocol.sample_chance uses it)"),
    Hook("random_playout", "random_playout(rng, max_turns=None) -> int",
         "random moves in place to the end, or for max_turns player turns, by the game's rollout policy "
         "(uniform unless the game documents another); returns the decisions made; search rollouts use it"),
    Hook("legal_action_keys", "legal_action_keys() -> ndarray",
         "action_key of every legal action, in order, in one call (int64 when info.num_action_keys is set)"),
    Hook("sensible_actions", "sensible_actions() -> ndarray",
         "the non-empty subset of the legal actions an expert move generator keeps (heuristic pruning; "
         "search agents' prune=1)"),
    Hook("chance_bucket", "chance_bucket(outcome) -> Hashable",
         "the bucket of a chance outcome for chance-node bucketing (search agents' cnb=1, with chance_samples)"),
    Hook("chance_samples", "chance_samples() -> int",
         "pre-samples per bucket at this chance node for chance-node bucketing (cnb=1)"),
    Hook("determinize", "determinize(player, rng, accuracy=a)",
         "the inference-accuracy knob (paper 001 3.6.1): worlds drawn from the TRUE state, each hidden card kept "
         "with probability a (search agents' accuracy=a)", keyword="accuracy"),
    Hook("determinize", "determinize(player, rng, deck_model=M)",
         "hidden decklists (a game option): the opponent's unseen cards dealt by the DeckModel M given "
         "seen_cards(player) instead of the game's uniform model; refused with open lists (search agents' "
         "deckmodel=)", keyword="deck_model"),
    Hook("seen_cards", "seen_cards(player) -> collections.Counter",
         "the opponent's cards player sees now, by card id (played, on the board, in the crypt, revealed): what a "
         "deck model is given"),
    Hook("hidden_cards", "hidden_cards(player) -> list",
         "the true card ids of the opponent's cards determinize(player) deals (reads the truth: the oracle deck "
         "model, deckmodel=oracle)"),
    Hook("state_key", "state_key() -> Hashable",
         "identifies the full state, hidden parts included: equal keys mean the same state (the conformance "
         "suite judges 'unchanged' and 'resampled' by it; without it, by pickle)"),
    Hook("card_multiset", "card_multiset() -> tuple",
         "every card in every zone, sorted: determinize must conserve it (checked by the conformance suite); with "
         "hidden decklists a player's cards the other has not seen are counted, not named"),
    Hook("played_card", "played_card(action) -> int",
         "the card id that decision action plays from the hand of the player to move, -1 for any other action "
         "(paper 001's turn-card-set targets: cardboard.evaluation.papers.p001_hearthstone.card_play_data)"),
    Hook("card_play_features", "card_play_features() -> encoder",
         "the card-play network input of this match-up (paper 001 Table 4.1; "
         "cardboard.evaluation.papers.p001_hearthstone.card_play): an encoder with K card columns, columns (their "
         "card ids), column_of (card id -> column, -1 none), deck_keys "
         "(the match-up), global_shape / hand_shape / board_shape, encode_batch(states, players, perfect) -> "
         "(global, hand, board) arrays, held(hand) -> bool [B, K] (the player holds the card), mana(global) -> "
         "int [B] (the player's mana)"),
    Hook("greedy_action", "greedy_action(rng, cards=None) -> int",
         "the game's greedy baseline's decision at this state, playing only the card ids in cards when given and "
         "not passing while one can be played (paper 001's CNN + greedy agent, "
         "cardboard.evaluation.papers.p001_hearthstone.card_play_agent)"),
    Hook("settle_chance", "settle_chance(rng) -> None",
         "sample chance outcomes by their probabilities, in place, until a decision node or the end"),
    Hook("evaluation", "evaluation(name) -> callable(state, player) -> float",
         "the game's own state evaluation called name, in [0, 1], higher is better (RHEA's fitness=NAME; "
         "pandemic: paper 003's f_od ... f_b and their w_ / p_ variants; lords_of_war: paper 002's heuristics "
         "h1 ... h11, search agents' prune=NAMES); an unknown name raises InvalidParameterError listing the names"),
    Hook("evaluations_after", "evaluations_after(actions, names, extrapolate, rng) -> ndarray",
         "float array [len(names), len(actions)]: evaluation(name)(after, mover) of the state after each legal "
         "action, for the player to move now; with extrapolate, after the mover's remaining decisions of the turn "
         "are played uniformly at random (drawn from rng): a compiled fast path of search.pruning's loop, whose "
         "values it must equal without extrapolate"),
    Hook("hlr_turn", "hlr_turn(scores, rng, tau_high, tau_low, chi) -> int",
         "play the rest of this turn by paper 001's multi-level rollout policy (Algorithm 5) given per-card-id "
         "scores of the player to move; returns the decisions made (search agents' hlr=PATH)"),
    Hook("complexity", "complexity() -> tuple[float, float, float, float]",
         "paper 000 2.7's board complexity Cx1 .. Cx4 seen by the player to move, raw (normalised by the "
         "experiment); Cx0, the number of legal actions, is generic (search agents' per-decision log, "
         "search.final.Decision)"),
    Hook("observation_structure", "observation_structure() -> ObservationStructure",
         "the named parts of observation(p)'s vector, tiling it exactly (envs.structure): board planes [C, H, W], "
         "sets of tokens [N, F] with a presence mask, per-node features over a fixed graph, flat globals; "
         "policies.trunks shapes a network by it (PolicyValueNet(info, structure=structure_of(game))), a game "
         "without it gets an MLP over the flat vector; optional action ranges (ActionPairs, ActionCells, "
         "ActionNodes) map action ids onto its squares, slots and nodes for the policy head (policies.heads)"),
    Hook("view", "view(perspective) -> View",
         "what perspective (a seat, or None: a spectator) sees, as plain data (envs.view: seats, card zones with "
         "name, cost and text, a grid or graph board, shared counters, the render_ansi text); cards it may not "
         "see are Card.unseen(); the browser page (cardboard serve) and the terminal seat draw it, a game without "
         "it gets its render_ansi text"),
    Hook("action_path", "action_path(action) -> tuple[str, ...]",
         "the menu path of a legal action, grouped as a player thinks (('move', 'station', 'Atlanta')); the last "
         "part names the move in its group; menus (envs.view.menu) group by it; default (action_to_string(a),)"),
    Hook("action_seen", "action_seen(action, perspective) -> str | None",
         "how perspective (a seat or None) sees action applied at this state, chance outcomes included, for the "
         "log of what happened; None when it sees nothing of it; must reveal nothing perspective may not see "
         "(envs.view.seen gives the default)"),
    Hook("compiled_model", "compiled_model() -> CompiledModel",
         "the state's flat array, the game's static table and numba kernels doing exactly what determinize, "
         "legal_actions, action_key, apply, random_playout, current_player, turn, returns and heuristic do "
         "(envs.compiled_model); search runs whole UCT, DUCT and (with determinize) ISMCTS iterations with them "
         "(search.compiled): UCB1, GameRollout to the end or for depth turns then the heuristic, chance nodes in "
         "the tree with the optional sample_chance (-1 - id: an outcome the state fixes, no uniform drawn), "
         "prune=1 with the optional sensible_actions, hard pruning with the optional evaluations_after; with the "
         "optional observation kernel (the observation written in place), "
         "network-guided UCT / ISMCTS (PUCT with a network's prior and value, depth 0, any leaves in flight) "
         "descends compiled and hands its leaves to the network as arrays (search.compiled_network); CNB, other "
         "selections, rollouts, samplers and evaluators stay in Python (models: lords_of_war, hearth, pandemic)"),
)}


def hook(state: Any, name: str) -> Callable[..., Any] | None:
    """``state``'s method for the declared optional hook ``name``, or None when the state does not offer it."""
    declared = HOOKS.get(name)
    if declared is None:
        raise ProtocolError(f"{name!r} is not a declared optional hook; declared: {', '.join(sorted(HOOKS))}")
    if declared.keyword is None:  # the hot path (search calls it every tree step): one attribute look-up
        return getattr(state, name, None)
    return getattr(state, declared.name) if declared.offered_by(state) else None


def require_hooks(game: Game | GameState, names: dict[str, tuple[str, ...]]) -> None:
    """Raise ``InvalidParameterError`` unless the states of ``game`` (a ``Game``, or one of its states) offer
    every hook an agent knob needs. ``names`` maps a knob as the user wrote it (``"prune=1"``) to its hooks."""
    if not any(names.values()):
        return
    probe = game.new_state(0) if hasattr(game, "new_state") else game
    for knob, needed in names.items():
        missing = [n for n in needed if not HOOKS[n].offered_by(probe)]
        if missing:
            raise InvalidParameterError(
                f"{knob}: game {game.info.name!r} does not support it (its states offer no "
                f"{' / '.join(HOOKS[n].signature for n in missing)})")


def determinize(state: GameState, player: int, rng: np.random.Generator, **knobs: Any) -> GameState:
    """``state.determinize(player, rng, **knobs)``, refusing a result that is the live state (rule 1)."""
    world = state.determinize(player, rng, **knobs)
    if world is state:
        raise ProtocolError(f"game {state.info.name!r}: determinize returned the live state, not a new one "
                            "(a perfect-information game returns self.clone())")
    return world


def sample_chance(state: GameState, rng: np.random.Generator) -> int:
    """Draw one chance outcome of ``state`` with the seeded ``rng`` (the state's own fast path if it has one)."""
    fast = hook(state, "sample_chance")
    if fast is not None:
        return fast(rng)
    outcomes = state.chance_outcomes()
    probs = np.fromiter((p for _, p in outcomes), dtype=float, count=len(outcomes))
    return outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]
