"""What a UHP user reads: error texts, notes on stderr, and Mzinga's leniency kept.

Against a real ``hiveai`` process: stdout must carry only the protocol reply,
the notes go to stderr.
"""

from __future__ import annotations

import time

from uhp_client import Engine

from hiveai.player import DEFAULT_TT_MB, MIN_TT_MB
from hiveai.search.timeman import REPLY_MARGIN, TIME_USAGE

UHP_SPEC = "https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol"
TIME_MARGIN_MS = round(REPLY_MARGIN * 1000)  # TimeMarginMs's default (hiveai/player/__init__.py)


def stderr_after(engine: Engine, mark: int, text: str, timeout: float = 10.0) -> str:
    """stderr written since ``mark`` (a length of ``stderr_text()``), once it contains ``text``."""
    deadline = time.monotonic() + timeout
    while True:
        new = engine.stderr_text()[mark:]
        if text in new or time.monotonic() > deadline:
            return new
        time.sleep(0.02)


def test_invalid_command_names_the_commands_and_the_public_spec(engine):
    reply = engine.cmd1("frobnicate")
    assert reply == ("err Invalid command. The commands are info, newgame, play, pass, validmoves, bestmove, "
                     f"undo, options and exit; see {UHP_SPEC}")


def test_undo_messages(engine):
    engine.cmd1("newgame Base")
    assert engine.cmd1("undo") == "err Unable to undo 1 move: 0 moves played so far."
    engine.cmd1("play wS1")
    assert engine.cmd1("undo 2") == "err Unable to undo 2 moves: 1 move played so far."
    assert engine.cmd1("undo x") == "err Unable to undo 'x': expected a whole number of moves."


def test_clamped_option_is_echoed_and_noted_on_stderr(engine):
    """Mzinga clamps out-of-range numbers and echoes the value kept (MzingaViewer relies on it); hiveai also
    says so on stderr."""
    mark = len(engine.stderr_text())
    try:
        # TimeUsage ranges over 0.1 to 1.0 (hiveai/player/__init__.py): 7 is set to the top.
        assert engine.cmd("options set TimeUsage 7") == [f"TimeUsage;double;1.0;{TIME_USAGE};0.1;1.0"]
        note = 'TimeUsage "7" is outside 0.1 to 1.0: set to 1.0.'
        assert note in stderr_after(engine, mark, note)
        assert engine.cmd("options set TranspositionTableSizeMB 0")[0].split(";")[2] == str(MIN_TT_MB)
    finally:
        engine.cmd(f"options set TimeUsage {TIME_USAGE}")
        engine.cmd(f"options set TranspositionTableSizeMB {DEFAULT_TT_MB}")


def test_contradictory_game_string_is_accepted_with_a_warning(engine):
    """Mzinga ignores the state and turn of a GameString and replays its moves (Board.ParseGameString);
    so does hiveai, and it warns on stderr."""
    mark = len(engine.stderr_text())
    assert engine.cmd("newgame Base;BlackWins;Black[41]") == ["Base;NotStarted;White[1]"]
    warning = "The GameString says BlackWins;Black[41], but its move list (0 moves) gives NotStarted;White[1]."
    assert warning in stderr_after(engine, mark, warning)
    assert "as Mzinga does" in engine.stderr_text()[mark:]
    assert engine.cmd1("validmoves").split(";")[0] in ("wS1", "wB1", "wG1", "wA1")  # the empty board is in play


def test_consistent_game_string_gets_no_warning(engine):
    mark = len(engine.stderr_text())
    assert engine.cmd1("newgame Base;InProgress;White[2];wS1;bS1 wS1-") == "Base;InProgress;White[2];wS1;bS1 wS1-"
    # stderr is written in order: once the note of a later command has arrived, any warning would have too.
    engine.cmd1("options set TimeMarginMs 99999")
    new = stderr_after(engine, mark, "TimeMarginMs")
    engine.cmd1(f"options set TimeMarginMs {TIME_MARGIN_MS}")
    assert "TimeMarginMs" in new and "GameString" not in new


def test_eval_file_loads_weights_and_a_bad_one_changes_nothing(engine, tmp_path):
    good = tmp_path / "good.ini"
    good.write_text("[*]\ntempo = 20\n")
    assert not any(line.startswith("EvalFile") for line in engine.cmd("options"))  # UHP has no string type
    assert engine.cmd1(f"options set EvalFile {good}") == f"EvalFile;string;{good};<built-in>"
    missing = tmp_path / "missing.ini"
    reply = engine.cmd1(f"options set EvalFile {missing}")
    assert reply.startswith("err EvalFile: cannot read weights file") and str(missing) in reply
    broken = tmp_path / "broken.ini"
    broken.write_text("[*]\ntempo = lots\n")
    reply = engine.cmd1(f"options set EvalFile {broken}")
    assert reply.startswith("err EvalFile:") and "broken.ini" in reply and "not a whole number" in reply
    assert engine.cmd1("options get EvalFile") == f"EvalFile;string;{good};<built-in>"  # kept
    engine.cmd1("newgame Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-")
    assert engine.cmd("bestmove depth 2")[-1]  # searches with the loaded weights
    assert engine.cmd1("options set EvalFile <built-in>") == "EvalFile;string;<built-in>;<built-in>"


def test_a_malformed_node_budget_switch_is_named(monkeypatch):
    """HIVEAI_NODESTIME (hiveai.uhp.server.node_budget): a timed bestmove searches T x N nodes; a value that is
    not a whole number is answered as an err naming the variable, and the game is kept."""
    import io

    from hiveai.switches import NODESTIME_ENV
    from hiveai.uhp.server import UhpServer, node_budget

    monkeypatch.setenv(NODESTIME_ENV, "2000")
    assert node_budget(1.5) == 3000 and node_budget(0.0) == 1  # at least one node
    monkeypatch.setenv(NODESTIME_ENV, "fast")
    out = io.StringIO()
    server = UhpServer(out)
    server.execute("newgame Base")
    server.execute("bestmove time 00:00:01")
    reply = out.getvalue().splitlines()
    assert reply[-2:] == [f"err {NODESTIME_ENV} must be a whole number of nodes per second, not 'fast'.", "ok"]
    assert server.board.game_string() == "Base;NotStarted;White[1]"
    monkeypatch.delenv(NODESTIME_ENV)
    assert node_budget(1.5) is None
