"""Fifth Aeon's turn and combat over a ``board.Match``.

The engine follows the game's own model (``shared/data/fifthaeon_rules.md``): player 0 goes first; a turn is
refresh and draw, Play1 (a resource, cards, enchantment changes, attackers), the defender's blocks, the attacker's
damage order for multi-blocked attackers, combat, Play2, the end of turn (Dusk, Serenity, Relentless, returns of
Deathless units, discard down to 8). What a mechanic does is in ``effects``, who a targeter picks in ``targeters``.

Choices (the mulligan, a discard, a replace, a search, the end-of-turn discard) are deferred as in the model:
the effect that asks for one goes on resolving, the choice waits in ``Match.choices``, and nothing else may be
done until it is made. Nothing is shuffled after set-up (the model's only randomness is the opening shuffle).
"""
from __future__ import annotations

from .board import BLOCK, ORDER, PLAY1, PLAY2, Match, Perm, refresh
from .constants import MAX_TURNS, OPENING_DRAW
from .effects import ask, deal_damage, draw, end_of_turn, fire_own, process_deaths, start_of_turn


def start(m: Match) -> None:
    """The opening draws, player 0's first turn start, then both mulligans (rules "Who goes first")."""
    for p in range(2):
        draw(m, p, OPENING_DRAW[p])
    begin_turn(m)
    for p in range(2):
        ask(m, p, "replace", "hand", 0, len(m.sides[p].hand))


def begin_turn(m: Match) -> None:
    """Refresh the turn player's units, draw, reset the resource play and energy, then start-of-turn effects."""
    p = m.turn_player
    m.phase = PLAY1
    m.attacked = False
    for u in m.board[p]:
        refresh(u)
    side = m.sides[p]
    draw(m, p)
    side.played_resource = False
    side.energy = side.max_energy
    start_of_turn(m, p)


def end_turn(m: Match) -> None:
    """End-of-turn effects, then the discard down to 8; the next turn starts once that choice is made."""
    p = m.turn_player
    end_of_turn(m, p)
    if m.winner >= 0:
        return
    m.then = "next_turn"
    ask(m, p, "discard", "trim", 0, 0)
    settle(m)


def settle(m: Match) -> None:
    """Run what waits for the choices to be made (the next turn)."""
    while not m.choices and m.then is not None and m.winner < 0:
        then, m.then = m.then, None
        if then == "next_turn":
            m.turn_player = 1 - m.turn_player
            m.turn += 1
            if m.turn >= MAX_TURNS:
                m.end(2)
                return
            begin_turn(m)


def pass_phase(m: Match) -> None:
    """PASS: Play1 with attackers goes to blocks (or straight to combat); otherwise the turn ends."""
    if m.phase == PLAY1 and any(u.attacking for u in m.board[m.turn_player]):
        m.attacked = True
        attackers = [u for u in m.board[m.turn_player] if u.attacking]
        defenders = m.units(1 - m.turn_player)
        if any(b.can_block(a) for b in defenders for a in attackers):
            m.phase = BLOCK
        else:
            resolve_combat(m)
    elif m.phase == BLOCK:
        start_damage_order(m)
    else:
        end_turn(m)


def start_damage_order(m: Match) -> None:
    """After blocks: the attacker orders the blockers of each attacker blocked by two or more units."""
    defenders = m.board[1 - m.turn_player]
    m.order = {}
    m.order_queue = []
    for a in m.board[m.turn_player]:
        if a.attacking:
            blockers = [b.uid for b in defenders if b.blocking == a.uid]
            if len(blockers) >= 2 and a.attack > 0:
                m.order_queue.append(a.uid)
                m.order[a.uid] = []
    if m.order_queue:
        m.phase = ORDER
    else:
        resolve_combat(m)


def order_next(m: Match, blocker_uid: int) -> None:
    """The attacker names the next blocker to take damage; the last one follows by itself."""
    a = m.order_queue[0]
    m.order[a].append(blocker_uid)
    left = [b.uid for b in m.board[1 - m.turn_player] if b.blocking == a and b.uid not in m.order[a]]
    if len(left) <= 1:
        m.order[a] += left
        m.order_queue.pop(0)
    if not m.order_queue:
        resolve_combat(m)


def resolve_combat(m: Match) -> None:
    """Combat (rules "Turn structure" 6; model ``game.ts`` ``resolveCombat``): each blocked attacker fights its
    blockers in damage order, giving each ``min(its life, damage left)`` (no trample; ``left`` starts at the
    attacker's attack when combat begins) and taking each blocker's full damage; both sides' damage is computed
    before either is dealt. A blocker with DamageOnBlock first deals its damage to the attacker. Lethal Strike
    fires for a unit whose opponent in a fight died (left the board; a unit turned to stone did not).

    As in the model the damage order is a fixed list that is always fought to its end:

    - an attacker turned into a Statue (Gorgon) keeps its uid and is followed: it fights the blockers left as the
      Statue (its abilities, its life), dealing them what is left of its original damage (the model's
      ``unit.ts`` ``transform`` changes the unit in place and ``fight`` is given the assigned damage);
    - an attacker gone part-way (dead) still deals the blockers left its remaining damage, without its on-damage
      abilities (they left play with it, ``unit.ts`` ``leaveBoard``), and each of them still fights it: the
      blocker is exhausted, its Lifesteal heals for its damage and its Lethal Strike fires (``unit.ts`` ``fight``
      / ``afterDamage``); the gone attacker takes nothing (``_fight_gone_attacker``);
    - a blocker that died before its own fight (its lordship went with an earlier blocker) still fights: it is
      given ``min(its life, damage left)`` (its life without the lordships it lost, 0 if below), deals its damage
      to the attacker without its abilities, and the attacker's Lethal Strike fires, the blocker being in the
      crypt (``_fight_dead_blocker``); when the attacker is gone too nothing happens.

    Unblocked attackers then hit the defending player."""
    t = m.turn_player
    attackers = [u for u in m.board[t] if u.attacking]
    blockers = [u for u in m.board[1 - t] if u.blocking >= 0]
    for a in attackers:
        mine = [b for b in blockers if b.blocking == a.uid]
        chosen = m.order.get(a.uid)
        if chosen:
            rank = {uid: i for i, uid in enumerate(chosen)}
            mine.sort(key=lambda b: rank.get(b.uid, len(rank)))
        left = a.attack
        for b in mine:
            a_now, b_now = m.find(a.uid), m.find(b.uid)
            a = a_now or a  # the attacker as it is now (a Statue keeps the uid), else as it left the board
            if b_now is None:
                share = min(max(b.max_life - b.hurt, 0), left)
                left -= share
                if a_now is not None:
                    _fight_dead_blocker(m, a, b)
                    if m.winner >= 0:
                        return
                continue
            b = b_now
            share = min(max(b.life, 0), left)
            left -= share
            if a_now is None:
                _fight_gone_attacker(m, a, b, share)
                if m.winner >= 0:
                    return
                continue
            for mech in b.mechs:
                if mech.id == "DamageOnBlock":
                    deal_damage(m, None, a, int(mech.param("damage", 0)), owner=b.owner, direct=True)
            hit_back = b.attack
            deal_damage(m, a, b, share)
            deal_damage(m, b, a, hit_back)
            a, b = m.find(a.uid) or a, m.find(b.uid) or b  # either may have been turned to stone
            a.exhausted = b.exhausted = True
            process_deaths(m)
            if m.winner >= 0:
                return
            if m.find(b.uid) is None:
                fire_own(m, m.find(a.uid) or a, "LethalStrike", trigger_unit=b)
            if m.find(a.uid) is None:
                fire_own(m, m.find(b.uid) or b, "LethalStrike", trigger_unit=a)
            process_deaths(m)
            if m.winner >= 0:
                return
    for a in attackers:
        if m.find(a.uid) is a and not a.exhausted:
            deal_damage(m, a, 1 - t, a.attack)
            a.exhausted = True
            process_deaths(m)
            if m.winner >= 0:
                return
    for u in m.board[t]:
        u.attacking = False
    for u in m.board[1 - t]:
        u.blocking = -1
    m.order = {}
    m.order_queue = []
    m.phase = PLAY2


def _fight_gone_attacker(m: Match, a: Perm, b: Perm, share: int) -> None:
    """The fight of an attacker no longer on the board (dead; ``a`` as it left) with its next blocker ``b`` (see
    ``resolve_combat``): ``b`` takes ``share`` without the attacker's on-damage abilities, is exhausted, heals
    for its damage with Lifesteal and fires its Lethal Strike; the attacker's own triggers left play with it."""
    deal_damage(m, None, b, share, owner=a.owner, direct=True)
    hit_back = b.attack
    if hit_back > 0 and "Lifesteal" in b.kw:
        m.heal_player(b.owner, hit_back)
    b.exhausted = True
    process_deaths(m)
    if m.winner >= 0:
        return
    fire_own(m, b, "LethalStrike", trigger_unit=a)  # the attacker's own triggers left play with it
    process_deaths(m)


def _fight_dead_blocker(m: Match, a: Perm, b: Perm) -> None:
    """The fight of the attacker ``a`` (on the board) with a blocker ``b`` that died before its turn in the damage
    order (see ``resolve_combat``; the model's ``unit.ts`` ``fight`` with a unit in the crypt): ``b`` deals its
    damage (without the lordships and items it lost) to ``a``, with none of its abilities (Lifesteal, Lethal,
    Lethal Strike, DamageOnBlock left play with it; the attacker's shields still act); ``a`` is exhausted and its
    Lethal Strike fires, ``b`` being dead."""
    deal_damage(m, None, a, max(b.dmg, 0), owner=b.owner, direct=True)
    a.exhausted = True
    process_deaths(m)
    if m.winner >= 0:
        return
    fire_own(m, m.find(a.uid) or a, "LethalStrike", trigger_unit=b)
    process_deaths(m)
