"""The rules of Pandemic, compiled: legal actions, actions, chance outcomes and random play over ``s``.

Every kernel works in place on the flat array of ``layout`` with the board table of ``map``.
The turn (003 §1.5): up to 4 actions, then two player-card draws (chance; an epidemic is
resolved at once: the rate rises, the bottom infection card, a chance node, gets 3 cubes, the
infection discard goes back on top as a stack of its own), the hand limit, then as many
infection draws (chance) as the infection rate says.

Decks. Both decks are held in order, top first, with their public structure: the player deck's
piles (each with the epidemics it still holds) and the infection deck's groups (the original deck
and one stack per epidemic). A chance node's outcomes are what the players' knowledge allows: at a
player draw, the top pile's epidemic with probability e / n and every unseen city card alike
otherwise; at an infection draw, any card of the top group (the bottom group for an epidemic).
The real game draws the stored top card (``next_outcome``): the order was itself drawn uniformly
at set-up (or given by a set-up file), so that is a draw by those probabilities. Applying any
other possible outcome swaps that card into place inside its pile or group, so the structure
stays true. A group placed on top by an epidemic is unordered until a determinization orders it;
its draws are sampled (``next_outcome`` returns -1).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels import rand_below
from .layout import (
    A_BUILD, A_BUILD_MOVE, A_CHARTER, A_CURE, A_DIRECT, A_DISCARD, A_DISPATCH, A_DRIVE, A_GIVE, A_OPS_MOVE,
    A_PASS, A_SHUTTLE, A_TAKE, A_TREAT, ACTIONS_LEFT, ACTIONS_PER_TURN, B_COLOUR, B_DEGREE, B_NEIGHBOURS,
    CARDS_DRAWN, CUBES, CURE_CARDS, CURE_COLOUR, CURE_LEFT, CURED, DECIDER, DISPATCHER, DRAWS_LEFT, EPIDEMIC,
    EPIDEMICS_DRAWN, GROUP_ORDERED, GROUP_START, HAND, HAND_LIMIT, IBOT, IDECK, IDISCARD,
    INFECT_LEFT, INFECTION_RATE_OFFICIAL, INFECTION_RATE_PAPER, ITOP, LOSS, LOSS_CUBES, LOSS_DECK, LOSS_OUTBREAKS,
    MAX_CUBES_PER_CITY, MAX_OUTBREAKS, MAX_STATIONS, MEDIC, NGROUPS, NHAND, NPILES, NUM_CITIES,
    NUM_COLOURS, NUM_SEATS, OPERATIONS_EXPERT, OPS_MOVED, OUTBREAKS, PAWN, PDECK, PDISCARD, PEND, PH_ACTIONS,
    PH_CURE_DISCARD, PH_DRAW, PH_EPIDEMIC, PH_INFECT, PH_LIMIT_DISCARD, PH_OVER, PHASE, PILE_END, PLAYER,
    PLAYER_DECK_MAX, PTOP, QUARANTINE_SPECIALIST, RATE_TRACK, RESEARCHER, RESULT, RESUME, ROLE, SCIENTIST, STATION, SUPPLY,
    TURN,
)

# Every rule but those that make arrays (``infect``, ``resample``) or call them (``apply_chance``,
# ``chance_checked``, ``settle``) is compiled without the runtime's reference counting (numba's ``_nrt``, as
# Hearth's rules and ``macro``'s lean kernels; a lean kernel compiles its callees lean too): counting references
# to s and the board at every call of every helper is a large share of a compiled simulation.
_LEAN = dict(cache=True, nogil=True, _nrt=False)
_RATE_OFFICIAL = np.array(INFECTION_RATE_OFFICIAL, dtype=np.int32)
_RATE_PAPER = np.array(INFECTION_RATE_PAPER, dtype=np.int32)


# ---- small queries ----------------------------------------------------------------------------------
@njit(**_LEAN)
def infection_rate(s):
    """Infection cards drawn a turn at the current position of the rate track (003 §1.5)."""
    track = _RATE_PAPER if s[RATE_TRACK] else _RATE_OFFICIAL
    return track[min(s[EPIDEMICS_DRAWN], len(track) - 1)]


@njit(**_LEAN)
def cure_cards(s, seat):
    """Cards of one colour seat needs for a cure: 4 for the Scientist, 5 otherwise (003 §1.3)."""
    return 4 if s[ROLE + seat] == SCIENTIST else CURE_CARDS


@njit(**_LEAN)
def colour_count(s, board, seat, colour):
    n = 0
    for c in range(NUM_CITIES):
        if s[HAND + seat * NUM_CITIES + c] and board[c, B_COLOUR] == colour:
            n += 1
    return n


@njit(**_LEAN)
def stations_built(s):
    n = 0
    for c in range(NUM_CITIES):
        n += s[STATION + c]
    return n


@njit(**_LEAN)
def eradicated(s, colour):
    return s[CURED + colour] == 1 and s[SUPPLY + colour] == 24


@njit(**_LEAN)
def seat_with_role(s, role):
    for q in range(s[NUM_SEATS]):
        if s[ROLE + q] == role:
            return q
    return -1


@njit(**_LEAN)
def adjacent(board, a, b):
    for i in range(board[a, B_DEGREE]):
        if board[a, B_NEIGHBOURS + i] == b:
            return True
    return False


# ---- cubes --------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _protected(s, board, city, colour):
    """Official roles: no cube of a cured disease goes where the Medic is; none at all where the Quarantine
    Specialist is or next to it."""
    medic = seat_with_role(s, MEDIC)
    if medic >= 0 and s[PAWN + medic] == city and s[CURED + colour]:
        return True
    qs = seat_with_role(s, QUARANTINE_SPECIALIST)
    if qs >= 0:
        where = s[PAWN + qs]
        if where == city or adjacent(board, where, city):
            return True
    return False


@njit(**_LEAN)
def _lose(s, cause):
    s[RESULT] = -1
    s[LOSS] = cause
    s[PHASE] = PH_OVER


@njit(cache=True, nogil=True)
def infect(s, board, city, colour, count):
    """Place ``count`` cubes of ``colour`` on ``city`` (003 §1.1), outbreaking when a 4th would go there:
    one cube on every neighbour, chained, each city at most once per chain (official rule). Sets the loss by
    outbreaks (the 8th) or by an empty supply at once."""
    outbroke = np.zeros(NUM_CITIES, dtype=np.bool_)
    todo = np.empty(NUM_CITIES * 8 + count, dtype=np.int32)  # pending placements (cities), a stack
    n = 0
    for _ in range(count):
        todo[n] = city
        n += 1
    while n > 0 and s[RESULT] == 0:
        n -= 1
        c = todo[n]
        if _protected(s, board, c, colour):
            continue
        k = CUBES + c * NUM_COLOURS + colour
        if s[k] < MAX_CUBES_PER_CITY:
            if s[SUPPLY + colour] == 0:
                _lose(s, LOSS_CUBES)
                return
            s[k] += 1
            s[SUPPLY + colour] -= 1
        elif not outbroke[c]:
            outbroke[c] = True
            s[OUTBREAKS] += 1
            if s[OUTBREAKS] >= MAX_OUTBREAKS:
                _lose(s, LOSS_OUTBREAKS)
                return
            for i in range(board[c, B_DEGREE]):
                todo[n] = board[c, B_NEIGHBOURS + i]
                n += 1


@njit(**_LEAN)
def _remove_cubes(s, city, colour, count):
    k = CUBES + city * NUM_COLOURS + colour
    m = min(count, s[k])
    s[k] -= m
    s[SUPPLY + colour] += m


@njit(**_LEAN)
def _medic_sweep(s, seat):
    """The Medic's passive (official): cubes of cured diseases leave the Medic's city."""
    if s[ROLE + seat] == MEDIC:
        for k in range(NUM_COLOURS):
            if s[CURED + k]:
                _remove_cubes(s, s[PAWN + seat], k, MAX_CUBES_PER_CITY)


# ---- cards -------------------------------------------------------------------------------------------
@njit(**_LEAN)
def _discard(s, seat, card):
    s[HAND + seat * NUM_CITIES + card] = 0
    s[NHAND + seat] -= 1
    s[PDISCARD + card] = 1


@njit(**_LEAN)
def _pass_card(s, giver, receiver, card):
    """Share knowledge: ``card`` goes from giver to receiver; returns the receiver if now over the hand limit,
    else -1."""
    s[HAND + giver * NUM_CITIES + card] = 0
    s[NHAND + giver] -= 1
    s[HAND + receiver * NUM_CITIES + card] = 1
    s[NHAND + receiver] += 1
    return receiver if s[NHAND + receiver] > HAND_LIMIT else -1


@njit(**_LEAN)
def _move_pawn(s, seat, city):
    s[PAWN + seat] = city
    _medic_sweep(s, seat)


@njit(**_LEAN)
def _top_pile(s):
    for k in range(s[NPILES]):
        if s[PILE_END + k] > s[PTOP]:
            return k
    return -1


@njit(**_LEAN)
def _epidemics_in(s, lo, hi):
    e = 0
    for i in range(lo, hi):
        e += s[PDECK + i] == EPIDEMIC
    return e


@njit(**_LEAN)
def _group_end(s, g):
    return s[GROUP_START + g + 1] if g + 1 < s[NGROUPS] else s[IBOT]


@njit(**_LEAN)
def _infection_group(s):
    """(start, end, ordered) of the group the next infection card comes from: the top group, or the bottom
    group at an epidemic's infect step."""
    g = s[NGROUPS] - 1 if s[PHASE] == PH_EPIDEMIC else 0
    return s[GROUP_START + g], _group_end(s, g), s[GROUP_ORDERED + g]


@njit(**_LEAN)
def _refill_infection_deck(s):
    """An empty infection deck takes its discard pile back as one unordered group (a DECISION: the rules
    never let it run out in a normal game)."""
    if s[ITOP] < s[IBOT]:
        return
    _restack_discard(s)


@njit(**_LEAN)
def _restack_discard(s):
    """Intensify (003 §1.5): the infection discard goes face down on top of the deck as a group of its own.
    The deck is first packed against the end of IDECK so the group fits above it."""
    length = s[IBOT] - s[ITOP]
    shift = NUM_CITIES - s[IBOT]
    if shift > 0:
        for i in range(s[IBOT] - 1, s[ITOP] - 1, -1):
            s[IDECK + i + shift] = s[IDECK + i]
        for g in range(s[NGROUPS]):
            s[GROUP_START + g] += shift
        s[ITOP] += shift
        s[IBOT] = NUM_CITIES
    d = 0
    for c in range(NUM_CITIES):
        d += s[IDISCARD + c]
    if d == 0:
        return
    top = NUM_CITIES - length - d
    i = top
    for c in range(NUM_CITIES):
        if s[IDISCARD + c]:
            s[IDECK + i] = c
            s[IDISCARD + c] = 0
            i += 1
    if length == 0:
        s[NGROUPS] = 0
    for g in range(s[NGROUPS], 0, -1):
        s[GROUP_START + g] = s[GROUP_START + g - 1]
        s[GROUP_ORDERED + g] = s[GROUP_ORDERED + g - 1]
    s[GROUP_START] = top
    s[GROUP_ORDERED] = 0
    s[NGROUPS] += 1
    s[ITOP] = top


@njit(**_LEAN)
def draw_infection_card(s, city, bottom):
    """Remove ``city`` from the top (or bottom) group, swapping it into the drawn position first."""
    start, end, _ = _infection_group(s)
    pos = -1
    for i in range(start, end):
        if s[IDECK + i] == city:
            pos = i
    at = end - 1 if bottom else start
    s[IDECK + pos], s[IDECK + at] = s[IDECK + at], s[IDECK + pos]
    if bottom:
        s[IBOT] -= 1
        if s[GROUP_START + s[NGROUPS] - 1] == s[IBOT]:
            s[NGROUPS] -= 1
    else:
        s[ITOP] += 1
        if s[ITOP] == _group_end(s, 0):
            for g in range(s[NGROUPS] - 1):
                s[GROUP_START + g] = s[GROUP_START + g + 1]
                s[GROUP_ORDERED + g] = s[GROUP_ORDERED + g + 1]
            s[NGROUPS] -= 1
        else:
            s[GROUP_START] = s[ITOP]
    s[IDISCARD + city] = 1


# ---- the turn's flow ----------------------------------------------------------------------------------
@njit(**_LEAN)
def _end_actions(s):
    """Go to the player-card draw; fewer cards than the draw needs is the loss by the player deck (003 §1.6)."""
    s[ACTIONS_LEFT] = 0
    if s[PEND] - s[PTOP] < CARDS_DRAWN:
        _lose(s, LOSS_DECK)
        return
    s[PHASE] = PH_DRAW
    s[DRAWS_LEFT] = CARDS_DRAWN


@njit(**_LEAN)
def _start_infection(s):
    s[PHASE] = PH_INFECT
    s[INFECT_LEFT] = infection_rate(s)
    s[DECIDER] = s[PLAYER]
    _refill_infection_deck(s)


@njit(**_LEAN)
def _after_draws(s):
    p = s[PLAYER]
    if s[NHAND + p] > HAND_LIMIT:
        s[PHASE] = PH_LIMIT_DISCARD
        s[DECIDER] = p
        s[RESUME] = PH_INFECT
    else:
        _start_infection(s)


@njit(**_LEAN)
def _next_turn(s):
    p = (s[PLAYER] + 1) % s[NUM_SEATS]
    s[PLAYER] = p
    s[DECIDER] = p
    s[TURN] += 1
    s[ACTIONS_LEFT] = ACTIONS_PER_TURN
    s[OPS_MOVED] = 0
    s[PHASE] = PH_ACTIONS


@njit(**_LEAN)
def _resume(s):
    """Back from a hand-limit discard to where the turn was."""
    r = s[RESUME]
    if r == PH_ACTIONS:
        s[PHASE] = PH_ACTIONS
        s[DECIDER] = s[PLAYER]
    elif r == PH_DRAW:
        s[DECIDER] = s[PLAYER]
        _end_actions(s)
    else:
        _start_infection(s)


@njit(**_LEAN)
def _action_done(s, over_limit):
    """Count one action; a seat over the hand limit (after a share) discards before anything else."""
    s[ACTIONS_LEFT] -= 1
    if s[PHASE] == PH_OVER:
        return
    if over_limit >= 0:
        s[PHASE] = PH_LIMIT_DISCARD
        s[DECIDER] = over_limit
        s[RESUME] = PH_ACTIONS if s[ACTIONS_LEFT] > 0 else PH_DRAW
    elif s[ACTIONS_LEFT] == 0:
        _end_actions(s)
    else:
        s[PHASE] = PH_ACTIONS
        s[DECIDER] = s[PLAYER]


@njit(**_LEAN)
def _complete_cure(s, colour):
    s[CURED + colour] = 1
    medic = seat_with_role(s, MEDIC)
    if medic >= 0:
        _medic_sweep(s, medic)
    won = True
    for k in range(NUM_COLOURS):
        won = won and s[CURED + k] == 1
    if won:
        s[RESULT] = 1
        s[PHASE] = PH_OVER


# ---- legal actions ------------------------------------------------------------------------------------
@njit(**_LEAN)
def _seat_movement(s, board, p, buf, n):
    """Drive, direct, charter and shuttle for seat p's own pawn."""
    here = s[PAWN + p]
    hand = HAND + p * NUM_CITIES
    for i in range(board[here, B_DEGREE]):
        buf[n] = A_DRIVE + board[here, B_NEIGHBOURS + i]
        n += 1
    for c in range(NUM_CITIES):
        if s[hand + c] and c != here:
            buf[n] = A_DIRECT + c
            n += 1
    if s[hand + here]:
        for c in range(NUM_CITIES):
            if c != here:
                buf[n] = A_CHARTER + c
                n += 1
    if s[STATION + here]:
        for c in range(NUM_CITIES):
            if s[STATION + c] and c != here:
                buf[n] = A_SHUTTLE + c
                n += 1
    if s[ROLE + p] == OPERATIONS_EXPERT and s[STATION + here] and s[OPS_MOVED] == 0 and s[NHAND + p] > 0:
        for d in range(NUM_CITIES):
            if d != here:
                for c in range(NUM_CITIES):
                    if s[hand + c]:
                        buf[n] = A_OPS_MOVE + d * NUM_CITIES + c
                        n += 1
    return n


@njit(**_LEAN)
def _dispatch(s, board, p, buf, n):
    """The Dispatcher's moves of other pawns (as if its own, with the Dispatcher's cards) and of any pawn to a
    city holding another pawn (official rules)."""
    hand = HAND + p * NUM_CITIES
    seats = s[NUM_SEATS]
    for q in range(seats):
        where = s[PAWN + q]
        base = A_DISPATCH + q * 5 * NUM_CITIES
        if q != p:
            for i in range(board[where, B_DEGREE]):
                buf[n] = base + board[where, B_NEIGHBOURS + i]
                n += 1
            for c in range(NUM_CITIES):
                if s[hand + c] and c != where:
                    buf[n] = base + NUM_CITIES + c
                    n += 1
            if s[hand + where]:
                for c in range(NUM_CITIES):
                    if c != where:
                        buf[n] = base + 2 * NUM_CITIES + c
                        n += 1
            if s[STATION + where]:
                for c in range(NUM_CITIES):
                    if s[STATION + c] and c != where:
                        buf[n] = base + 3 * NUM_CITIES + c
                        n += 1
        for c in range(NUM_CITIES):
            if c == where:
                continue
            other = False
            for r in range(seats):
                other = other or (r != q and s[PAWN + r] == c)
            if other:
                buf[n] = base + 4 * NUM_CITIES + c
                n += 1
    return n


@njit(**_LEAN)
def legal_actions(s, board, buf):
    """Write the legal action ids, increasing, to the front of ``buf``; return how many (0 off decisions)."""
    ph = s[PHASE]
    n = 0
    if ph == PH_CURE_DISCARD or ph == PH_LIMIT_DISCARD:
        q = s[DECIDER]
        for c in range(NUM_CITIES):
            if s[HAND + q * NUM_CITIES + c] and (ph == PH_LIMIT_DISCARD or board[c, B_COLOUR] == s[CURE_COLOUR]):
                buf[n] = A_DISCARD + c
                n += 1
        return n
    if ph != PH_ACTIONS:
        return 0
    p = s[PLAYER]
    here = s[PAWN + p]
    hand = HAND + p * NUM_CITIES
    role = s[ROLE + p]
    n = _seat_movement(s, board, p, buf, n)
    for k in range(NUM_COLOURS):
        if s[CUBES + here * NUM_COLOURS + k] > 0:
            buf[n] = A_TREAT + k
            n += 1
    if s[STATION + here] == 0 and (role == OPERATIONS_EXPERT or s[hand + here]):
        if stations_built(s) < MAX_STATIONS:
            buf[n] = A_BUILD
            n += 1
        else:
            for c in range(NUM_CITIES):
                if s[STATION + c]:
                    buf[n] = A_BUILD_MOVE + c
                    n += 1
    seats = s[NUM_SEATS]
    for q in range(seats):  # give
        if q != p and s[PAWN + q] == here:
            for c in range(NUM_CITIES):
                if s[hand + c] and (c == here or role == RESEARCHER):
                    buf[n] = A_GIVE + q * NUM_CITIES + c
                    n += 1
    for q in range(seats):  # take
        if q != p and s[PAWN + q] == here:
            for c in range(NUM_CITIES):
                if s[HAND + q * NUM_CITIES + c] and (c == here or s[ROLE + q] == RESEARCHER):
                    buf[n] = A_TAKE + q * NUM_CITIES + c
                    n += 1
    if s[STATION + here]:
        for k in range(NUM_COLOURS):
            if s[CURED + k] == 0 and colour_count(s, board, p, k) >= cure_cards(s, p):
                buf[n] = A_CURE + k
                n += 1
    buf[n] = A_PASS
    n += 1
    if role == DISPATCHER:
        n = _dispatch(s, board, p, buf, n)
    return n


# ---- actions ---------------------------------------------------------------------------------------------
@njit(**_LEAN)
def apply_action(s, board, a):
    """Play the legal decision ``a`` in place (``apply_checked`` checks legality first)."""
    ph = s[PHASE]
    if ph == PH_CURE_DISCARD:
        _discard(s, s[PLAYER], a - A_DISCARD)
        s[CURE_LEFT] -= 1
        if s[CURE_LEFT] == 0:
            _complete_cure(s, s[CURE_COLOUR])
            _action_done(s, -1)
        return
    if ph == PH_LIMIT_DISCARD:
        q = s[DECIDER]
        _discard(s, q, a - A_DISCARD)
        if s[NHAND + q] <= HAND_LIMIT:
            _resume(s)
        return
    p = s[PLAYER]
    here = s[PAWN + p]
    over = -1
    if a < A_DIRECT:
        _move_pawn(s, p, a - A_DRIVE)
    elif a < A_CHARTER:
        _discard(s, p, a - A_DIRECT)
        _move_pawn(s, p, a - A_DIRECT)
    elif a < A_SHUTTLE:
        _discard(s, p, here)
        _move_pawn(s, p, a - A_CHARTER)
    elif a < A_OPS_MOVE:
        _move_pawn(s, p, a - A_SHUTTLE)
    elif a < A_TREAT:
        d = (a - A_OPS_MOVE) // NUM_CITIES
        c = (a - A_OPS_MOVE) % NUM_CITIES
        _discard(s, p, c)
        s[OPS_MOVED] = 1
        _move_pawn(s, p, d)
    elif a < A_BUILD:
        k = a - A_TREAT
        whole = s[ROLE + p] == MEDIC or s[CURED + k] == 1
        _remove_cubes(s, here, k, MAX_CUBES_PER_CITY if whole else 1)
    elif a < A_GIVE:
        if s[ROLE + p] != OPERATIONS_EXPERT:
            _discard(s, p, here)
        if a >= A_BUILD_MOVE:
            s[STATION + a - A_BUILD_MOVE] = 0
        s[STATION + here] = 1
    elif a < A_TAKE:
        q = (a - A_GIVE) // NUM_CITIES
        over = _pass_card(s, p, q, (a - A_GIVE) % NUM_CITIES)
    elif a < A_CURE:
        q = (a - A_TAKE) // NUM_CITIES
        over = _pass_card(s, q, p, (a - A_TAKE) % NUM_CITIES)
    elif a < A_PASS:
        k = a - A_CURE
        need = cure_cards(s, p)
        if colour_count(s, board, p, k) == need:
            for c in range(NUM_CITIES):
                if s[HAND + p * NUM_CITIES + c] and board[c, B_COLOUR] == k:
                    _discard(s, p, c)
            _complete_cure(s, k)
        else:  # more cards of the colour than needed: the player chooses which to discard
            s[PHASE] = PH_CURE_DISCARD
            s[CURE_COLOUR] = k
            s[CURE_LEFT] = need
            return
    elif a == A_PASS:
        _end_actions(s)
        return
    else:  # dispatch
        rest = a - A_DISPATCH
        q = rest // (5 * NUM_CITIES)
        mode = (rest // NUM_CITIES) % 5
        c = rest % NUM_CITIES
        if mode == 1:
            _discard(s, p, c)
        elif mode == 2:
            _discard(s, p, s[PAWN + q])
        _move_pawn(s, q, c)
    _action_done(s, over)


@njit(**_LEAN)
def apply_checked(s, board, a, buf, n):
    """Play ``a`` if it is among the legal ids (``n`` of them in ``buf``, or -1 = not listed yet); return the
    number of legal ids of the new state (listed in ``buf``), or -1 with ``s`` unchanged when ``a`` is illegal."""
    if n < 0:
        n = legal_actions(s, board, buf)
    found = False
    for i in range(n):
        if buf[i] == a:
            found = True
            break
    if not found:
        return -1
    apply_action(s, board, a)
    return legal_actions(s, board, buf)


# ---- chance ----------------------------------------------------------------------------------------------
@njit(**_LEAN)
def chance_outcomes(s, board, ids, probs):
    """Write this chance node's outcomes and probabilities (see the module docstring); return how many."""
    ph = s[PHASE]
    n = 0
    if ph == PH_DRAW:
        k = _top_pile(s)
        lo, hi = s[PTOP], s[PILE_END + k]
        e = _epidemics_in(s, lo, hi)
        cities = 0
        for i in range(s[PTOP], s[PEND]):
            cities += s[PDECK + i] != EPIDEMIC
        size = hi - lo
        if cities > 0 and size > e:
            p_city = (size - e) / size / cities
            seen = np.int64(0)  # a bit per city
            for i in range(s[PTOP], s[PEND]):
                if s[PDECK + i] != EPIDEMIC:
                    seen |= np.int64(1) << s[PDECK + i]
            for c in range(NUM_CITIES):
                if (seen >> c) & 1:
                    ids[n] = c
                    probs[n] = p_city
                    n += 1
        if e > 0:
            ids[n] = EPIDEMIC
            probs[n] = e / size
            n += 1
        return n
    if ph == PH_EPIDEMIC or ph == PH_INFECT:
        start, end, _ = _infection_group(s)
        seen = np.int64(0)
        for i in range(start, end):
            seen |= np.int64(1) << s[IDECK + i]
        for c in range(NUM_CITIES):
            if (seen >> c) & 1:
                ids[n] = c
                probs[n] = 1.0 / (end - start)
                n += 1
    return n


@njit(**_LEAN)
def next_outcome(s):
    """The outcome the stored order gives next, or -1 when the card comes from an unordered group."""
    ph = s[PHASE]
    if ph == PH_DRAW:
        return s[PDECK + s[PTOP]]
    start, end, ordered = _infection_group(s)
    if not ordered:
        return -1
    return s[IDECK + (end - 1 if ph == PH_EPIDEMIC else start)]


@njit(**_LEAN)
def _draw_player_card(s, card):
    """Move ``card`` to the top of the player deck inside the structure, then draw it."""
    top = s[PTOP]
    if s[PDECK + top] != card:
        k = _top_pile(s)
        hi = s[PILE_END + k]
        if card == EPIDEMIC:
            for i in range(top + 1, hi):
                if s[PDECK + i] == EPIDEMIC:
                    s[PDECK + i], s[PDECK + top] = s[PDECK + top], s[PDECK + i]
                    break
        else:
            pos = top
            for i in range(top, s[PEND]):
                if s[PDECK + i] == card:
                    pos = i
            if s[PDECK + top] == EPIDEMIC and pos >= hi:  # keep the epidemic inside its pile
                for i in range(top + 1, hi):
                    if s[PDECK + i] != EPIDEMIC:
                        s[PDECK + i], s[PDECK + top] = s[PDECK + top], s[PDECK + i]
                        break
            s[PDECK + pos], s[PDECK + top] = s[PDECK + top], s[PDECK + pos]
    s[PTOP] = top + 1


@njit(cache=True, nogil=True)
def apply_chance(s, board, outcome):
    """Apply a possible outcome of this chance node (``chance_outcomes``) in place."""
    ph = s[PHASE]
    if ph == PH_DRAW:
        _draw_player_card(s, outcome)
        s[DRAWS_LEFT] -= 1
        if outcome == EPIDEMIC:  # 003 §1.5: increase, infect, intensify
            s[EPIDEMICS_DRAWN] += 1
            s[PHASE] = PH_EPIDEMIC
            if s[ITOP] == s[IBOT]:
                _refill_infection_deck(s)
            return
        p = s[PLAYER]
        s[HAND + p * NUM_CITIES + outcome] = 1
        s[NHAND + p] += 1
        if s[DRAWS_LEFT] == 0:
            _after_draws(s)
        return
    colour = board[outcome, B_COLOUR]
    if ph == PH_EPIDEMIC:
        draw_infection_card(s, outcome, True)
        if not eradicated(s, colour):
            infect(s, board, outcome, colour, MAX_CUBES_PER_CITY)
        if s[RESULT] != 0:
            return
        _restack_discard(s)
        if s[DRAWS_LEFT] > 0:
            s[PHASE] = PH_DRAW
        else:
            _after_draws(s)
        return
    draw_infection_card(s, outcome, False)
    if not eradicated(s, colour):
        infect(s, board, outcome, colour, 1)
    if s[RESULT] != 0:
        return
    s[INFECT_LEFT] -= 1
    if s[INFECT_LEFT] == 0:
        _next_turn(s)
    elif s[ITOP] == s[IBOT]:
        _refill_infection_deck(s)


@njit(cache=True, nogil=True)
def chance_checked(s, board, outcome, ids, probs):
    """Apply ``outcome`` if it is possible here; False (``s`` unchanged) otherwise."""
    n = chance_outcomes(s, board, ids, probs)
    for i in range(n):
        if ids[i] == outcome:
            apply_chance(s, board, outcome)
            return True
    return False


@njit(**_LEAN)
def sample_outcome(s, board, ids, probs, stream):
    """The stored next card, or (from an unordered group) a uniform one drawn from ``stream``."""
    o = next_outcome(s)
    if o >= 0:
        return o
    n = chance_outcomes(s, board, ids, probs)
    return ids[rand_below(stream, n)]


@njit(cache=True, nogil=True)
def settle(s, board, ids, probs, stream):
    """Resolve chance nodes in place until a decision or the end."""
    while s[PHASE] == PH_DRAW or s[PHASE] == PH_EPIDEMIC or s[PHASE] == PH_INFECT:
        apply_chance(s, board, sample_outcome(s, board, ids, probs, stream))


@njit(**_LEAN)
def _shuffle(a, lo, hi, u, k):
    """Fisher-Yates shuffle of a[lo:hi] with the uniforms u[k:]; returns the next unused index of u."""
    for i in range(hi - 1, lo, -1):
        j = lo + int(u[k] * (i - lo + 1))
        k += 1
        a[i], a[j] = a[j], a[i]
    return k


RESAMPLE_DRAWS = 2 * PLAYER_DECK_MAX + NUM_CITIES  # uniforms ``resample`` may use (at most 47 + 53 + 47)


@njit(cache=True, nogil=True)
def resample(s, u):
    """Structured determinization (003 §1.7) in place from the uniforms ``u`` (``RESAMPLE_DRAWS`` = 2 x 54 + 48):
    the unseen city cards are dealt afresh into the player-deck piles, each keeping its size and epidemics,
    each pile shuffled; every infection-deck group is shuffled on its own and becomes ordered."""
    k = 0
    lo, hi = s[PTOP], s[PEND]
    pool = np.empty(hi - lo, dtype=np.int32)
    m = 0
    for i in range(lo, hi):
        if s[PDECK + i] != EPIDEMIC:
            pool[m] = s[PDECK + i]
            m += 1
    k = _shuffle(pool, 0, m, u, k)
    used = 0
    start = lo
    for p in range(s[NPILES]):
        end = s[PILE_END + p]
        if end <= lo:
            continue
        e = _epidemics_in(s, start, end)
        for i in range(start, end - e):
            s[PDECK + i] = pool[used]
            used += 1
        for i in range(end - e, end):
            s[PDECK + i] = EPIDEMIC
        k = _shuffle(s, PDECK + start, PDECK + end, u, k)
        start = end
    for g in range(s[NGROUPS]):
        k = _shuffle(s, IDECK + s[GROUP_START + g], IDECK + _group_end(s, g), u, k)
        s[GROUP_ORDERED + g] = 1
