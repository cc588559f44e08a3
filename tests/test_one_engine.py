"""One engine behind every front end (hiveai.player.Engine).

Same options, same position, same limit: the same move whichever front end asks. At a fixed
depth with one thread the search is deterministic, so a real UHP process (``bestmove depth N``),
the board in the browser (its HTTP and WebSocket API, in-process: the analysis it streams at
depth N) and ``think()`` must agree on the move and its score. The position is out of the book
(checked), the book left on: the options are the defaults but for NumThreads, which is 1
everywhere. The table is 64 MB everywhere (UHP's and the board's default; think() is given an
Engine with the default size, since its own fresh engine takes 16 MB and a table of another size
may replace other entries).

The board's engine is the engine a GUI gets: at level 10 it plays from the book.
The Engine's own API is tested after that.
"""

from __future__ import annotations

import random
import re
import threading
import time

import pytest
from starlette.testclient import TestClient
from uhp_client import MIDGAME

from hiveai.play.engines import InProcessEngine
from hiveai.play.app import create_app
from hiveai.play.store import GameStore
from hiveai.player import MAX_LEVEL, Engine, think
from hiveai.player import book
from hiveai.rules.board import Board
from hiveai.search.score import format_score, int_score
from hiveai.search.timeman import Limit, StopHandle

DEPTH = 4
# UHP's Info line for a searched bestmove (hiveai.uhp.server.cmd_bestmove), on stderr.
BESTMOVE_LOG = re.compile(r"INFO: bestmove (\S+(?: \S+)?) score (-?\d+) depth (\d+) nodes (\d+)")
# How long a test waits for the board's engine (a cold numba cache compiles first): a hang guard only.
WAIT_SECONDS = 180.0


def out_of_book(game_string: str) -> Board:
    board = Board.parse(game_string)
    assert book.lookup(board) is None, "the position must be out of the book: pick another"
    return board


def uhp_move(start, game_string: str, depth: int) -> tuple[str, int, int]:
    """``bestmove depth N`` of a real UHP process with one thread: (move, score, nodes), the
    score and nodes from its Info line on stderr."""
    e = start()
    for line in ("NumThreads 1", "LogLevel Info"):
        assert not e.cmd1(f"options set {line}").startswith("err")
    e.cmd1(f"newgame {game_string}")
    move = e.cmd1(f"bestmove depth {depth}", 120)
    deadline = time.monotonic() + 30  # another thread reads stderr: the line may come after the reply
    while not (found := BESTMOVE_LOG.search(e.stderr_text())) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert found, e.stderr_text()[-2000:]
    logged, score, searched, nodes = found.groups()
    assert logged == move and int(searched) == depth
    return move, int(score), int(nodes)


def board_analysis_at(client: TestClient, game_string: str, depth: int) -> dict:
    """The board's analysis line at ``depth`` (one line asked for), as its WebSocket sends it."""
    r = client.post("/api/new", json={"game": "Base+MLP", "colour": "people", "gamestring": game_string})
    assert r.status_code == 200, r.text
    gid = r.json()["id"]
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.receive_json()
        client.post(f"/api/game/{gid}/analyse", json={"on": True, "lines": 1})
        seen = []
        while not seen or seen[-1]["depth"] < depth:
            state = ws.receive_json()
            if state["analysis"] and (not seen or state["analysis"]["depth"] != seen[-1]["depth"]):
                seen.append(state["analysis"])
        client.post(f"/api/game/{gid}/analyse", json={"on": False})
    at = [a for a in seen if a["depth"] == depth]
    assert at, f"depth {depth} was never sent: {[a['depth'] for a in seen]}"
    return at[0]["lines"][0]


def test_uhp_the_board_and_think_give_the_same_move_at_a_fixed_depth(fresh_engine, tmp_path):
    board = out_of_book(MIDGAME)
    move, score, nodes = uhp_move(fresh_engine, MIDGAME, DEPTH)
    with TestClient(create_app(GameStore(tmp_path / "games.sqlite3"), InProcessEngine(threads=1))) as client:
        line = board_analysis_at(client, MIDGAME, DEPTH)
    result = think(board, Limit(depth=DEPTH), engine=Engine())
    assert (result.move_string, int_score(result.score)) == (move, score)
    assert result.nodes == nodes  # not just the move: the same search
    assert (line["pv"][0], line["score"]) == (move, format_score(score))


def test_the_boards_first_move_at_level_10_comes_from_the_book(tmp_path):
    """The board opens at level 10 with the book's weighted choice, drawn as the engine draws it: a
    seeded engine plays, game after game, the moves a book drawing with the same seed gives, which
    vary (a search would not)."""
    seed, games = 11, 4
    rng = random.Random(seed)
    expected = [str(book.book_move(Board("Base+MLP"), rng=rng)) for _ in range(games)]
    assert len(set(expected)) > 1, "pick a seed whose draws vary"
    engine = Engine(hash_mb=16, seed=seed)
    played = []
    with TestClient(create_app(GameStore(tmp_path / "games.sqlite3"), InProcessEngine(engine=engine))) as client:
        for _ in range(games):
            r = client.post("/api/new", json={"game": "Base+MLP", "colour": "black", "level": MAX_LEVEL})
            assert r.status_code == 200, r.text
            gid = r.json()["id"]
            deadline = time.monotonic() + WAIT_SECONDS
            while (state := client.get(f"/api/game/{gid}").json())["ply"] < 1:
                assert time.monotonic() < deadline and not state["error"], state
                time.sleep(0.01)
            played.append(state["history"][0])
    assert played == expected
    assert set(played) <= {str(m.move) for m in book.lookup(Board("Base+MLP")) if m.weight > 0}


# --- the Engine's own API -----------------------------------------------------------------------


def test_play_takes_the_book_at_level_10_and_analyse_never_does():
    board = Board("Base+MLP")
    engine = Engine(hash_mb=16, seed=1)
    from_book = engine.play(board, Limit(depth=3))
    assert from_book.source == "book" and from_book.score is None and from_book.depth == 0
    assert from_book.move in {m.move for m in book.lookup(board) if m.weight > 0}
    analysed = engine.analyse(board, Limit(depth=3))
    assert analysed.source == "search" and analysed.depth == 3 and analysed.score is not None
    engine.configure({"UseBook": False})
    assert engine.play(board, Limit(depth=3)).source == "search"
    engine.configure({"UseBook": True, "Level": 2})
    assert engine.play(board, Limit(depth=30)).source == "level"  # the weak levels skip the book


def test_the_same_engine_plays_and_analyses_as_think_at_full_strength():
    board = out_of_book(MIDGAME)
    engine = Engine(hash_mb=16)
    played = engine.play(board, Limit(depth=3))
    engine.new_game()
    analysed = engine.analyse(board, Limit(depth=3))
    thought = think(board, Limit(depth=3))
    assert (played.move, played.score, played.nodes) == (analysed.move, analysed.score, analysed.nodes) \
        == (thought.move, thought.score, thought.nodes)


def test_new_game_forgets_what_the_table_learnt():
    board = out_of_book(MIDGAME)
    engine = Engine(hash_mb=16)
    first = engine.analyse(board, Limit(depth=3)).nodes
    assert engine.analyse(board, Limit(depth=3)).nodes < first  # the table remembers
    engine.new_game()
    assert engine.analyse(board, Limit(depth=3)).nodes == first


def test_an_empty_limit_searches_until_stopped_and_plays_no_book_move():
    board = Board("Base+MLP")  # in the book, but an empty limit is analysis
    engine = Engine(hash_mb=16)
    timer = threading.Timer(0.3, engine.stop)
    timer.start()
    result = engine.play(board, Limit())
    timer.join()
    assert result.source == "search" and result.depth >= 1 and result.move in board.legal_moves
    handle = StopHandle()
    threading.Timer(0.3, handle.stop).start()
    assert engine.analyse(board, Limit(), stop=handle).depth >= 1 and handle.is_set()
    engine.stop()  # no search running: nothing to stop, and the next search is not stopped
    assert engine.analyse(board, Limit(depth=2)).depth == 2


def test_options_from_python_are_checked_and_from_text_clamped():
    engine = Engine(hash_mb=1)
    with pytest.raises(KeyError, match="NoSuchOption"):
        engine.configure({"NoSuchOption": 1})
    for name, bad in (("Level", "5"), ("UseBook", 1), ("TimeUsage", 2.0), ("PonderDuringIdle", "Always"),
                      ("TranspositionTableSizeMB", 0)):
        with pytest.raises(ValueError, match=name):
            engine.configure({name: bad})
    assert engine.options["Level"] == MAX_LEVEL and engine.options["UseBook"] is True
    assert engine.set_option("level", "0") == ("Level;int;1;10;1;10", 'Level "0" is outside 1 to 10: set to 1.')
    engine.configure({"ponderduringidle": "singlethreaded", "TimeUsage": 1})
    assert engine.options["PonderDuringIdle"] == "SingleThreaded" and engine.options["TimeUsage"] == 1.0
    with pytest.raises(ValueError, match="not a valid value"):
        engine.set_option("UseBook", "maybe")


def test_a_bad_eval_file_keeps_the_evaluation_in_use(tmp_path):
    engine = Engine(hash_mb=1, eval_file="<linear>")
    assert engine.network_for("Base+MLP") is None
    broken = tmp_path / "broken.ini"
    broken.write_text("[*]\nno_such_weight = 3\n")
    with pytest.raises(ValueError, match=r"^EvalFile: .*broken\.ini.*; the evaluation in use is unchanged\.$"):
        engine.load_eval_file(broken)
    assert engine.options["EvalFile"] == "<linear>" and engine.network_for("Base+MLP") is None
    engine.configure({"EvalFile": "<built-in>"})
    assert engine.network_for("Base+MLP") is not None and engine.network_for("Base") is None


def test_a_table_of_a_new_size_is_made_in_the_background_once_warmed():
    engine = Engine(hash_mb=1)
    engine.configure({"TranspositionTableSizeMB": 2})
    assert engine.searcher is None  # nothing made before it is needed
    engine.warm()
    assert engine.searcher.tt_mb == 2
    engine.set_option("TranspositionTableSizeMB", "1")
    engine.ready()
    assert engine.searcher.tt_mb == 1


def test_pondering_predicts_after_a_search_and_a_ponder_hit_is_taken_over():
    board = out_of_book(MIDGAME)
    engine = Engine(hash_mb=16)
    engine.configure({"PonderDuringIdle": "SingleThreaded"})
    result = engine.play(board, Limit(depth=3))
    assert len(result.pv) >= 2
    game = board.copy()
    game.push(result.move)
    engine.ponder(game)  # our move played: the reply the line expects is pondered meanwhile
    game.push(result.pv[1])  # the predicted reply
    hit = engine.play(game, Limit(time=0.5))
    assert hit.source == "search" and hit.move in game.legal_moves and hit.depth >= 1
    engine.stop_pondering()
    engine.configure({"PonderDuringIdle": "Disabled"})
    engine.ponder(game)  # disabled: nothing starts
    assert engine.analyse(game, Limit(depth=1)).depth == 1
