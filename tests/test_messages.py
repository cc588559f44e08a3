"""Messages users read: counts in the right number, clamped options, contradictory GameStrings."""

from __future__ import annotations

import pytest

from hiveai.rules.board import Board
from hiveai.errors import HiveError
from hiveai.player import Options
from hiveai.text import plural


def test_plural():
    assert [plural(n, "move") for n in (0, 1, 2)] == ["0 moves", "1 move", "2 moves"]
    assert plural(1, "ply", "plies") == "1 ply" and plural(3, "ply", "plies") == "3 plies"
    assert plural(1234, "node") == "1,234 nodes"


def test_undo_counts_in_the_right_number():
    board = Board("Base")
    with pytest.raises(HiveError, match=r"^Unable to undo 1 move: 0 moves played so far\.$"):
        board.undo(1)
    board.play("wS1")
    with pytest.raises(HiveError, match=r"^Unable to undo 2 moves: 1 move played so far\.$"):
        board.undo(2)


# --- GameStrings whose state and turn contradict their moves --------------------------------------


@pytest.mark.parametrize("text", [
    "Base",
    "Base+MLP",
    "Base;NotStarted;White[1]",
    "base;notstarted;WHITE[1]",  # letter case is free, as everywhere in GameStrings
    "Base;InProgress;Black[1];wS1",
    "Base;InProgress;White[02];wS1;bS1 wS1-",  # a turn number is a number
])
def test_head_agrees(text):
    assert Board.parse(text).head_mismatch(text) is None


@pytest.mark.parametrize("text,message", [
    ("Base;BlackWins;Black[41]",
     "The GameString says BlackWins;Black[41], but its move list (0 moves) gives NotStarted;White[1]."),
    ("Base;InProgress;White[1]",
     "The GameString says InProgress;White[1], but its move list (0 moves) gives NotStarted;White[1]."),
    ("Base;InProgress;White[1];wS1",
     "The GameString says InProgress;White[1], but its move list (1 move) gives InProgress;Black[1]."),
    ("Base;WhiteWins;Black[2];wS1;bS1 wS1-",
     "The GameString says WhiteWins;Black[2], but its move list (2 moves) gives InProgress;White[2]."),
])
def test_head_contradicts(text, message):
    board = Board.parse(text)
    # Mzinga's rule stays: the moves decide the position, the state and turn fields are not used.
    assert board.game_string() == Board.parse(";".join(["Base", "NotStarted", "White[1]", *text.split(";")[3:]])
                                              ).game_string()
    assert board.head_mismatch(text) == message


# --- options: out-of-range numbers are clamped, and the caller is told -----------------------------


@pytest.mark.parametrize("name,text,kept,note", [
    ("TimeUsage", "7", 1.0, 'TimeUsage "7" is outside 0.1 to 1.0: set to 1.0.'),
    ("TimeUsage", "0,01", 0.1, 'TimeUsage "0,01" is outside 0.1 to 1.0: set to 0.1.'),
    ("TranspositionTableSizeMB", "0", 1, 'TranspositionTableSizeMB "0" is outside 1 to 4096: set to 1.'),
    ("TimeMarginMs", "5000", 1000, 'TimeMarginMs "5000" is outside 0 to 1000: set to 1000.'),
    ("TimeUsage", "0.5", 0.5, None),
    ("TimeUsage", "1", 1.0, None),  # the bound itself is in range
    ("UseBook", "false", False, None),
])
def test_option_clamping_is_reported(name, text, kept, note):
    options = Options()
    line, told = options.set(name, text)
    assert options[name] == kept
    assert line == options.line(name) and line.split(";")[2] == str(kept)  # the echoed line shows what was kept
    assert told == note


def test_option_value_that_does_not_parse_changes_nothing():
    options = Options()
    before = options.lines()
    for name, text in [("TimeUsage", "lots"), ("TimeUsage", "nan"), ("TranspositionTableSizeMB", "1.5")]:
        with pytest.raises(ValueError):
            options.set(name, text)
    assert options.lines() == before
