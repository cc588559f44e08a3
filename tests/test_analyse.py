"""``hiveai analyse``: position analysis and game review, through the CLI and directly.

Every expectation is checked against the rules (Board) and the search itself,
not against stored output: PV moves must be legal, the best move must be the
search's at the same depth, a game review must cover every move.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from hiveai.analysis.analyse import (
    BLUNDER_LOSS,
    BLUNDER_MARK,
    BOOK_MARK,
    MISTAKE_LOSS,
    MISTAKE_MARK,
    review_game,
)
from hiveai.rules.board import Board, Move
from hiveai.cli import main
from hiveai.records import GameRecord, read_game
from hiveai.analysis.render import render_board
from hiveai.player import think
from hiveai.search.score import int_score
from hiveai.search.timeman import Limit

DATA = Path(__file__).parent / "data"
GAMES = sorted((DATA / "games").glob("*.pgn"))
POSITIONS = dict(
    line.split("\t")[0::2]
    for line in (DATA / "uhp" / "positions.tsv").read_text().splitlines()
    if line and not line.startswith("#")
)
# A Base+MLP middle game: 16 plies of a real game (stacks, pillbugs, ladybug on the board).
MIDGAME_RECORD = read_game(next(p for p in GAMES if "Abbo69" in p.name))
MIDGAME = Board(MIDGAME_RECORD.game_type)
for _m in MIDGAME_RECORD.moves[:16]:
    MIDGAME.play(_m)
MIDGAME_GS = MIDGAME.game_string()


def run(*args: str) -> tuple[int, str]:
    """Exit code and output of ``hiveai analyse ARGS``; fails on a traceback."""
    result = CliRunner().invoke(main, ["analyse", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines()]


def legal(board: Board, move_string: str) -> Move:
    """The legal move a MoveString names (raises if it is not legal)."""
    return board.parse_move(move_string)


def rewind(gs: str, plies: int) -> list[str]:
    """Moves of GameString ``gs`` without its last ``plies``."""
    moves = gs.split(";")[3:]
    return moves[: len(moves) - plies]


# --- one position ----------------------------------------------------------------


def test_json_iterations_and_best_move_match_the_search():
    code, out = run(MIDGAME_GS, "--depth", "3", "--json")
    assert code == 0
    objs = json_lines(out)
    infos, final = objs[:-1], objs[-1]
    assert [i["depth"] for i in infos] == [1, 2, 3]
    for info in infos:
        assert info["type"] == "info" and info["multipv"] == 1 and info["nodes"] > 0
        assert 1 <= len(info["pv"]) <= info["depth"]
        line = MIDGAME.copy()
        for move in info["pv"]:  # the whole PV plays legally
            line.play(move)
    expected = think(MIDGAME, Limit(depth=3))
    assert final["type"] == "bestmove" and final["depth"] == 3
    assert final["move"] == expected.move_string and final["score"] == int_score(expected.score)
    assert final["pv"][0] == final["move"] == infos[-1]["pv"][0]
    assert final["gamestring"] == MIDGAME_GS


def test_text_shows_picture_iterations_and_best_move():
    code, out = run(MIDGAME_GS, "--depth", "3", "--no-color")
    assert code == 0
    assert render_board(MIDGAME) in out
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("depth"))
    assert lines[head].split() == ["depth", "score", "nodes", "nodes/s", "time", "pv"]
    rows = [line.split() for line in lines[head + 1: head + 4]]
    assert [int(r[0]) for r in rows] == [1, 2, 3]
    for r in rows:
        legal(MIDGAME, " ".join(r[5:7]))  # the PV's first move
    best = think(MIDGAME, Limit(depth=3)).move_string
    assert f"best move: {best}  (" in out


def test_multipv_gives_k_distinct_legal_moves_best_first():
    k = 4
    code, out = run(MIDGAME_GS, "--depth", "2", "--multipv", str(k), "--json")
    assert code == 0
    objs = json_lines(out)
    assert [(o["depth"], o["multipv"]) for o in objs[:-1]] == [(d, i) for d in (1, 2) for i in range(1, k + 1)]
    lines = objs[-1]["lines"]
    assert len(lines) == k
    moves = {legal(MIDGAME, ln["move"]) for ln in lines}
    assert len(moves) == k
    scores = [ln["score"] for ln in lines]
    assert scores == sorted(scores, reverse=True)
    assert objs[-1]["move"] == lines[0]["move"]
    code, text = run(MIDGAME_GS, "--depth", "2", "--multipv", str(k))
    assert f"{k} best moves:" in text
    listed = text.split(f"{k} best moves:")[1].splitlines()[1:]
    assert [line.split()[1:3] for line in listed] == [ln["move"].split() for ln in lines]


def test_game_type_starts_from_the_empty_board():
    code, out = run("Base+MLP", "--depth", "1", "--json")
    assert code == 0
    final = json_lines(out)[-1]
    assert final["gamestring"] == "Base+MLP;NotStarted;White[1]"
    assert legal(Board("Base+MLP"), final["move"]) is not None


def test_finished_game_shows_picture_and_result():
    gs = POSITIONS["end_WhiteWins"]
    code, out = run(gs, "--depth", "2")
    assert code == 0 and "game over: WhiteWins" in out and "best move" not in out
    code, out = run(gs, "--json")
    assert code == 0 and json_lines(out) == [
        {"type": "gameover", "gamestring": Board.parse(gs).game_string(), "state": "WhiteWins"}]


def test_time_limit_and_colour():
    code, out = run(MIDGAME_GS, "--time", "0.2", "--json")
    assert code == 0 and json_lines(out)[-1]["type"] == "bestmove"
    legal(MIDGAME, json_lines(out)[-1]["move"])
    _, coloured = run(MIDGAME_GS, "--depth", "1", "--color")
    _, plain = run(MIDGAME_GS, "--depth", "1")  # not a terminal: no colour by default
    assert "\x1b[" in coloured and "\x1b[" not in plain


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize("args, words", [
    (["Base;InProgress;White[2];wS1;bQ wS1-"], ['Unable to play "bQ wS1-"', "Queen"]),
    (["Base+X"], ['Unknown game type "Base+X"']),
    (["Base;Nonsense;White[1]"], ['unknown game state "Nonsense"']),
    (["Base;InProgress;White[2];wS1;bS1 xx"], ['unknown piece "xx"']),
    (["--depth", "0"], ["--depth"]),
    (["--time", "0"], ["--time"]),
    (["--multipv", "0"], ["--multipv"]),
    (["--depth", "x"], ["'x' is not a valid integer"]),
])
def test_bad_position_or_option_names_the_problem(args, words):
    code, out = run(*args)
    assert code != 0
    for w in words:
        assert w in out


def test_bad_game_file_names_the_problem(tmp_path):
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("this is not a game\n")
    code, out = run("--game", str(garbage))
    assert code != 0 and "garbage.txt" in out and "Malformed GameString" in out

    pgn = MIDGAME_RECORD.to_pgn().replace("4. bB1 -bL", "4. bQ wQ-")
    bad = tmp_path / "bad.pgn"
    bad.write_text(pgn)
    code, out = run("--game", str(bad))
    line = pgn.splitlines().index("4. bQ wQ-") + 1
    assert code != 0 and f"bad.pgn:{line}: move 4 ('bQ wQ-')" in out

    binary = tmp_path / "x.pgn"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, out = run("--game", str(binary))
    assert code != 0 and "x.pgn" in out

    for args, words in [
        (["--game", str(tmp_path / "missing.pgn")], ["does not exist"]),
        (["--game", str(tmp_path)], ["is a directory"]),
        (["--game", str(GAMES[0]), "Base"], ["either a position or --game"]),
        (["--game", str(GAMES[0]), "--multipv", "2"], ["--multipv"]),
    ]:
        code, out = run(*args)
        assert code != 0 and all(w in out for w in words), out


# --- game review ----------------------------------------------------------------------


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_game_review_has_one_entry_per_move(path):
    record = read_game(path)
    code, out = run("--game", str(path), "--depth", "2", "--json")
    assert code == 0
    objs = json_lines(out)
    moves, summary = objs[:-1], objs[-1]
    assert len(moves) == len(record.moves)
    board = record.to_board()
    assert [m["move"] for m in moves] == board.move_history
    assert [m["number"] for m in moves] == list(range(1, len(record.moves) + 1))
    replay = Board(record.game_type)
    for m in moves:
        assert m["colour"] == ("White", "Black")[replay.turn]
        legal(replay, m["best"])
        if m["engine_move"]:
            assert m["best"] == m["move"] and m["loss"] == 0
        expect = BLUNDER_MARK if m["loss"] >= BLUNDER_LOSS else MISTAKE_MARK if m["loss"] >= MISTAKE_LOSS else ""
        assert m["mark"] == expect
        replay.play(m["move"])
    assert summary["type"] == "summary"
    assert summary["white"]["moves"] + summary["black"]["moves"] == len(record.moves)
    for side, colour in (("white", "White"), ("black", "Black")):
        mine = [m for m in moves if m["colour"] == colour]
        assert summary[side]["blunders"] == sum(m["mark"] == BLUNDER_MARK for m in mine)
        assert summary[side]["mistakes"] == sum(m["mark"] == MISTAKE_MARK for m in mine)
    assert summary["final_state"] == board.state and summary["recorded_result"] == record.result


def test_game_review_text():
    path = next(p for p in GAMES if "Abbo69" in p.name)  # 31 moves, ends WhiteWins
    code, out = run("--game", str(path))  # default depth 3
    assert code == 0
    lines = out.splitlines()
    assert "Abbo69 - WeakBot" in lines[0] and lines[1].startswith("depth 3 per position")
    numbered = [line for line in lines if line[:4].strip().rstrip(".").isdigit()]
    assert len(numbered) == 31
    assert numbered[-1].split()[-2:] == ["won", "="]  # the winning move, the engine's too
    assert any(line.startswith("summary") for line in lines)
    assert lines[-1] == "final position: WhiteWins"


def _wins(board: Board, reply: Move) -> bool:
    """Whether ``reply`` ends the game in the mover's favour."""
    mover = ("White", "Black")[board.turn]
    board.push(reply)
    won = board.state == f"{mover}Wins"
    board.pop()
    return won


def _lets_opponent_win(board: Board, move: Move) -> bool:
    board.push(move)
    lost = any(_wins(board, reply) for reply in board.legal_moves)
    board.pop()
    return lost


def test_a_move_that_lets_the_queen_be_surrounded_is_a_blunder():
    gs = POSITIONS["end_WhiteWins"]  # rewound 2 plies: Black can lose at once, or not
    start = rewind(gs, 2)
    board = Board.from_game_string(";".join(gs.split(";")[:3] + start))
    losing = [m for m in board.legal_moves if _lets_opponent_win(board, m)]
    assert losing and len(losing) < len(board.legal_moves)
    blunder = str(losing[0])
    board.push(losing[0])
    win = next(str(r) for r in board.legal_moves if _wins(board, r))
    record = GameRecord(board.game_type_string, start + [blunder, win])
    reviews = list(review_game(record, depth=2))
    assert len(reviews) == len(record.moves)
    bad, last = reviews[-2], reviews[-1]
    assert str(bad.move) == blunder and bad.mark == BLUNDER_MARK and bad.loss >= BLUNDER_LOSS
    assert bad.after_text == "loss in 1" and not bad.engine_move
    assert last.after_text == "won" and last.state_after == "WhiteWins"


def test_book_moves_are_marked_and_the_book_is_optional(monkeypatch, tmp_path):
    record = GameRecord(MIDGAME_RECORD.game_type, MIDGAME_RECORD.moves[:4])
    first = Board(record.game_type).parse_move(record.moves[0])

    def lookup(board):
        """A one-entry book: the record's first move from the empty board."""
        return [types.SimpleNamespace(move=first, weight=1)] if board.ply == 0 else None

    fake = types.ModuleType("hiveai.player.book")
    fake.lookup = lookup
    monkeypatch.setitem(sys.modules, "hiveai.player.book", fake)
    reviews = list(review_game(record, depth=1))
    assert [r.book for r in reviews] == [True, False, False, False]
    assert reviews[0].loss == 0 and reviews[0].mark == ""

    pgn = tmp_path / "short.pgn"
    pgn.write_text(record.to_pgn())
    code, out = run("--game", str(pgn), "--depth", "1")
    assert code == 0
    first_line = next(line for line in out.splitlines() if line.startswith("  1."))
    assert first_line.endswith(BOOK_MARK)
    assert "book moves                       1       0" in out

    monkeypatch.setitem(sys.modules, "hiveai.player.book", None)  # no book module at all
    assert [r.book for r in review_game(record, depth=1)] == [False] * 4


def test_threads_option():
    code, out = run("Base+MLP", "--depth", "3", "--threads", "2", "--json")
    assert code == 0
    assert json_lines(out)[-1]["type"] == "bestmove" and json_lines(out)[-1]["depth"] == 3
    code, out = run("Base", "--threads", "0")
    assert code != 0 and "--threads" in out
