"""cardboard serve without a browser (Starlette's TestClient): what each frame holds, the refusals that change
nothing, sessions kept apart, watching with search statistics, replays forward and back, the command's safety, the
seeds of ``cardboard play``."""
from __future__ import annotations

import argparse
import json

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

FRAME_KEYS = {"type", "version", "seed", "seat", "agents", "view", "status", "over", "menu", "log_from", "log",
              "stats", "step", "steps"}


def client(replays=()) -> TestClient:
    c = TestClient(create_app(replays))
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
    (games,) = c.app.state.games.sessions.values()
    return games[gid]


def test_a_played_game_sends_only_the_seats_view():
    c = client()
    gid = new_game(c, mode="play", game="lords_of_war", agents="random", seat=1, seed=5)
    table = table_of(c, gid)
    with c.websocket_connect(f"/ws/{gid}") as ws:
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


def test_refused_moves_change_nothing():
    c = client()
    gid = new_game(c, mode="play", game="hearth", agents="random", seat=0, seed=2)
    table = table_of(c, gid)
    with c.websocket_connect(f"/ws/{gid}") as ws:
        frame = ws.receive_json()
        while frame["menu"] is None:
            frame = ws.receive_json()
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
    assert TestClient(create_app()).post("/api/games", json={}).status_code == 403  # no session cookie


def test_sessions_are_kept_apart():
    app = create_app()
    mine, theirs = TestClient(app), TestClient(app)
    mine.get("/")
    theirs.get("/")
    gid = new_game(mine, mode="play", game="lords_of_war", agents="random", seat=0, seed=1)
    later = [new_game(mine, mode="watch", game="lords_of_war", agents="random") for _ in range(GAMES_PER_SESSION)]
    for c, game, headers in [(theirs, later[-1], {}), (mine, later[-1], {"origin": "http://evil.example"}),
                             (mine, gid, {})]:  # the last: the session's oldest game, dropped for the newer ones
        with c.websocket_connect(f"/ws/{game}", headers=headers) as ws:
            answer = ws.receive_json()
            assert answer == {"type": "error", "message": "no such game (it may have ended with the server)"}
    with mine.websocket_connect(f"/ws/{later[-1]}") as ws:
        assert ws.receive_json()["type"] == "frame"


def test_a_dropped_game_and_the_stopped_server_release_their_agents(monkeypatch):
    closed = []
    monkeypatch.setattr(Table, "close", lambda self: closed.append(self))
    app = create_app()
    with TestClient(app) as c:  # 'with': the app's lifespan runs, so stopping it releases every game
        c.get("/")
        first = new_game(c, mode="watch", game="lords_of_war", agents="random")
        oldest = table_of(c, first)
        for _ in range(GAMES_PER_SESSION):
            new_game(c, mode="watch", game="lords_of_war", agents="random")
        assert closed == [oldest]
    assert len(closed) == 1 + GAMES_PER_SESSION


def watched_stats(seat):
    c = client()
    gid = new_game(c, mode="watch", game="lords_of_war", agents="ismcts:iterations=30,random", view=seat, seed=3)
    with c.websocket_connect(f"/ws/{gid}") as ws:
        ws.receive_json()
        frames = []
        for _ in range(6):
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
    with c.websocket_connect(f"/ws/{gid}") as ws:
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
    assert c.get("/api/catalog").json()["replays"] == [str(results), str(selfplay)]
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
    gid = new_game(c, mode="play", game="demo_tricks", agents="random", seat=0, seed=4)
    table = table_of(c, gid)
    assert not hasattr(table.state, "view")
    with c.websocket_connect(f"/ws/{gid}") as ws:
        frame = ws.receive_json()
        while not frame["over"]:
            if frame["menu"] is not None:
                assert frame["view"]["zones"] == [] and frame["view"]["text"] == table.game.render_ansi(table.state, 0)
                assert frame["menu"] == {table.state.action_to_string(a): int(a) for a in table.state.legal_actions()}
                ws.send_json({"type": "move", "version": frame["version"], "action": first_leaf(frame["menu"])})
            frame = ws.receive_json()
