"""cardboard serve without a browser (Starlette's TestClient): what each frame holds, the refusals that change
nothing, sessions kept apart, watching with search statistics, replays forward and back, the command's safety, the
seeds of ``cardboard play``; issue 47's rules: no seed before the end, this machine's Host names only, issued
cookies only, cross-site requests refused and links kept, caps, a closed page's search stopped, no file named, no
500 for bad input."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from rich.console import Console
from starlette.testclient import TestClient

from cardboard import registry
from cardboard.envs.protocol import CHANCE
from cardboard.envs.view import describe, menu
from cardboard.evaluation.match import play_match_specs, read_results
from cardboard.jobs.seeds import game_streams
from cardboard.training.selfplay import generate
from cardboard.web import serve
from cardboard.web.app import GAMES_PER_SESSION, create_app
from cardboard.web.tables import Table

LOCAL = "http://localhost"  # a Host the app answers (TestClient's own, testserver, is refused)
FRAME_KEYS = {"type", "version", "seed", "seat", "agents", "view", "status", "over", "menu", "log_from", "log",
              "stats", "step", "steps"}


def client(replays=()) -> TestClient:
    c = TestClient(create_app(replays), base_url=LOCAL)
    assert c.get("/").status_code == 200 and c.cookies.get("cardboard_session")
    return c


def new_game(c: TestClient, **body) -> str:
    answer = c.post("/api/games", json=body).json()
    assert "id" in answer, answer
    return answer["id"]


def first_leaf(tree):
    while isinstance(tree, dict):
        tree = next(iter(tree.values()))
    return tree


def table_of(c: TestClient, gid: str):
    return next(games[gid].game for games in c.app.state.games.sessions.values() if gid in games)


def test_a_played_game_sends_only_the_seats_view():
    c = client()
    gid = new_game(c, mode="play", game="lords_of_war", agents="random", seat=1)
    table = table_of(c, gid)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        frame = ws.receive_json()
        while not frame["over"]:
            assert set(frame) <= FRAME_KEYS and frame["seat"] == 1
            if frame["menu"] is not None:  # the person's turn: the table waits, so its state is this frame's
                assert frame["version"] == table.version
                assert frame["view"] == json.loads(json.dumps(describe(table.state, table.game, 1).to_json()))
                assert frame["menu"] == menu(table.state, table.state.legal_actions())
                ws.send_json({"type": "move", "version": frame["version"], "action": first_leaf(frame["menu"])})
            frame = ws.receive_json()
        assert frame["status"].startswith("game over") and frame["menu"] is None
    assert table.state.is_terminal() and table.agents[1] is None and table.labels[1] == "you"


def until_menu(ws):
    """The first frame on ``ws`` that offers the person a menu (their turn)."""
    frame = ws.receive_json()
    while frame["menu"] is None:
        frame = ws.receive_json()
    return frame


def test_refused_moves_change_nothing():
    c = client()
    gid = new_game(c, mode="play", game="hearth", agents="random", seat=0)
    table = table_of(c, gid)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        frame = until_menu(ws)
        version, legal = table.version, [int(a) for a in table.state.legal_actions()]
        illegal = next(a for a in range(table.state.num_actions) if a not in legal)
        for message, words in [("{not json", "malformed"), ("[1, 2]", "malformed"),
                               (json.dumps({"type": "move", "version": version - 1, "action": legal[0]}), "stale"),
                               (json.dumps({"type": "move", "version": version, "action": illegal}), "not legal"),
                               (json.dumps({"type": "move", "version": version, "action": "1"}), "integer"),
                               (json.dumps({"type": "step"}), "not one this game takes")]:
            ws.send_text(message)
            answer = ws.receive_json()
            assert answer["type"] == "error" and words in answer["message"], (message, answer)
            assert table.version == version
        ws.send_json({"type": "move", "version": version, "action": legal[0]})
        assert ws.receive_json()["version"] > version


def test_bad_requests_are_clear_errors():
    c = client()
    for body, words in [({"mode": "play", "game": "chess", "seat": 0}, "chess"),
                        ({"mode": "play", "game": "hearth", "agents": "nobody", "seat": 0}, "nobody"),
                        ({"mode": "play", "game": "hearth", "agents": "random", "seat": 2}, "seat 2"),
                        ({"mode": "play", "game": "hearth", "options": "nope=1", "seat": 0}, "nope"),
                        ({"mode": "watch", "game": "hearth", "agents": "random,random,random"}, "agent seats"),
                        ({"mode": "replay", "source": 0}, "replay source"),
                        ({"mode": "fly"}, "fly")]:
        response = c.post("/api/games", json=body)
        assert response.status_code == 400 and words in response.json()["error"], (body, response.json())
    assert c.post("/api/games", content=b"{oops").json()["error"].startswith("malformed")
    assert TestClient(create_app(), base_url=LOCAL).post("/api/games", json={}).status_code == 403  # no session


def test_sessions_are_kept_apart():
    app = create_app()
    mine, theirs = TestClient(app, base_url=LOCAL), TestClient(app, base_url=LOCAL)
    mine.get("/")
    theirs.get("/")
    gid = new_game(mine, mode="play", game="lords_of_war", agents="random", seat=0)
    later = [new_game(mine, mode="watch", game="lords_of_war", agents="random") for _ in range(GAMES_PER_SESSION)]
    for c, game, headers in [(theirs, later[-1], {}), (mine, later[-1], {"origin": "http://evil.example"}),
                             (mine, gid, {})]:  # the last: the session's oldest game, dropped for the newer ones
        with c.websocket_connect(f"ws://localhost/ws/{game}", headers=headers) as ws:
            answer = ws.receive_json()
            assert answer == {"type": "error", "message": "no such game (it may have ended with the server)"}
    with mine.websocket_connect(f"ws://localhost/ws/{later[-1]}") as ws:
        assert ws.receive_json()["type"] == "frame"


def test_a_dropped_game_and_the_stopped_server_release_their_agents(monkeypatch):
    closed = []
    monkeypatch.setattr(Table, "close", lambda self: closed.append(self))
    app = create_app()
    with TestClient(app, base_url=LOCAL) as c:  # 'with': the app's lifespan runs, so stopping it releases all
        c.get("/")
        first = new_game(c, mode="watch", game="lords_of_war", agents="random")
        oldest = table_of(c, first)
        for _ in range(GAMES_PER_SESSION):
            new_game(c, mode="watch", game="lords_of_war", agents="random")
        assert closed == [oldest]
    assert len(closed) == 1 + GAMES_PER_SESSION


def watched_stats(seat, game="lords_of_war", options="", agents="ismcts:iterations=30,random", steps=6):
    """The search statistics of the frames a watching page viewing as ``seat`` gets over ``steps`` steps."""
    c = client()
    gid = new_game(c, mode="watch", game=game, options=options, agents=agents, view=seat, seed=3)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        ws.receive_json()
        frames = []
        for _ in range(steps):
            ws.send_json({"type": "step"})
            frames.append(ws.receive_json())
    return [f["stats"] for f in frames if f["stats"] is not None]


def test_watching_shows_search_statistics_only_to_the_deciders_seat():
    stats = watched_stats(0)
    assert stats and all(s["player"] == 0 and s["agent"] == "ismcts:iterations=30" for s in stats)
    moves = stats[0]["moves"]
    assert sum(m["chosen"] for m in moves) == 1 and sum(m["visits"] for m in moves) >= 29
    assert watched_stats(None) == []  # a spectator of a game with hidden hands: the labels could name them


def walk_replay(c: TestClient, body: dict) -> list[dict]:
    gid = new_game(c, **body)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        first = ws.receive_json()
        ws.send_json({"type": "goto", "step": 10 ** 6})
        last = ws.receive_json()
        ws.send_json({"type": "goto", "step": last["step"] - 1})
        back = ws.receive_json()
        ws.send_json({"type": "goto"})
        error = ws.receive_json()
    assert first["step"] == 0 and not first["over"] and last["over"] and last["step"] == last["steps"] - 1
    assert back["step"] == last["step"] - 1 and not back["over"] and error["type"] == "error"
    return [first, last, back]


def test_replays_a_results_file_and_a_selfplay_folder(tmp_path):
    results = tmp_path / "m.jsonl"
    play_match_specs("lords_of_war", ["random", "greedy"], 2, 7, results_path=str(results))
    selfplay = tmp_path / "sp"
    generate("lords_of_war", ["mc:iterations=4"], 1, 3, selfplay)
    c = client([str(results), str(selfplay)])
    assert c.get("/api/catalog").json()["replays"] == ["0: m.jsonl", "1: sp"]  # labels, not the server's paths
    first, last, _ = walk_replay(c, {"mode": "replay", "source": 0, "index": 1, "view": 0})
    assert last["agents"] == ["greedy", "random"] and first["seat"] == 0 and len(last["log"]) > len(first["log"])
    walk_replay(c, {"mode": "replay", "source": 1, "index": 0})
    response = c.post("/api/games", json={"mode": "replay", "source": 0, "index": 5})
    assert response.status_code == 400 and "no game 5" in response.json()["error"]


def test_serve_is_local_unless_told_and_warns(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: ran.append(kw))
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    console = Console(record=True, width=200)
    assert serve.run(parser.parse_args([]), console) == 0
    assert ran[-1]["host"] == "127.0.0.1" and "warning" not in console.export_text()
    assert ran[-1]["ws_max_size"] == serve.WS_MAX_SIZE  # uvicorn's own default takes 16 MiB messages
    assert serve.run(parser.parse_args(["--allow-host", "lab-box"]), console) == 0
    assert serve.run(parser.parse_args(["--host", "0.0.0.0"]), console) == 0
    assert ran[-1]["host"] == "0.0.0.0" and "warning: --host 0.0.0.0 opens the page" in console.export_text()
    with pytest.raises(registry.CardboardError, match="no such file"):
        serve.run(parser.parse_args(["--replay", str(tmp_path / "missing.jsonl")]), console)
    assert "serve" in registry.commands()


def test_a_table_plays_game_0_of_a_match_with_the_same_seed(tmp_path):
    table = Table("hearth", {}, ["random", "greedy"], None, None, 9)
    while not table.waiting:
        table.step()
    state, decisions = table.game.new_state(game_streams(9, 0, 2)[0]), []
    for action in table.actions:
        if state.current_player != CHANCE:
            decisions.append(action)
        state.apply(action)
    results = tmp_path / "m.jsonl"
    play_match_specs("hearth", ["random", "greedy"], 1, 9, results_path=str(results))
    assert list(read_results(results)[0].moves) == decisions


def test_a_plugin_game_without_view_hooks_gets_the_generic_page():
    c = client()
    gid = new_game(c, mode="play", game="demo_tricks", agents="random", seat=0)
    table = table_of(c, gid)
    assert not hasattr(table.state, "view")
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        frame = ws.receive_json()
        while not frame["over"]:
            if frame["menu"] is not None:
                assert frame["view"]["zones"] == [] and frame["view"]["text"] == table.game.render_ansi(table.state, 0)
                assert frame["menu"] == {table.state.action_to_string(a): int(a) for a in table.state.legal_actions()}
                ws.send_json({"type": "move", "version": frame["version"], "action": first_leaf(frame["menu"])})
            frame = ws.receive_json()


# -- issue 47: what a seat may know, who may ask, caps, refusals -----------------------------------------------

SECRET = 1_987_654_321  # the server's seed in these tests: ten digits no frame holds by chance


def frames_of_a_game(c: TestClient, gid: str) -> list[dict]:
    """Every frame of a played game, the person always taking the first move offered."""
    frames = []
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        frame = ws.receive_json()
        frames.append(frame)
        while not frame["over"]:
            if frame["menu"] is not None:
                ws.send_json({"type": "move", "version": frame["version"], "action": first_leaf(frame["menu"])})
            frame = ws.receive_json()
            frames.append(frame)
    return frames


def test_the_seed_reaches_the_page_only_when_the_game_is_over(monkeypatch):
    monkeypatch.setattr("cardboard.web.app.new_seed", lambda: SECRET)
    c = client()
    gid = new_game(c, mode="play", game="lords_of_war", agents="random", seat=0)
    assert table_of(c, gid).seed == SECRET
    frames = frames_of_a_game(c, gid)
    *running, last = frames
    assert running and all(f["seed"] is None and str(SECRET) not in json.dumps(f) for f in running)
    assert last["over"] and last["seed"] == SECRET  # shown at the end, to replay the deal
    response = c.post("/api/games", json={"mode": "play", "game": "hearth", "seat": 0, "seed": 7})
    assert response.status_code == 400 and "seed" in response.json()["error"]  # a chosen seed would deal the hands


def test_hosts_other_than_this_machines_names_are_refused():
    app = create_app(host="10.1.2.3", hosts=["lab-box"])
    evil = TestClient(app, base_url="http://rebound.example:8000")
    for response in [evil.get("/"), evil.get("/api/catalog"), evil.get("/static/app.js"),
                     evil.post("/api/games", json={"mode": "watch", "game": "hearth"})]:
        assert response.status_code == 400 and "host" in response.text.lower()
    assert not evil.cookies
    with pytest.raises(Exception) as refused:  # the WebSocket handshake is refused as well
        with evil.websocket_connect("ws://rebound.example:8000/ws/x"):
            pass
    assert "400" in repr(refused.value) or getattr(refused.value, "status_code", None) == 400
    for base in ["http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000", "http://10.1.2.3:8000",
                 "http://lab-box:8000"]:
        assert TestClient(app, base_url=base).get("/api/catalog").status_code == 200, base
    assert socket_names_allowed()


def socket_names_allowed() -> bool:
    """Listening on every address, the machine's own name is allowed too (visitors use it)."""
    import socket

    from cardboard.web.app import allowed_hosts
    return socket.gethostname() in allowed_hosts("0.0.0.0") and "[::1]" in allowed_hosts()


def test_a_forged_cookie_is_no_session():
    app = create_app()
    forged = TestClient(app, base_url=LOCAL, cookies={"cardboard_session": "forged-by-a-visitor"})
    response = forged.post("/api/games", json={"mode": "watch", "game": "lords_of_war", "agents": "random"})
    assert response.status_code == 403 and not app.state.games.count()
    issued = forged.get("/").cookies.get("cardboard_session")
    assert issued and issued != "forged-by-a-visitor"  # the page issues a real one in its place


def test_a_cross_site_navigation_keeps_the_session_and_cross_site_requests_are_refused():
    c = client()
    session = c.cookies.get("cardboard_session")
    response = c.get("/", headers={"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"})
    assert response.status_code == 200 and "set-cookie" not in response.headers and c.cookies["cardboard_session"] \
        == session  # the Lax cookie comes along a link from another site: the visitor keeps their games
    first = TestClient(c.app, base_url=LOCAL).get("/")
    assert "samesite=lax" in first.headers["set-cookie"].lower() and "httponly" in first.headers["set-cookie"].lower()
    body = {"mode": "watch", "game": "lords_of_war", "agents": "random"}
    for headers in [{"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"},
                    {"sec-fetch-site": "same-site"}]:
        assert c.post("/api/games", json=body, headers=headers).status_code == 403, headers
    gid = new_game(c, **body, view=None)
    with c.websocket_connect(f"ws://localhost/ws/{gid}", headers={"sec-fetch-site": "cross-site"}) as ws:
        assert ws.receive_json()["message"].startswith("no such game")
    assert c.post("/api/games", json=body, headers={"origin": LOCAL, "sec-fetch-site": "same-origin"}).json()["id"]


def test_games_are_capped_per_session_and_in_all(monkeypatch):
    monkeypatch.setattr("cardboard.web.app.GAMES_IN_ALL", 3)
    app = create_app()
    body = {"mode": "watch", "game": "lords_of_war", "agents": "random"}
    first, second = TestClient(app, base_url=LOCAL), TestClient(app, base_url=LOCAL)
    first.get("/")
    second.get("/")
    kept, idle = new_game(first, **body), new_game(first, **body)
    mine = first.cookies["cardboard_session"]
    with first.websocket_connect(f"ws://localhost/ws/{kept}") as open_page:  # an open game is never the one dropped
        open_page.receive_json()
        theirs = [new_game(second, **body), new_game(second, **body)]  # the fourth: the idle game goes
        assert app.state.games.count() == 3 and app.state.games.find(mine, idle) is None
        assert app.state.games.find(mine, kept) is not None
        with second.websocket_connect(f"ws://localhost/ws/{theirs[0]}") as a, \
                second.websocket_connect(f"ws://localhost/ws/{theirs[1]}") as b:
            a.receive_json()
            b.receive_json()
            response = second.post("/api/games", json=body)  # every game open in a page: refused, none dropped
            assert response.status_code == 503 and "games" in response.json()["error"]
    assert app.state.games.count() == 3


@pytest.mark.parametrize("spec, knob", [("ismcts:seconds=1e9", "seconds"),
                                        ("ismcts:iterations=100000000", "iterations"),
                                        ("ismcts:iterations=0,seconds=1", "iterations"),
                                        ("uct:seconds=inf", "seconds"), ("mc:iterations=nan", "iterations"),
                                        ("ismcts:parallel=tree,workers=1000", "workers"),
                                        ("ismcts:parallel=root,workers=2", "parallel"),
                                        ("rhea:generations=1000000000", "generations"),
                                        ("pimc:worlds=1000000", "worlds"), ("duct:worlds=1000", "worlds"),
                                        ("rhea:horizon=10000", "horizon"), ("rhea:evaluations=100000", "evaluations"),
                                        ("lookahead:width=1000", "width"), ("greedy:samples=100000", "samples"),
                                        ("rhea:seed=ismcts:iterations=100000000", "iterations"),
                                        ("ismcts:net=zoo:lords_of_war,device=cuda", "device"),
                                        ("human", "human")])
def test_agent_budgets_in_the_page_are_capped(spec, knob):
    c = client()
    response = c.post("/api/games", json={"mode": "watch", "game": "lords_of_war", "agents": spec})
    assert response.status_code == 400 and knob in response.json()["error"], response.json()
    assert not c.app.state.games.count()


def test_budgets_within_the_caps_and_shipped_models_are_taken():
    from cardboard.web.checks import check_spec

    for spec in ["ismcts:iterations=20000,seconds=5", "duct:worlds=64,parallel=tree,workers=4", "rhea:generations=50",
                 "ismcts:net=zoo:lords_of_war,iterations=50", "net:model=lords_of_war", "zoo:lords_of_war",
                 "rhea:seed=net:model=pandemic-v1,repair=pandemic_default", "ismcts:deckmodel=predict:a7"]:
        check_spec(spec)
    c = client()
    new_game(c, mode="watch", game="lords_of_war", agents="ismcts:iterations=50,seconds=1,random")


def test_a_page_option_or_agent_naming_a_file_is_refused(tmp_path):
    deck = tmp_path / "deck.json"  # a deck the command line plays (a bundled one's copy): the page may not name it
    deck.write_text((Path(__file__).parents[1] / "envs" / "hearth" / "decks" / "handlock.json").read_text())
    c = client()
    for game, options, agents, words in [
            ("hearth", f"decks={deck}", "random", "decks"),
            ("fifth_aeon", "decks=/dev/zero", "random", "decks"), ("pandemic", "setup=/dev/stdin", "random", "setup"),
            ("pandemic", "players=2 setup=../../etc/passwd", "random", "setup"),
            ("fifth_aeon", f"cards={deck}", "random", "cards"),
            ("lords_of_war", "armies=/dev/zero", "random", "armies"),
            ("lords_of_war", "", "net:path=/dev/zero", "file"), ("lords_of_war", "", f"ismcts:net={deck}", "file"),
            ("lords_of_war", "", "ismcts:net=zoo:../../x", "file"), ("hearth", "", f"cardplay:path={deck}", "file"),
            ("hearth", "", "ismcts:hlr=/dev/zero", "file"), ("lords_of_war", "", "sb3:path=/dev/zero", "file"),
            ("pandemic", "players=2", "rhea:seed=net:path=/dev/zero", "file"),
            ("lords_of_war", "", f"rhea:repair={deck}", "file")]:
        response = c.post("/api/games", json={"mode": "watch", "game": game, "options": options, "agents": agents})
        assert response.status_code == 400 and words in response.json()["error"], (options, agents, response.json())
        assert str(tmp_path) not in response.json()["error"] or "file" in response.json()["error"]
    new_game(c, mode="watch", game="pandemic", options="players=2 setup=S01", agents="random")  # bundled: fine
    new_game(c, mode="watch", game="hearth", options="decks=handlock,face_hunter", agents="random")
    assert c.app.state.games.count() == 2


def test_request_and_message_sizes_are_capped():
    c = client()
    huge = json.dumps({"mode": "play", "game": "x" * 5_000_000, "seat": 0})
    response = c.post("/api/games", content=huge, headers={"content-type": "application/json"})
    assert response.status_code == 413 and len(response.content) < 200 and "xxxx" not in response.text
    gid = new_game(c, mode="play", game="hearth", agents="random", seat=0)
    table = table_of(c, gid)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        frame = until_menu(ws)
        version = table.version
        ws.send_text(json.dumps({"type": "move", "version": version, "action": 0, "pad": "y" * 100_000}))
        answer = ws.receive_json()
        assert answer["type"] == "error" and "too large" in answer["message"] and "yyyy" not in answer["message"]
        assert table.version == version


def test_former_server_errors_are_clear_refusals(tmp_path, caplog):
    results = tmp_path / "m.jsonl"
    play_match_specs("lords_of_war", ["random", "random"], 1, 7, results_path=str(results))
    header, record = results.read_text().splitlines()
    record = json.loads(record)
    record["moves"][3] = 10 ** 9  # a hostile results file: a move no game has
    (tmp_path / "bad.jsonl").write_text(header + "\n" + json.dumps(record) + "\n")
    c = client([str(tmp_path / "bad.jsonl")])
    for raw, words in [('{"mode": "watch", "game": "hearth", "view": Infinity}', "malformed"),
                       ('{"mode": "watch", "game": "hearth", "view": NaN}', "malformed"),
                       ('{"mode": "watch", "game": "hearth", "view": 1e400}', "view"),
                       ('{"mode": "play", "game": "hearth", "seat": true}', "your seat"),
                       ('{"mode": "watch", "game": "hearth", "view": 1.5}', "view"),
                       ('{"mode": "replay", "source": 0, "index": 1e300}', "index"),
                       ('{"mode": "replay", "source": true}', "source"),
                       ('{"mode": "replay", "source": 0, "index": 0}', "does not fit")]:
        response = c.post("/api/games", content=raw, headers={"content-type": "application/json"})
        assert response.status_code == 400 and words in response.json()["error"], (raw, response.json())
    gid = new_game(c, mode="play", game="hearth", agents="random", seat=0)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        frame = until_menu(ws)
        ws.send_bytes(b"\x00\x01binary")
        assert "binary" in ws.receive_json()["message"]
        ws.send_json({"type": "move", "version": True, "action": first_leaf(frame["menu"])})
        assert "integer" in ws.receive_json()["message"]
        ws.send_json({"type": "move", "version": frame["version"], "action": first_leaf(frame["menu"])})
        assert ws.receive_json()["type"] == "frame"
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


def test_closing_the_page_stops_its_search_and_frees_the_game(caplog):
    import time

    c = client()
    slow = "ismcts:iterations=20000,compiled=0"  # seconds of Python iterations
    gid = new_game(c, mode="play", game="lords_of_war", agents=slow, seat=1)
    table = table_of(c, gid)
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:
        first = ws.receive_json()  # then the agent's search starts
        time.sleep(0.2)
        closed = time.perf_counter()
    with c.websocket_connect(f"ws://localhost/ws/{gid}") as ws:  # (leaving the block waits for the server's end)
        again = ws.receive_json()
        waited = time.perf_counter() - closed
    assert again["type"] == "frame" and waited < 1.5, waited  # the lock was freed at once, not after the search
    assert again["version"] == first["version"] == table.version  # the stopped decision was not played
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


def test_a_stopped_decision_leaves_the_table_as_it_was():
    import threading

    from cardboard.envs.stop import Stopped

    table = Table("lords_of_war", {}, ["ismcts:iterations=500", "random"], None, None, 3)
    stream = table.streams[1].bit_generator.state
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped):
        table.step(stop)  # the compiled loop checks it between slices
    assert table.version == len(table.actions) and table.streams[1].bit_generator.state == stream
    table.step()
    again = Table("lords_of_war", {}, ["ismcts:iterations=500", "random"], None, None, 3)
    again.step()
    assert again.actions == table.actions  # the decision made afterwards is the one it would have been


def test_statistics_of_a_search_of_the_true_state_are_never_shown():
    assert watched_stats(0, "lords_of_war", "", "uct:iterations=30,random", steps=4) == []  # hidden hands
    for view in (0, None):  # Pandemic: no private hands, but a hidden deck order uct reads
        assert watched_stats(view, "pandemic", "players=2", "uct:iterations=20", steps=4) == []
    assert watched_stats(1, "pandemic", "players=2", "ismcts:iterations=20", steps=4)  # its information set: shown
    assert watched_stats(0, "hearth", "", "ismcts:iterations=30,accuracy=1,random", steps=4) == []  # reads the truth


def test_the_docs_state_the_page_caps():
    from cardboard.web.checks import CAPS

    text = (Path(__file__).parents[1] / "docs" / "serve.md").read_text(encoding="utf-8")
    assert all(f"`{knob}` ≤ {cap:,g}" in text for knob, cap in CAPS.items()), CAPS
