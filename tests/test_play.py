"""`hiveai play`'s server and game store, through Starlette's in-process client.

The engine here is a stand-in (:class:`FirstMove`: the first legal move, at
once), so these tests check the board's rules and wiring, not the search;
tests/test_play_browser.py drives the real page against the real engine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hiveai.rules.board import Board
from hiveai.records import read_game
from hiveai.play import allowed_hosts
from hiveai.play.engines import READY, AnalysisLine, EngineSide
from hiveai.play.hint import reason
from hiveai.play.app import MAX_UPLOAD, create_app
from hiveai.play.session import Game, Players
from hiveai.play.store import GameStore, data_dir

GAMES = Path(__file__).resolve().parent / "data" / "games"
SURROUND_GAME = GAMES / "HV-Abbo69-WeakBot-2018-10-28-2007.pgn"  # White surrounds the queen on move 31
PASS_GAME = GAMES / "HV-Dumbot-guest-2018-10-31-1402.pgn"  # move 94 is a forced pass


class FirstMove(EngineSide):
    """A stand-in engine: plays and suggests the first legal move; analysis gives two lines."""

    name = "first-move"
    status = READY

    def __init__(self) -> None:
        super().__init__()
        self.searched = threading.Event()

    def _open(self):  # nothing to load
        return self

    def best_move(self, board, *, level, seconds, stop):
        self.searched.set()
        return str(board.legal_moves[0])

    def analyse(self, board, *, multipv, stop, on_lines, seconds=None):
        moves = board.legal_moves[:multipv]
        on_lines(1, [AnalysisLine(10 - i, [str(m)]) for i, m in enumerate(moves)])
        for _ in range(500):  # until stopped (at most 5 s)
            if seconds is not None or stop.is_set():
                break
            threading.Event().wait(0.01)


@pytest.fixture
def client(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    with TestClient(create_app(store, FirstMove())) as c:
        c.store = store
        yield c


# How long wait_for waits before it calls a game stuck: a hang guard, not a bound on speed. It is generous
# because the engine's first search in a process may include a cold numba compile (under a minute,
# `hiveai warmup`'s bound) on a loaded machine.
WAIT_SECONDS = 180.0


def wait_for(client, gid, done, seconds=WAIT_SECONDS):
    """The game's state once ``done(state)`` holds (the engine works in a thread)."""
    deadline = time.monotonic() + seconds
    while True:
        state = client.get(f"/api/game/{gid}").json()
        if done(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"game {gid} never reached the state wanted: {state}")
        threading.Event().wait(0.01)


def new(client, **body):
    r = client.post("/api/new", json={"game": "Base+MLP", "colour": "white", "level": 1, **body})
    assert r.status_code == 200, r.text
    return r.json()


# --- the page and its files ----------------------------------------------------------------


def test_page_and_its_files_are_served_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and 'id="board"' in page.text and "data-gamestring" in page.text
    for name in ("play.js", "play.css", "icon.svg"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in client.get("/static/play.css").text  # nothing from a CDN


@pytest.mark.parametrize("path", ["/static/..%2Fstore.py", "/static/index.html.bak", "/static/%2Fetc%2Fpasswd"])
def test_no_request_names_a_file(client, path):
    assert client.get(path).status_code == 404


# --- playing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["Base+MLP", "Base MLP", "base+mlp"])
def test_new_game_takes_a_plus_that_arrived_as_a_space(client, game):
    state = new(client, game=game)
    assert state["gamestring"] == "Base+MLP;NotStarted;White[1]"
    assert state["players"] == {"white": "human", "black": "engine", "level": 1, "seconds": None}


def test_every_game_type_and_critters_start(client):
    for game in ("Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP", "Critters"):
        assert new(client, game=game)["game_type"] == game


@pytest.mark.parametrize("body, words", [
    ({"game": "Chess"}, "Chess"),
    ({"level": 11}, "Level"),
    ({"colour": "green"}, "green"),
    ({"seconds": -1}, "seconds"),
    ({"gamestring": "Base;InProgress;White[2];wS1;bS1 wS1-;wS1"}, "move 3"),
])
def test_a_bad_new_game_is_refused_with_a_message(client, body, words):
    r = client.post("/api/new", json={"game": "Base", **body})
    assert r.status_code == 400 and words in r.json()["error"]


def test_picks_are_the_legal_moves_by_piece_with_their_destinations(client):
    state = new(client)
    board = Board.parse(state["gamestring"])
    moves = {m for ms in state["picks"].values() for m, x, y in ms}
    assert moves == {str(m) for m in board.legal_moves}
    assert set(state["picks"]) == {m.piece for m in board.legal_moves}
    assert 'data-piece="wA1"' in state["svg"]


def test_a_move_brings_the_engines_reply_and_undo_takes_both_back(client):
    state = new(client)
    gid = state["id"]
    after = client.post(f"/api/game/{gid}/move", json={"move": "wA1"}).json()
    assert after["history"][0] == "wA1"
    state = wait_for(client, gid, lambda s: s["ply"] == 2)
    assert not state["engine_to_move"] and state["picks"]
    undone = client.post(f"/api/game/{gid}/undo").json()
    assert undone["ply"] == 0 and undone["gamestring"] == "Base+MLP;NotStarted;White[1]"


def test_the_engine_opens_when_the_person_plays_black(client):
    gid = new(client, colour="black")["id"]
    state = wait_for(client, gid, lambda s: s["ply"] == 1)
    assert state["picks"] and state["turn"] == "Black" and not state["engine_to_move"]


def test_engine_against_engine_plays_on_by_itself(client):
    gid = new(client, colour="engines")["id"]
    state = wait_for(client, gid, lambda s: s["ply"] >= 6)
    assert state["picks"] == {}  # nobody at the board picks a piece
    assert client.post(f"/api/game/{gid}/move", json={"move": "wA1"}).status_code == 400
    client.post(f"/api/game/{gid}/resign")  # stops it


def test_an_illegal_move_is_refused_and_the_game_unchanged(client):
    gid = new(client)["id"]
    r = client.post(f"/api/game/{gid}/move", json={"move": "wQ -bG1"})
    assert r.status_code == 400 and "bG1" in r.json()["error"]
    r = client.post(f"/api/game/{gid}/move", json={"move": "pass"})
    assert r.status_code == 400
    assert client.get(f"/api/game/{gid}").json()["ply"] == 0


def test_two_people_take_turns_and_undo_takes_one_move(client):
    gid = new(client, colour="people")["id"]
    for move in ("wS1", "bS1 wS1-", "wQ -wS1"):
        assert client.post(f"/api/game/{gid}/move", json={"move": move}).status_code == 200
    assert client.post(f"/api/game/{gid}/undo").json()["history"] == ["wS1", "bS1 wS1-"]


def test_pass_is_offered_only_when_it_is_the_only_move():
    record = read_game(PASS_GAME)
    assert record.moves[93] == "pass"
    board = Board(record.game_type)
    offered = []
    for move in record.moves:
        game = Game(board, Players.from_colour("people"))
        offered.append(game.pass_only)
        board.play(move)
    assert offered[93] and offered.count(True) == record.moves.count("pass")


@pytest.mark.parametrize("action, end", [
    ("resign", "Black wins: White resigned."),
    ("draw", "Draw: a draw was agreed."),
])
def test_resign_and_agreed_draw_end_the_game_named(client, action, end):
    gid = new(client, colour="people")["id"]
    state = client.post(f"/api/game/{gid}/{action}").json()
    assert state["over"] and state["end"] == end
    assert client.post(f"/api/game/{gid}/move", json={"move": "wA1"}).status_code == 400
    # Kept with the game, and taken back by undo.
    stored = client.store.get(gid)
    assert stored.outcome.split()[0] == state["state"]
    assert not client.post(f"/api/game/{gid}/undo").json()["over"]


def test_a_surround_ends_the_game_named(client):
    record = read_game(SURROUND_GAME)
    state = client.post("/api/import", json={"text": SURROUND_GAME.read_text()}).json()
    assert state["over"] and state["state"] == record.result == "WhiteWins"
    assert state["end"] == "White wins: the black queen is surrounded."


def test_hint_gives_a_legal_move_and_a_reason(client):
    gid = new(client, colour="people")["id"]
    client.post(f"/api/game/{gid}/hint")
    state = wait_for(client, gid, lambda s: s["hint"] is not None)
    assert state["hint"]["move"] in {m for ms in state["picks"].values() for m, x, y in ms}
    assert state["hint"]["reason"]


def test_hint_reasons_come_from_the_position():
    board = Board.parse("Base;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 \\wQ;bA1 bQ/")
    assert reason(board, board.parse_move("wA1 bQ\\"), None) == "adds a piece around the enemy queen (3 of 6 cells now)"
    assert reason(board, board.parse_move("wG1 -wQ"), 12).startswith("the search's best move (+0.12")
    assert reason(board, board.legal_moves[0], 999_990) == "wins in 5"


def test_analysis_streams_lines_to_the_websocket(client):
    gid = new(client, colour="people")["id"]
    with client.websocket_connect(f"/ws/{gid}") as ws:
        first = ws.receive_json()
        assert first["id"] == gid and not first["analysing"]
        client.post(f"/api/game/{gid}/analyse", json={"on": True, "lines": 2})
        for _ in range(10):
            state = ws.receive_json()
            if state["analysis"]:
                break
        assert state["analysing"] and len(state["analysis"]["lines"]) == 2
        assert 0 <= state["analysis"]["bar"] <= 1 and "data-move" in state["svg"]  # the lines as arrows
        client.post(f"/api/game/{gid}/analyse", json={"on": False})


# --- games in and out -------------------------------------------------------------------------


def test_import_step_and_play_on_from_the_tenth_move(client):
    moves = read_game(SURROUND_GAME).to_board().move_history  # canonical MoveStrings
    state = client.post("/api/import", json={"text": SURROUND_GAME.read_text()}).json()
    gid = state["id"]
    assert state["history"] == moves
    tenth = client.get(f"/api/game/{gid}/at/10").json()
    assert tenth["gamestring"].split(";")[3:] == moves[:10]
    on = client.post(f"/api/game/{gid}/playon", json={"ply": 10}).json()
    assert on["id"] != gid and on["history"] == moves[:10] and not on["over"]
    assert on["players"]["white"] == "human" and on["players"]["black"] == "engine"  # ply 10: White to move
    assert client.get(f"/api/game/{gid}").json()["ply"] == len(moves)  # the original is kept


def test_a_record_with_an_illegal_move_is_reported_with_its_move_number(client):
    text = SURROUND_GAME.read_text().replace("5. wQ ", "5. wQ -bQ bogus ", 1)  # no MoveString at all
    lines = SURROUND_GAME.read_text().splitlines()
    move5 = next(i for i, ln in enumerate(lines) if ln.startswith("5. "))
    lines[move5] = "5. wQ bQ-"  # the black queen's east is not where a white queen may go
    r = client.post("/api/import", json={"text": "\n".join(lines)})
    assert r.status_code == 400 and "move 5 ('wQ bQ-')" in r.json()["error"], r.text
    r = client.post("/api/import", json={"text": "Base;InProgress;White[2];wS1;bS1 wS1-;wA1 bS1-"})
    assert r.status_code == 400 and "move 3" in r.json()["error"]
    assert client.post("/api/import", json={"text": text}).status_code == 400


def test_import_text_is_never_read_as_a_file_name(client, tmp_path):
    secret = tmp_path / "secret.pgn"
    secret.write_text(SURROUND_GAME.read_text())
    r = client.post("/api/import", json={"text": str(secret)})
    assert r.status_code == 400 and "history" not in r.json()


def test_pgn_download_reads_back_as_the_same_game(client):
    gid = new(client, colour="people")["id"]
    for move in ("wS1", "bS1 wS1-", "wQ -wS1"):
        client.post(f"/api/game/{gid}/move", json={"move": move})
    client.post(f"/api/game/{gid}/resign")
    r = client.get(f"/api/game/{gid}/pgn")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = read_game(r.text)
    assert record.moves == ["wS1", "bS1 wS1-", "wQ -wS1"] and record.result == "WhiteWins"


def test_games_are_listed_and_reopened_after_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(GameStore(path), FirstMove())) as c:
        gid = new(c, colour="people")["id"]
        c.post(f"/api/game/{gid}/move", json={"move": "wG1"})
    with TestClient(create_app(GameStore(path), FirstMove())) as c:
        assert [g["id"] for g in c.get("/api/games").json()["games"]] == [gid]
        assert c.get(f"/api/game/{gid}").json()["history"] == ["wG1"]
        assert c.get("/api/game/999").status_code == 400


def gated_review(monkeypatch, gate: threading.Semaphore):
    """hiveai.analysis.analyse.review_game replaced by one that judges a move each time ``gate`` is released
    (the second move marked a mistake), so a test sees the review fill in step by step."""
    import hiveai.analysis.analyse
    from hiveai.analysis.analyse import MoveReview

    def review_game(record, **limits):
        board = Board(record.game_type)
        for number, text in enumerate(record.moves, 1):
            assert gate.acquire(timeout=10), "the test never let the review go on"
            mover = ("White", "Black")[board.turn]
            move = board.play(text)
            mark = "?" if number == 2 else ""
            yield MoveReview(number, mover, move, move, not mark, 10 * number, -10 * number, board.state,
                             150 if mark else 0, mark, False)

    monkeypatch.setattr(hiveai.analysis.analyse, "review_game", review_game)


def test_the_review_fills_in_move_by_move(client, monkeypatch):
    gate = threading.Semaphore(0)
    gated_review(monkeypatch, gate)
    gid = new(client, colour="people")["id"]
    for move in ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"):
        client.post(f"/api/game/{gid}/move", json={"move": move})
    state = client.post(f"/api/game/{gid}/review").json()
    assert state["review"] == "running" and state["review_live"]["done"] == 0 and state["review_live"]["total"] == 4
    for done in (1, 2, 3, 4):
        gate.release()
        state = wait_for(client, gid, lambda s: s["review_live"]["done"] == done)
        assert state["review"] in ("running", "ready") and state["review_live"]["graph"].count("<circle") == done + 1
        assert [m["ply"] for m in state["review_live"]["marked"]] == ([2] if done >= 2 else [])
    wait_for(client, gid, lambda s: s["review"] == "ready")
    assert client.get(f"/api/game/{gid}/review").status_code == 200


def test_a_superseded_review_stops_where_it_was(client, monkeypatch):
    gate = threading.Semaphore(0)
    gated_review(monkeypatch, gate)
    gid = new(client, colour="people")["id"]
    for move in ("wS1", "bS1 wS1-", "wQ -wS1"):
        client.post(f"/api/game/{gid}/move", json={"move": move})
    client.post(f"/api/game/{gid}/review")
    gate.release()
    wait_for(client, gid, lambda s: s["review_live"]["done"] == 1)
    state = client.post(f"/api/game/{gid}/undo").json()
    assert state["review"] == "stopped"
    gate.release(2)  # the review's worker goes on to its next move and finds itself stopped
    state = client.post(f"/api/game/{gid}/move", json={"move": "wQ -wS1"}).json()
    assert state["review"] == "stopped" and state["review_live"]["done"] == 1
    assert client.get(f"/api/game/{gid}/review").status_code == 404


# --- set-up positions --------------------------------------------------------------------------

SETUP = "Base+MLP;White;wS1@0,0;bS1@1,0;wQ@-1,0;bQ@2,0;wB1@-1,0"  # the beetle on its queen


def test_the_editor_draws_a_set_up_with_its_cells_and_hands(client):
    view = client.post("/api/setup", json={"setup": SETUP}).json()
    assert view["problem"] is None and view["setup"] == "Base+MLP;White[5];wQ@-1,0;wB1@-1,0;wS1@0,0;bS1@1,0;bQ@2,0"
    targets = {(q, r): height for q, r, x, y, height in view["targets"]}
    assert targets[(-1, 0)] == 2 and targets[(3, 0)] == 0 and (5, 5) not in targets  # the hive and around it
    assert dict((k, left) for k, left, total in view["hand"]["white"])["wB"] == 1
    assert ["wB", -1, 0] in view["entries"] and "<svg" in view["svg"]
    assert 'id="hiveai-setup-piece-wQ' in view["svg"] and 'id="hiveai-piece' not in view["svg"]  # ids of its own
    empty = client.post("/api/setup", json={"setup": "Critters;Black"}).json()
    assert [t[:2] for t in empty["targets"]] == [[0, 0]] and empty["problem"]  # Black cannot move first


@pytest.mark.parametrize("setup, words", [
    ("Base;White;wQ@0,0;bQ@1,0;wS1@3,0;bS1@-1,0", "The hive is in 2 parts"),
    ("Base;White;wQ@0,0;bQ@1,0;wS1@-1,0;bS1@2,0;wA1@-1,0", "only a beetle or a mosquito can climb"),
    ("Base;White;wA1@0,0;bA1@1,0;wA2@-1,0;bA2@2,0;wA3@-2,0;bA3@3,0;wS1@-3,0;bQ@4,0", "queen must be placed"),
    ("Base;White;wA1@0,0;wA2@1,0;wA3@2,0;wA@3,0", "Too many white Ants"),
])
def test_an_impossible_set_up_is_named_and_starts_no_game(client, setup, words):
    view = client.post("/api/setup", json={"setup": setup}).json()  # drawn with its problem, or refused
    assert words in (view.get("problem") or view["error"])
    before = client.get("/api/games").json()["games"]
    r = client.post("/api/new", json={"setup": setup, "colour": "people"})
    assert r.status_code == 400 and words in r.json()["error"]
    assert client.get("/api/games").json()["games"] == before


def test_a_set_up_game_plays_undoes_steps_and_reopens(tmp_path):
    path = tmp_path / "games.sqlite3"
    with TestClient(create_app(GameStore(path), FirstMove())) as c:
        state = c.post("/api/new", json={"setup": SETUP, "colour": "white", "level": 1}).json()
        gid = state["id"]
        assert state["setup"].startswith("Base+MLP;White[5]") and state["ply"] == 0 and state["picks"]
        assert "wB1 wS1" in [m[0] for m in state["picks"]["wB1"]]  # the beetle on the queen climbs down or on
        c.post(f"/api/game/{gid}/move", json={"move": "wB1 wS1"})
        state = wait_for(c, gid, lambda s: s["ply"] == 2)
        assert c.get(f"/api/game/{gid}/at/0").json()["gamestring"] == "Base+MLP;InProgress;White[5]"
        r = c.post(f"/api/game/{gid}/undo").json()
        assert r["ply"] == 0 and r["history"] == []
        r = c.post(f"/api/game/{gid}/undo")
        assert r.status_code == 400 and "set-up" in r.json()["error"]
        assert c.get(f"/api/game/{gid}/pgn").status_code == 400
        c.post(f"/api/game/{gid}/move", json={"move": "wB1 wS1"})
        wait_for(c, gid, lambda s: s["ply"] == 2)
        on = c.post(f"/api/game/{gid}/playon", json={"ply": 1}).json()
        assert on["setup"] == state["setup"] and on["history"] == ["wB1 wS1"]
    with TestClient(create_app(GameStore(path), FirstMove())) as c:
        again = c.get(f"/api/game/{gid}").json()
        assert again["setup"] == state["setup"] and len(again["history"]) == 2
        assert c.post("/api/setup", json={"game_id": gid}).json()["problem"] is None


def test_a_set_up_position_is_analysed_and_refused_by_the_review(client):
    gid = client.post("/api/new", json={"setup": SETUP, "colour": "people"}).json()["id"]
    with client.websocket_connect(f"/ws/{gid}") as ws:
        client.post(f"/api/game/{gid}/analyse", json={"on": True})
        for _ in range(20):
            state = json.loads(ws.receive_text())
            if state["analysis"]:
                break
        assert state["analysis"]["lines"][0]["pv"][0] in {m for ms in state["picks"].values() for m, x, y in ms}
        client.post(f"/api/game/{gid}/analyse", json={"on": False})
    client.post(f"/api/game/{gid}/move", json={"move": "wB1 wS1"})
    r = client.post(f"/api/game/{gid}/review")
    assert r.status_code == 400 and "set-up" in r.json()["error"]


# --- security -------------------------------------------------------------------------------


def test_a_foreign_host_is_refused(client):
    for path in ("/", "/api/games", "/static/play.js"):
        r = client.get(path, headers={"Host": "attacker.example:8421"})
        assert r.status_code == 403 and "Host" in r.json()["error"]


def test_a_cross_origin_request_is_refused(client):
    r = client.post("/api/new", json={"game": "Base"}, headers={"Origin": "http://attacker.example"})
    assert r.status_code == 403 and "another site" in r.json()["error"]
    assert client.post("/api/new", json={"game": "Base"}, headers={"Origin": "http://testserver"}).status_code == 200


def test_a_cross_origin_or_foreign_host_websocket_is_refused(client):
    gid = new(client)["id"]
    from starlette.websockets import WebSocketDisconnect

    for headers in ({"Origin": "http://attacker.example"}, {"Host": "attacker.example"}):
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect(f"/ws/{gid}", headers=headers) as ws:
                ws.receive_json()


def test_a_form_post_from_elsewhere_is_refused(client):
    r = client.post("/api/new", content=b"game=Base", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]


def test_a_10_mb_upload_is_refused_with_a_message(client):
    body = json.dumps({"text": "x" * (10 << 20)})
    r = client.post("/api/import", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "at most" in r.json()["error"]
    assert len(body) > MAX_UPLOAD


def test_loopback_hosts_only_by_default():
    assert allowed_hosts("127.0.0.1", 8421) == {"127.0.0.1:8421", "localhost:8421", "[::1]:8421"}
    assert allowed_hosts("192.168.1.5", 80) == {"192.168.1.5:80"}


# --- the store ----------------------------------------------------------------------------------


def test_store_lives_in_the_users_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert data_dir() == tmp_path / "hiveai"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert data_dir() == Path.home() / ".local" / "share" / "hiveai"


@pytest.mark.integration
def test_store_keeps_the_last_commit_when_a_write_is_killed_mid_way(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = GameStore(path)
    gid = store.create("Base;InProgress;Black[1];wA1", {"white": "human"})
    store.close()
    # A writer that is killed (SIGKILL) half-way through a transaction: the row changed, no commit.
    writer = textwrap.dedent(f"""
        import sqlite3, sys, time
        db = sqlite3.connect({str(path)!r}, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        db.execute("UPDATE games SET game_string = 'torn' WHERE id = {gid}")
        db.execute("INSERT INTO games (created, updated, game_string) VALUES (0, 0, 'half')")
        print("written", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "written"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    store = GameStore(path)
    assert [(g.id, g.game_string) for g in store.recent()] == [(gid, "Base;InProgress;Black[1];wA1")]
    store.update(gid, "Base;InProgress;White[2];wA1;bA1 wA1-")  # and it takes writes again
    assert store.get(gid).game_string.endswith("bA1 wA1-")
    store.close()


@pytest.mark.integration
@pytest.mark.slow
def test_a_uhp_engine_plays_behind_the_board(tmp_path):
    """``hiveai play --engine COMMAND``: here hiveai itself, run as a UHP engine in its own process."""
    pytest.importorskip("hiveai.engine")
    from hiveai.play.engines import UhpEngine

    engine = UhpEngine(f"{sys.executable} -m hiveai")
    with TestClient(create_app(GameStore(tmp_path / "games.sqlite3"), engine)) as c:
        gid = new(c, colour="black", seconds=0.2)["id"]
        state = wait_for(c, gid, lambda s: s["ply"] == 1)
        assert state["engine"]["status"] == READY and state["history"][0] in legal_first_moves()
        c.post(f"/api/game/{gid}/hint")
        assert wait_for(c, gid, lambda s: s["hint"] is not None)["hint"]["move"]
    engine.close()


def legal_first_moves() -> set[str]:
    return {str(m) for m in Board("Base+MLP").legal_moves}


FAKE_UHP = Path(__file__).resolve().parent / "fake_engines" / "fake_uhp.py"


@pytest.mark.integration
def test_a_superseded_uhp_search_is_stopped_and_its_answer_never_shown(tmp_path):
    """The fake engine never answers a bestmove from ply 1 on: an undo must stop it (its process
    killed, a fresh one started) and the next request must be answered by the fresh one."""
    from hiveai.play.engines import UhpEngine

    pids = tmp_path / "pids"
    asked = threading.Event()  # the bestmove is sent: the search runs in the engine's process
    engine = UhpEngine(f"{sys.executable} {FAKE_UHP} --first --hang-at 1 --pid-file {pids}",
                       log=lambda tag, text: asked.set() if tag == ">" and text.startswith("bestmove") else None)
    with TestClient(create_app(GameStore(tmp_path / "games.sqlite3"), engine)) as c:
        assert engine.wait_ready(60)
        gid = new(c, colour="white", seconds=30)["id"]
        c.post(f"/api/game/{gid}/move", json={"move": "wS1"})
        assert asked.wait(60) and c.get(f"/api/game/{gid}").json()["thinking"] == "move"  # it hangs on its reply
        first = int(pids.read_text().split()[0])
        state = c.post(f"/api/game/{gid}/undo").json()
        assert state["ply"] == 0 and state["thinking"] == "" and not state["error"]
        for _ in range(6000):  # the stopped search's process killed, a fresh one started
            if engine.started == 2 and engine.status == READY:
                break
            threading.Event().wait(0.01)
        assert len(pids.read_text().split()) == 2, (pids.read_text(), engine.started, engine.status)
        with pytest.raises(ProcessLookupError):
            os.kill(first, 0)  # the hung search's process is gone (killed and reaped)
        assert engine.started == 2
        state = c.get(f"/api/game/{gid}").json()
        assert state["ply"] == 0 and state["history"] == [] and not state["error"]  # no stale answer
        # The fresh process answers: a game where it opens (ply 0, before its hang).
        other = new(c, colour="black", seconds=30)["id"]
        assert len(wait_for(c, other, lambda s: s["ply"] == 1)["history"]) == 1
    engine.close()
