"""cardboard serve in a real browser (Debian's chromium, driven by Playwright; ``make test`` installs chromium when
missing): a full game of each bundled game against the random agent, played by clicking the page's moves.

Every message the server sends is checked as it goes to be exactly the frame ``envs.view`` builds for the seat;
afterwards no card the opponent held that the seat's views never show appears in anything the page received. A
failing game leaves a screenshot of the page in the test's kept tmp folder (its path is in the failure)."""
from __future__ import annotations

import json
import time

import pytest

from cardboard import registry
from cardboard.envs.view import describe, menu, seen
from cardboard.jobs.seeds import game_streams
from cardboard.web import app as web_app
from cardboard.web.app import create_app
from cardboard.web.browser import CHROMIUM, launch, play_first_moves, serving, start_game
from cardboard.web.tables import Table

GAMES = {"lords_of_war": "", "hearth": "", "pandemic": "players=2", "fifth_aeon": ""}


@pytest.fixture(scope="module")
def site():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; make test does "
                    "it as root)")
    from playwright.sync_api import sync_playwright

    for name, options in GAMES.items():  # the games' kernels compile on first use (minutes, cold): not in the timings
        settings = dict(option.split("=") for option in options.split())
        players = registry.make_game(name, **settings).info.num_players
        table = Table(name, settings, ["random"] * players, None, None, 0)
        while not table.waiting:
            table.step()
    app = create_app()
    with serving(app) as url, sync_playwright() as playwright:
        browser = launch(playwright)
        yield app, url, browser
        browser.close()


def checked_send(sent: list, wrong: list):
    """``web.app.send`` that also compares each frame with the seat's view of the live table (a difference goes to
    ``wrong``, and the page goes on: the test then fails with all of them)."""
    original = web_app.send

    async def send(socket, message):
        if message["type"] == "frame":
            gid = socket.path_params["gid"]
            table = next(games[gid] for games in socket.app.state.games.sessions.values() if gid in games)
            state, seat = table.state, table.perspective
            plain = json.loads(json.dumps(message, default=web_app._plain))
            expected = {"view": describe(state, table.game, seat).to_json(),
                        "menu": menu(state, state.legal_actions()) if message["menu"] is not None else None,
                        "log": table.log[message["log_from"]:]}
            expected = json.loads(json.dumps(expected, default=web_app._plain))
            wrong.extend((message["version"], key) for key, value in expected.items() if plain[key] != value)
        sent.append(message)
        await original(socket, message)
    return send


def unseen_names(table: Table) -> set[str]:
    """Names of the cards the opponents held that nothing built for the table's seat ever shows."""
    seat, game = table.perspective, table.game
    state = game.new_state(game_streams(table.seed, 0, game.info.num_players)[0])
    held, shown = set(), []
    for action in [*table.actions, None]:
        for other in range(game.info.num_players):
            if other != seat:
                held |= {card.name for zone in describe(state, game, other).zones if zone.owner == other
                         for card in zone.cards if not card.hidden}
        shown.append(json.dumps(describe(state, game, seat).to_json(), default=web_app._plain))
        if action is None:
            break
        shown.append(seen(state, action, seat) or "")
        state.apply(action)
    everything = "\n".join(shown)
    return {name for name in held if name not in everything}


@pytest.mark.parametrize("name", GAMES)
def test_a_full_game_by_clicks_shows_no_hidden_card(site, name, tmp_path, monkeypatch):
    app, url, browser = site
    sent: list[dict] = []
    wrong: list[tuple[int, str]] = []
    monkeypatch.setattr(web_app, "send", checked_send(sent, wrong))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    received: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(str(payload))))
    responses = []
    page.on("response", lambda response: responses.append(response))
    start = time.perf_counter()
    try:
        start_game(page, url, "play", name, options=GAMES[name], agents="random", seat=0, seed=11)
        moves = play_first_moves(page, timeout_s=60)
        seconds = time.perf_counter() - start
        assert moves > 0 and "game over" in page.locator("#status").text_content()
        table = next(t for games in app.state.games.sessions.values() for t in games.values()
                     if isinstance(t, Table) and t.game.info.name == name and t.state.is_terminal()
                     and t.seed == 11)
        assert sent and all(m["type"] == "frame" for m in sent)  # no error on the way
        everything = "\n".join(received + [r.text() for r in responses if "/api/" in r.url])
        hidden = unseen_names(table)
        if table.game.info.private_information:
            assert hidden, "the opponent held no card the seat never saw: the check would be empty"
        leaked = sorted(n for n in hidden if n in everything)
        assert not leaked, f"hidden cards reached the page: {leaked}"
        assert not wrong, f"frames that are not the seat's view (version, field): {wrong[:5]}"
        # the time is reported, not asserted (a loaded machine is no bug; play_first_moves' 60 s is the hang guard)
        print(f"{name}: {moves} moves in {seconds:.1f} s, {len(hidden)} hidden card names never received")
    except BaseException:
        shot = tmp_path / f"{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot of the failing page: {shot}")
        raise
    finally:
        page.close()


def test_a_bad_agent_spec_is_a_message_on_the_page(site):
    app, url, browser = site
    page = browser.new_page()
    try:
        start_game(page, url, "play", "hearth", agents="nobody", seat=0, wait=False)
        page.wait_for_selector("#error:not([hidden])")
        assert "nobody" in page.text_content("#error") and page.locator("#table").is_hidden()
    finally:
        page.close()
