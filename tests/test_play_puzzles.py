"""`hiveai play`'s puzzles through Starlette's in-process client: judging, refutations, hints, ratings,
the history kept in the store across a restart (and a killed server), the filters, and bad requests.

The puzzles are the shipped collection's; each test looks up the puzzles it needs by what they are
(a win in 2, a save), and checks the server's answers against the library's own proofs
(:mod:`hiveai.puzzles`). tests/test_play_browser.py solves puzzles in a real browser.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hiveai import puzzles
from hiveai.play.app import MAX_UPLOAD, create_app
from hiveai.play.engines import READY, EngineSide
from hiveai.play.puzzle_mode import NEAREST, PuzzleMode
from hiveai.play.store import GameStore
from hiveai.puzzles.rating import PUZZLE_RD, Rating


class NoEngine(EngineSide):
    """The puzzles need no engine: a stand-in that is ready and never asked."""

    name = "none"
    status = READY

    def _open(self):
        return self


@pytest.fixture(scope="module")
def collection():
    return puzzles.shipped()


@pytest.fixture(scope="module")
def prover():
    return puzzles.make_prover()


def app(path):
    return TestClient(create_app(GameStore(path), NoEngine(), start_engine=False))


@pytest.fixture
def client(tmp_path):
    with app(tmp_path / "games.sqlite3") as c:
        yield c


def first(collection, **want):
    """The first puzzle of the collection whose attributes are ``want``."""
    return next(p for p in collection if all(getattr(p, k) == v for k, v in want.items()))


def open_puzzle(client, puzzle) -> dict:
    r = client.post("/api/puzzles/next", json={"id": puzzle.id})
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["current"]["puzzle"] == puzzle.id and view["current"]["status"] == "playing"
    return view


def move(client, view, text, **extra):
    return client.post("/api/puzzles/move", json={"attempt": view["current"]["attempt"], "move": text, **extra})


def moved(client, view, text) -> dict:
    r = move(client, view, text)
    assert r.status_code == 200, r.text
    return r.json()


def wrong_move(puzzle, prover) -> tuple[str, list[str]]:
    """A legal first move that is not the solution and does not end the game, and its refutation by the library."""
    for m in puzzle.board().legal_moves:
        after = puzzle.board()
        after.push(m)
        if str(m) != puzzle.solution[0] and not after.is_game_over():
            return str(m), puzzles.try_move(puzzle, [], str(m), prover).refutation
    raise AssertionError(f"{puzzle.id} has no quiet wrong move")


# --- playing a puzzle ---------------------------------------------------------------------------------


def test_the_puzzle_names_the_side_to_move_and_offers_only_its_pieces(client, collection):
    puzzle = first(collection, kind="win", depth=3)
    view = open_puzzle(client, puzzle)
    current = view["current"]
    solver = ("White", "Black")[puzzle.turn]
    assert current["solver"] == solver and current["task"].startswith(f"{solver} to move: surround")
    assert current["gamestring"] == puzzle.board().game_string()
    assert set(current["picks"]) == {m.piece for m in puzzle.board().legal_moves if not m.is_pass}
    assert all(piece[0] == solver[0].lower() for piece in current["picks"])
    # Nothing that gives the answer away is sent while the puzzle is played.
    assert current["solution"] is None and current["themes"] is None and current["puzzle_rating"] is None


def test_a_right_move_is_answered_by_the_best_defence_and_the_last_one_solves(client, collection):
    puzzle = first(collection, kind="win", depth=3)
    view = open_puzzle(client, puzzle)
    assert view["player"]["rating"] == 1500
    view = moved(client, view, puzzle.solution[0])
    current = view["current"]
    assert current["played"] == puzzle.solution[:2]  # the line's defence, as the proof gives it
    assert current["status"] == "playing" and current["picks"]
    assert current["gamestring"].endswith(";".join(puzzle.solution[:2]))
    view = moved(client, view, puzzle.solution[2])
    current = view["current"]
    assert current["status"] == "solved" and current["score"] == 1 and current["picks"] == {}
    assert current["gamestring"].split(";")[1] == ("WhiteWins", "BlackWins")[puzzle.turn]
    assert current["solution"] == puzzle.solution and current["themes"]
    # Glicko-2 as the library computes it: a win against the puzzle's starting rating.
    player, rated = puzzles.attempt(Rating(), Rating(puzzle.rating, PUZZLE_RD), solved=True)
    assert view["player"]["rating"] == round(player.rating) > 1500
    assert current["puzzle_rating"] == round(rated.rating) < puzzle.rating
    assert current["delta"] == round(player.rating - 1500)
    assert view["player"]["streak"] == 1 and view["history"][0]["status"] == "solved"


def test_another_winning_move_later_in_the_line_is_accepted(client, collection, prover):
    """A later move is judged by proof: another move that still forces the surround is right."""
    for puzzle in collection:
        if puzzle.kind != "win" or puzzle.depth < 3:
            continue
        board = puzzle.board()
        board.push(puzzle.solution[0])
        board.push(puzzle.solution[1])
        others = [m for m in puzzles.winning_moves(board, puzzle.depth - 2, prover) if m != puzzle.solution[2]]
        if others:
            break
    else:
        pytest.skip("no puzzle of the collection has a second winning move later in its line")
    view = moved(client, open_puzzle(client, puzzle), puzzle.solution[0])
    view = moved(client, view, others[0])
    assert view["current"]["status"] in ("playing", "solved")
    assert view["current"]["played"][2] == others[0] and view["current"]["wrong"] == ""


def test_a_wrong_move_is_refused_with_its_refutation_and_the_failure_recorded(tmp_path, collection, prover):
    puzzle = first(collection, kind="win", depth=3)
    wrong, refutation = wrong_move(puzzle, prover)
    path = tmp_path / "games.sqlite3"
    with app(path) as client:
        view = moved(client, open_puzzle(client, puzzle), wrong)
        current = view["current"]
        assert current["status"] == "failed" and current["wrong"] == wrong
        assert current["refutation"] == refutation and len(refutation) == 1
        assert current["message"].startswith(f"Not the move: after {wrong}")
        # The board shows the wrong move played and the refutation as an arrow.
        assert current["gamestring"].endswith(";" + wrong) and current["picks"] == {}
        assert f'data-move="{refutation[0]}"' in current["svg"].replace("&quot;", '"')
        # The refutation holds: after it, no surround is forced in the plies the puzzle had left.
        board = puzzle.board()
        board.push(wrong)
        board.push(refutation[0])
        assert puzzles.fastest_win(board, prover, puzzle.depth - 2) is None
        # Failed: a win for the puzzle, at once.
        player, rated = puzzles.attempt(Rating(), Rating(puzzle.rating, PUZZLE_RD), solved=False)
        assert view["player"]["rating"] == round(player.rating) < 1500
        assert current["puzzle_rating"] == round(rated.rating) > puzzle.rating
        assert view["player"]["streak"] == 0 and view["player"]["failed"] == 1
        # The puzzle takes no further move, and its lines can be stepped through.
        again = move(client, view, puzzle.solution[0])
        assert again.status_code == 400 and "over" in again.json()["error"]
        line = client.get("/api/puzzles/line/refutation/2").json()
        assert line["moves"] == [wrong, *refutation] and line["gamestring"].endswith(f"{wrong};{refutation[0]}")
        solution = client.get(f"/api/puzzles/line/solution/{len(puzzle.solution)}").json()
        assert solution["gamestring"].split(";")[1] in ("WhiteWins", "BlackWins")
    stored = GameStore(path).attempts()
    assert [(a.puzzle, a.status, a.wrong, a.score, a.refutation) for a in stored] == [
        (puzzle.id, "failed", wrong, 0.0, refutation)]


def test_a_wrong_move_in_a_save_is_refuted_by_the_opponents_surround(client, collection, prover):
    puzzle = first(collection, kind="save")
    wrong, refutation = wrong_move(puzzle, prover)
    view = moved(client, open_puzzle(client, puzzle), wrong)
    current = view["current"]
    assert current["status"] == "failed" and current["refutation"] == refutation and refutation
    board = puzzle.board()
    board.push(wrong)
    for m in refutation:
        board.push(m)
    assert board.state == ("BlackWins", "WhiteWins")[puzzle.turn]  # the line ends with our queen surrounded


def test_a_save_is_solved_by_its_one_move(client, collection):
    puzzle = first(collection, kind="save")
    view = moved(client, open_puzzle(client, puzzle), puzzle.solution[0])
    assert view["current"]["status"] == "solved" and view["current"]["played"] == [puzzle.solution[0]]
    assert "one move that holds" in view["current"]["message"]


def test_a_hint_lights_the_piece_to_move_and_counts_as_a_miss(client, collection):
    puzzle = first(collection, kind="win", depth=3)
    view = open_puzzle(client, puzzle)
    r = client.post("/api/puzzles/hint", json={"attempt": view["current"]["attempt"]})
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["current"]["hint"] == puzzle.solution[0].split()[0] == puzzles.hint(puzzle, [])
    assert view["current"]["score"] == 0 and view["player"]["rating"] < 1500
    rating = view["player"]["rating"]
    view = client.post("/api/puzzles/hint", json={"attempt": view["current"]["attempt"]}).json()
    assert view["current"]["hint"] == puzzle.solution[0].split()[0] and view["player"]["rating"] == rating
    # The player may still finish it; it stays a miss. A hint lights the piece for the position it was asked in.
    view = moved(client, view, puzzle.solution[0])
    assert view["current"]["hint"] == "" and view["current"]["hinted"] is True
    view = client.post("/api/puzzles/hint", json={"attempt": view["current"]["attempt"]}).json()
    assert view["current"]["hint"] == puzzles.hint(puzzle, puzzle.solution[:2])
    assert view["player"]["rating"] == rating  # a second hint costs nothing more
    view = moved(client, view, puzzle.solution[2])
    assert view["current"]["status"] == "solved" and view["current"]["score"] == 0
    assert view["player"]["rating"] == rating and view["player"]["streak"] == 0
    assert view["history"][0]["hint"] is True


def test_retry_and_a_puzzle_played_before_are_not_rated(client, collection, prover):
    puzzle = first(collection, kind="win", depth=3)
    wrong, _ = wrong_move(puzzle, prover)
    view = moved(client, open_puzzle(client, puzzle), wrong)
    rating = view["player"]["rating"]
    r = client.post("/api/puzzles/retry", json={"attempt": view["current"]["attempt"]})
    assert r.status_code == 200, r.text
    view = r.json()
    assert view["current"]["puzzle"] == puzzle.id and view["current"]["rated"] is False
    assert view["current"]["status"] == "playing" and view["current"]["played"] == []
    view = moved(client, view, puzzle.solution[0])
    view = moved(client, view, puzzle.solution[2])
    assert view["current"]["status"] == "solved" and view["current"]["score"] is None
    assert view["player"]["rating"] == rating
    assert open_puzzle(client, puzzle)["current"]["rated"] is False  # from the history, the same


def test_next_skips_an_unfinished_puzzle_unscored(client, collection):
    puzzle = first(collection, kind="win", depth=3)
    view = moved(client, open_puzzle(client, puzzle), puzzle.solution[0])
    view = client.post("/api/puzzles/next", json={}).json()
    assert view["current"]["puzzle"] != puzzle.id
    assert [(h["puzzle"], h["status"], h["score"]) for h in view["history"][1:]] == [(puzzle.id, "skipped", None)]
    assert view["player"]["rating"] == 1500


def test_the_streak_counts_solves_in_a_row(client, collection, prover):
    wins = [p for p in collection if p.kind == "win" and p.depth == 1][:3]
    for p in wins[:2]:
        view = moved(client, open_puzzle(client, p), p.solution[0])
        assert view["current"]["status"] == "solved"
    assert (view["player"]["streak"], view["player"]["best_streak"]) == (2, 2)
    wrong, _ = wrong_move(wins[2], prover)
    view = moved(client, open_puzzle(client, wins[2]), wrong)
    assert (view["player"]["streak"], view["player"]["best_streak"]) == (0, 2)


# --- choosing ----------------------------------------------------------------------------------------


def test_a_new_puzzle_is_untried_and_near_the_players_rating(tmp_path, collection):
    store = GameStore(tmp_path / "games.sqlite3")
    mode = PuzzleMode(store, rng=random.Random(5))
    seen = set()
    for _ in range(8):
        me = mode.player().rating
        untried = [p for p in collection if p.id not in seen]
        distances = sorted(abs(mode.rating_of(p).rating - me) for p in untried)
        view = mode.act("next", {})
        chosen = view["current"]["puzzle"]
        assert chosen not in seen
        assert abs(mode.rating_of(next(p for p in collection if p.id == chosen)).rating - me) <= distances[NEAREST - 1]
        seen.add(chosen)
        solution = next(p for p in collection if p.id == chosen).solution
        for mv in solution[::2]:  # the line's defence answers each move: the solver's moves are every other
            view = mode.act("move", {"attempt": view["current"]["attempt"], "move": mv})
        assert view["current"]["status"] == "solved"
    assert mode.player().rating > 1500


def test_themes_and_game_types_filter_and_are_kept(client, collection):
    view = client.get("/api/puzzles").json()
    themes = {t[0]: t[2] for t in view["themes"]}
    assert themes["win"] == sum(p.kind == "win" for p in collection)
    assert themes["pillbug-throw"] == sum("pillbug-throw" in p.themes for p in collection) > 0
    assert {"in1", "pin", "beetle-drop", "defence"} <= set(themes)
    by_id = {p.id: p for p in collection}
    view = client.post("/api/puzzles/next", json={"theme": "pillbug-throw", "game_type": ""}).json()
    assert "pillbug-throw" in by_id[view["current"]["puzzle"]].themes
    assert view["filters"] == {"theme": "pillbug-throw", "game_type": ""}
    view = client.post("/api/puzzles/next", json={"theme": "win", "game_type": "Base"}).json()
    chosen = by_id[view["current"]["puzzle"]]
    assert chosen.kind == "win" and chosen.game_type == "Base"
    view = client.post("/api/puzzles/next", json={}).json()  # the filters kept
    assert view["filters"] == {"theme": "win", "game_type": "Base"}
    assert by_id[view["current"]["puzzle"]].game_type == "Base"
    r = client.post("/api/puzzles/next", json={"theme": "pillbug-throw", "game_type": "Base"})  # Base has no pillbug
    assert r.status_code == 400 and "No puzzle has the theme 'Pillbug throw' and the game type Base" in r.json()["error"]
    assert client.get("/api/puzzles").json()["filters"] == {"theme": "win", "game_type": "Base"}


# --- kept in the store ------------------------------------------------------------------------------


def test_the_history_and_ratings_survive_a_restart_on_the_same_store_file(tmp_path, collection, prover):
    path = tmp_path / "games.sqlite3"
    solved = first(collection, kind="win", depth=1)
    failed = first(collection, kind="win", depth=3)
    with app(path) as client:
        moved(client, open_puzzle(client, solved), solved.solution[0])
        view = moved(client, open_puzzle(client, failed), wrong_move(failed, prover)[0])
        client.post("/api/puzzles/next", json={"theme": "pin"})
        before = client.get("/api/puzzles").json()
    assert view["player"] == before["player"]
    with app(path) as client:
        after = client.get("/api/puzzles").json()
    assert after["player"] == before["player"] and after["history"] == before["history"]
    assert after["current"]["attempt"] == before["current"]["attempt"] and after["filters"]["theme"] == "pin"
    assert [h["status"] for h in after["history"]] == ["playing", "failed", "solved"]


# --- bad requests ---------------------------------------------------------------------------------------


def snapshot(client) -> str:
    view = client.get("/api/puzzles").json()
    return json.dumps([view["player"], view["filters"], view["current"], view["history"]], sort_keys=True)


@pytest.mark.parametrize("path, body, words", [
    ("move", {"move": "wA1"}, "Name the attempt"),
    ("move", {"attempt": "1", "move": "wA1"}, "Name the attempt"),
    ("move", {"attempt": True, "move": "wA1"}, "Name the attempt"),
    ("move", {"attempt": 999, "move": "wA1"}, "not the puzzle on the board"),
    ("move", {"attempt": "CURRENT", "move": 7}, "Give a move"),
    ("move", {"attempt": "CURRENT", "move": ""}, "Give a move"),
    ("move", {"attempt": "CURRENT", "move": "w" * 500}, "a few characters"),
    ("move", {"attempt": "CURRENT", "move": "wZ9 -bQ"}, "wZ9"),
    ("move", {"attempt": "CURRENT", "move": "SOLUTION", "ply": 3}, "moved on"),
    ("hint", {}, "Name the attempt"),
    ("retry", {"attempt": 999}, "not the puzzle on the board"),
    ("solve", {}, "Unknown puzzle action"),
    ("next", {"id": "../../etc"}, "hex digits"),
    ("next", {"id": "ffffffffffffffff"}, "No puzzle has an id starting"),
    ("next", {"theme": "checkmate"}, "Unknown theme"),
    ("next", {"theme": ["pin"]}, "Unknown theme"),
    ("next", {"game_type": "Chess"}, "Chess"),
])
def test_a_bad_puzzle_request_is_refused_with_a_message_and_changes_nothing(client, collection, path, body, words):
    puzzle = first(collection, kind="win", depth=3)
    view = open_puzzle(client, puzzle)
    gid = client.post("/api/new", json={"game": "Base", "colour": "people"}).json()["id"]
    game = client.get(f"/api/game/{gid}").json()
    before = snapshot(client)
    body = {k: (view["current"]["attempt"] if v == "CURRENT" else puzzle.solution[0] if v == "SOLUTION" else v)
            for k, v in body.items()}
    r = client.post(f"/api/puzzles/{path}", json=body)
    assert r.status_code == 400 and words in r.json()["error"], r.text
    assert snapshot(client) == before
    assert client.get(f"/api/game/{gid}").json()["gamestring"] == game["gamestring"]


def test_malformed_and_foreign_puzzle_requests_are_refused(client, collection):
    view = open_puzzle(client, first(collection, kind="win", depth=3))
    before = snapshot(client)
    attempt = view["current"]["attempt"]
    cases = [
        (dict(content=b"attempt=1&move=wA1", headers={"Content-Type": "application/x-www-form-urlencoded"}),
         400, "JSON"),
        (dict(content=b"{not json", headers={"Content-Type": "application/json"}), 400, "not valid JSON"),
        (dict(content=b"[1, 2]", headers={"Content-Type": "application/json"}), 400, "JSON object"),
        (dict(content=json.dumps({"attempt": attempt, "move": "x" * (10 << 20)}),
              headers={"Content-Type": "application/json"}), 413, "at most"),
        (dict(json={"attempt": attempt, "move": "wA1"}, headers={"Origin": "http://attacker.example"}), 403,
         "another site"),
        (dict(json={"attempt": attempt, "move": "wA1"}, headers={"Host": "attacker.example:8421"}), 403, "Host"),
    ]
    assert len(cases[3][0]["content"]) > MAX_UPLOAD
    for request, status, words in cases:
        r = client.post("/api/puzzles/move", **request)
        assert r.status_code == status and words in r.json()["error"], (request.get("headers"), r.text)
    assert client.get("/api/puzzles", headers={"Host": "attacker.example:8421"}).status_code == 403
    assert snapshot(client) == before


def test_a_lines_is_shown_only_once_the_puzzle_is_over(client, collection):
    puzzle = first(collection, kind="win", depth=3)
    open_puzzle(client, puzzle)
    r = client.get("/api/puzzles/line/solution/1")
    assert r.status_code == 400 and "once the puzzle is over" in r.json()["error"]
    view = moved(client, open_puzzle(client, puzzle), puzzle.solution[0])
    moved(client, view, puzzle.solution[2])
    assert client.get("/api/puzzles/line/solution/99").status_code == 400
    assert client.get("/api/puzzles/line/refutation/1").status_code == 400  # solved: no refutation
    assert client.get("/api/puzzles/line/secrets/1").status_code == 400


# --- a killed server ------------------------------------------------------------------------------------


@pytest.mark.integration
def test_the_history_survives_a_killed_server(tmp_path, collection):
    """``hiveai play`` killed with SIGKILL just after answering: a new one on the same store has it all."""
    db = tmp_path / "games.sqlite3"
    puzzle = first(collection, kind="win", depth=1)

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    from screenshots import PlayServer  # hiveai play in a child process, and its JSON API

    board = PlayServer(["--db", str(db)])
    try:
        view = board.call("/api/puzzles/next", {"id": puzzle.id})
        view = board.call("/api/puzzles/move", {"attempt": view["current"]["attempt"], "move": puzzle.solution[0]})
        assert view["current"]["status"] == "solved"
    finally:
        os.kill(board.proc.pid, signal.SIGKILL)
        board.proc.wait()
        board.proc.stderr.close()
    board = PlayServer(["--db", str(db)])
    try:
        again = board.call("/api/puzzles")
    finally:
        board.close()
    assert again["player"] == view["player"] and again["history"] == view["history"]
