"""Game records (hiveai.records): the shared Mzinga PGN files read, replay and
write back byte for byte; records hiveai writes read back equal; malformed
files fail with the file and line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from hiveai.rules.board import Board
from hiveai.records import GameRecord, GameRecordError, read_game, read_games, write_game

# Copies of three real game records from Mzinga's test assets (https://github.com/jonthysell/Mzinga).
SHARED = Path(__file__).parent / "data" / "games"
RECORDS = sorted(SHARED.glob("*.pgn"))
# (file, game type, plies, recorded result, state of the final position by the rules)
EXPECTED = {
    "HV-Abbo69-WeakBot-2018-10-28-2007.pgn": ("Base+MLP", 31, "WhiteWins", "WhiteWins"),
    "HV-Dumbot-guest-2018-10-31-1402.pgn": ("Base", 94, "Draw", "InProgress"),
    "HV-Jewdoka-Quodlibet-2020-12-08-2330.pgn": ("Base+MLP", 66, "Draw", "InProgress"),
}


def test_the_three_shared_records_are_there():
    assert sorted(p.name for p in RECORDS) == sorted(EXPECTED)


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_shared_record_reads_and_replays(path):
    game_type, plies, result, final_state = EXPECTED[path.name]
    record = read_game(path)
    assert (record.game_type, len(record.moves), record.result) == (game_type, plies, result)
    board = record.to_board()
    assert board.ply == plies and board.state == final_state
    assert record.tags["White"] and record.tags["Black"] and record.tags["SgfGameName"]
    # Our canonical spelling of every move names the same move as the file's.
    replay = Board(game_type)
    for written in record.moves:
        replay.play(written)
    assert replay.game_string() == board.game_string()


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_shared_record_writes_back_byte_for_byte(path):
    assert read_game(path).to_pgn() == path.read_text()


def test_record_from_a_board_reads_back_identically(tmp_path):
    board = Board.from_game_string(
        "Base+MLP;InProgress;White[5];wL;bS1 /wL;wQ wL-;bM /bS1;wA1 wQ/;bQ bM\\;wA1 bQ-;bA1 \\bM")
    record = GameRecord.from_board(board, result="BlackWins",
                                   tags={"White": "d1", "Black": "d2", "Termination": "time forfeit"},
                                   comments={0: "an opening comment", 3: "a note\non two lines"})
    for name in ("game.pgn", "game.txt"):
        write_game(record, tmp_path / name)
    back = read_game(tmp_path / "game.pgn")
    assert back == record
    assert back.to_pgn() == (tmp_path / "game.pgn").read_text()
    assert back.to_board().game_string() == board.game_string()
    # A GameString keeps moves and result (tags do not fit in one).
    from_gs = read_game(tmp_path / "game.txt")
    assert (from_gs.moves, from_gs.result, from_gs.game_type) == (record.moves, "BlackWins", "Base+MLP")
    assert read_game(from_gs.game_string()) == from_gs


def test_pgn_layout_is_mzingas():
    board = Board("Base")
    for m in ("wS1", "bS1 wS1-", "wQ -wS1"):
        board.play(m)
    text = GameRecord.from_board(board, result="WhiteWins", tags={"White": "a", "Extra": "x"}).to_pgn()
    assert text.splitlines() == [
        '[GameType "Base"]', '[Date ""]', '[Event ""]', '[Site ""]', '[Round ""]', '[White "a"]', '[Black ""]',
        '[Result "WhiteWins"]', '[Extra "x"]', "", "1. wS1", "2. bS1 wS1-", "3. wQ -wS1", "", "WhiteWins"]
    # An unfinished game has no result line.
    assert GameRecord.from_board(board).to_pgn().rstrip().endswith("3. wQ -wS1")


def test_game_string_file_with_many_games(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# openings\nBase;NotStarted;White[1]\n\nBase+M;InProgress;Black[1];wM\n")
    games = read_games(path)
    assert [g.game_type for g in games] == ["Base", "Base+M"]
    assert games[1].moves == ["wM"]
    with pytest.raises(GameRecordError, match="expected one game, found 2"):
        read_game(path)


def test_lenient_reading_like_mzinga():
    # No move numbers, odd spacing, lower-case result line, a comment.
    text = '[GameType "Base"]\n[Result "InProgress"]\n\nwS1\n{opening}\n2.   bS1   wS1-\n\ndraw\n'
    record = read_game(text)
    assert record.moves == ["wS1", "bS1 wS1-"] and record.result == "Draw" and record.comments == {1: "opening"}
    # Without any Result, the final position decides (Mzinga does the same).
    assert read_game('[GameType "Base"]\n\n1. wS1\n').result == "InProgress"


@pytest.mark.parametrize("text, where, what", [
    ('[GameType "Base"]\n\n1. wS1\n2. bQ wS1-\n', "<text>:4:", "Queen Bee on your first turn"),
    ('[GameType "Base"]\n\n1. wS1\n3. bS1 wS1-\n', "<text>:4:", "move number 3, expected 2"),
    ('[GameType "Base+X"]\n', "<text>:1:", 'Unknown game type "Base+X"'),
    ('[GameType "Base"]\n[Result "Foo"]\n\n1. wS1\n', "<text>:2:", 'unknown result "Foo"'),
    ('[GameType "Base"]\n[White Bob]\n', "<text>:2:", "malformed tag"),
    ('[GameType "Base"]\n\n1. wS1\n{never closed\n', "<text>:4:", "never closed"),
    ('[GameType "Base"]\n\n1. wS1\n\nWhiteWins\n2. bS1 wS1-\n', "<text>:6:", "after the result"),
    ("Base;InProgress;White[2];wS1;bS1 wQ-", "<text>:1:", "not on the board"),
])
def test_malformed_records_name_the_line(text, where, what):
    with pytest.raises(GameRecordError) as e:
        read_game(text)
    assert str(e.value).startswith(where) and what in str(e.value)


def test_errors_in_files_name_the_file(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("Base;NotStarted;White[1]\nBase;InProgress;White[1];wQ\n")
    with pytest.raises(GameRecordError, match=r"bad\.txt:2: move 1 \('wQ'\): You can't play your Queen Bee"):
        read_games(path)
    with pytest.raises(GameRecordError, match="no such file"):
        read_game(tmp_path / "missing.pgn")
