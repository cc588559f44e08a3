"""hiveai.engine: the UHP client, against hiveai itself and the scripted fake engine.

Each test checks that the engine processes it started are gone afterwards
(reaped, not just killed): a pid that no longer exists.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

from hiveai.rules.board import Board
from hiveai.engine import (
    EngineCommandError,
    EngineError,
    EngineInvalidMoveError,
    EngineTerminatedError,
    EngineTimeoutError,
    UhpEngine,
    UnsupportedLimitError,
    popen_uhp,
)
from hiveai.search.timeman import Limit

from uhp_client import HIVEAI

FAKE = Path(__file__).parent / "fake_engines" / "fake_uhp.py"
# Plies after which the full game is cut short if nobody has won (it never
# takes that long: the fake plays its first legal move, a very weak engine).
MAX_PLIES = 400


def fake(*flags: str) -> list[str]:
    return [sys.executable, str(FAKE), *flags]


def gone(pid: int) -> bool:
    """Whether no process (not even a zombie) has this pid."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.integration
def test_full_game_hiveai_against_the_fake_engine():
    with popen_uhp(HIVEAI) as hive, popen_uhp(fake("--first")) as weak:
        hive.configure({"UseBook": False, "NumThreads": 1})
        assert hive.id.startswith("hiveai") and weak.id == "fake"
        board = Board("Base+MLP")
        engines = (hive, weak)
        while not board.is_game_over() and board.ply < MAX_PLIES:
            result = engines[board.ply % 2].play(board, Limit(depth=2))
            assert result.move in board.legal_moves
            board.push(result.move)
        pids = [hive.proc.pid, weak.proc.pid]
    assert board.state == "WhiteWins", board.game_string()
    assert all(gone(pid) for pid in pids)


@pytest.mark.integration
def test_timeout_kills_the_engine():
    engine = popen_uhp(fake("--hang-at", "0"))
    engine.newgame("Base")
    with pytest.raises(EngineTimeoutError, match="no 'ok' within 0.5 s"):
        engine.bestmove(Limit(depth=1), timeout=0.5)
    assert not engine.alive() and gone(engine.proc.pid)


def running_with(argument: str) -> list[int]:
    """Pids of live processes (zombies included) whose command line contains ``argument``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if argument.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:  # it ended while we looked
                pass
    return pids


@pytest.mark.integration
def test_startup_hang_is_a_timeout_and_leaves_no_process(tmp_path):
    marker = str(tmp_path / "pids")  # unique to this test: names the process in /proc
    with pytest.raises(EngineTimeoutError):
        popen_uhp(fake("--hang-at-start", "--pid-file", marker), startup_timeout=1.0)
    assert running_with(marker) == []


@pytest.mark.integration
def test_crash_is_terminated_with_the_exit_code():
    engine = popen_uhp(fake("--crash-at", "0"))
    with pytest.raises(EngineTerminatedError) as info:
        engine.play(Board("Base"), Limit(depth=1))
    assert info.value.returncode == 3 and info.value.command == "bestmove depth 1"
    engine.quit()
    assert gone(engine.proc.pid)
    with pytest.raises(EngineTerminatedError):  # and it stays dead
        engine.command("info")


@pytest.mark.integration
def test_err_answer_raises_and_the_engine_stays_usable():
    with popen_uhp(fake("--err-at", "0")) as engine:
        engine.newgame("Base")
        with pytest.raises(EngineCommandError) as info:
            engine.play_move("wS1")
        assert info.value.reply.startswith("err") and not isinstance(info.value, EngineInvalidMoveError)
        assert engine.command("info")[0] == "id fake"  # still answering
    assert gone(engine.proc.pid)


@pytest.mark.integration
def test_invalidmove_answer_raises_and_the_engine_stays_usable():
    with popen_uhp(HIVEAI) as engine:
        engine.newgame("Base")
        with pytest.raises(EngineInvalidMoveError, match="Queen Bee on your first turn"):
            engine.play_move("wQ")
        assert engine.play_move("wS1") == "Base;InProgress;Black[1];wS1"
    assert gone(engine.proc.pid)


@pytest.mark.integration
def test_an_illegal_best_move_is_an_engine_error():
    with popen_uhp(fake("--illegal-at", "0")) as engine:
        with pytest.raises(EngineError, match="'pass', not a legal move"):
            engine.play(Board("Base"), Limit(depth=1))


@pytest.mark.integration
def test_a_finished_game_is_refused_before_sending():
    board = Board("Base")
    while not board.is_game_over():  # the first legal move each ply: White wins at ply 14
        board.push(board.legal_moves[0])
    with popen_uhp(fake()) as engine, pytest.raises(ValueError, match="the game is over"):
        engine.play(board, Limit(depth=1))


@pytest.mark.integration
def test_limits_uhp_cannot_say_are_refused_before_sending():
    sent = []
    with popen_uhp(fake(), log=lambda tag, text: sent.append(text) if tag == ">" else None) as engine:
        for limit, words in ((Limit(nodes=100), "no node limit"), (Limit(time=1, depth=2), "not both"),
                             (Limit(), "empty Limit")):
            with pytest.raises(UnsupportedLimitError, match=words):
                engine.play(Board("Base"), limit)
    assert not any(line.startswith("bestmove") for line in sent)


@pytest.mark.integration
def test_whole_seconds_engine():
    board = Board("Base")
    with popen_uhp(fake("--whole-seconds")) as engine:
        with pytest.raises(UnsupportedLimitError, match="whole seconds only"):
            engine.play(board, Limit(time=0.5))
        assert engine.play(board, Limit(time=2)).command == "bestmove time 00:00:02"
    with popen_uhp(fake("--whole-seconds"), whole_seconds=True) as engine:
        result = engine.play(board, Limit(time=0.5))
        assert result.command == "bestmove time 00:00:01" and result.move in board.legal_moves


@pytest.mark.integration
def test_options_and_configure_errors():
    with popen_uhp(fake("--no-options")) as engine:
        with pytest.raises(EngineCommandError, match="Unknown option"):
            engine.configure({"Foo": 1})
    with popen_uhp(HIVEAI) as engine:
        assert engine.options["UseBook"].type == "bool"
        with pytest.raises(EngineCommandError):
            engine.configure({"NoSuchOption": 3})


@pytest.mark.integration
def test_finaliser_reaps_a_forgotten_engine():
    engine = popen_uhp(fake())
    pid = engine.proc.pid
    del engine
    gc.collect()
    assert gone(pid)


@pytest.mark.integration
def test_cannot_start_is_terminated():
    with pytest.raises(EngineTerminatedError, match="cannot start"):
        popen_uhp(["/nonexistent/engine"])


@pytest.mark.integration
def test_analyse_gives_intermediate_lines_and_restores_the_option():
    board = Board.parse("Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-")
    with popen_uhp(HIVEAI) as engine:
        engine.configure({"UseBook": False})  # a book move comes with no search lines
        info = engine.analyse(board, Limit(depth=2))
        assert [line.depth for line in info.info] == [1, 2]
        assert info.move in board.legal_moves and info.pv[0] == str(info.move)
        assert engine.options["ReportIntermediateBestMoves"].value == "False"
        assert engine.play(board, Limit(depth=2)).info == []


def test_bestmove_command_forms():
    assert UhpEngine.bestmove_command(Limit(time=0)) == "bestmove time 00:00:00"
    assert UhpEngine.bestmove_command(Limit(time=3661.25)) == "bestmove time 01:01:01.2500000"
    assert UhpEngine.bestmove_command(Limit(time=0.2), whole_seconds=True) == "bestmove time 00:00:01"
    assert UhpEngine.bestmove_command(Limit(depth=0)) == "bestmove depth 0"


# A tiny engine: echoes each command, says so on stderr, and after "stray" writes one more
# line after its ok (output between commands, which command() must drop, logged as "stray").
TINY = """
import sys
print("id tiny"); print("ok", flush=True)
for line in sys.stdin:
    words = line.split()
    if words == ["exit"]:
        break
    sys.stderr.write("got " + line); sys.stderr.flush()
    print("echo " + line.strip()); print("ok", flush=True)
    if words == ["stray"]:
        print("late line", flush=True)
"""


@pytest.mark.integration
def test_log_hook_stray_lines_and_stderr():
    first, second = [], []
    engine = popen_uhp([sys.executable, "-c", TINY], log=lambda tag, text: first.append((tag, text)),
                       read_banner=False, stderr_kept=None)
    assert engine.read_block() == ["id tiny"] and ("<", "ok") in first
    engine.log = lambda tag, text: second.append((tag, text))
    assert engine.command("stray") == ["echo stray"]
    assert engine.poll_line(10) == "late line"
    engine.send("ping")
    assert engine.read_raw_line() == b"echo ping\n" and engine.read_line() == "ok"
    assert engine.quit(send_exit=False) == 0  # end of input alone ends it cleanly
    assert ("stray", "late line") in second and (">", "stray") not in first
    assert ("stderr", "got ping") in second and engine.stderr_text().splitlines() == ["got stray", "got ping"]
    assert gone(engine.proc.pid)


@pytest.mark.integration
def test_slow_notice_is_called_once_and_the_wait_goes_on():
    engine = popen_uhp(fake("--hang-at", "0"))
    calls: list[str] = []
    assert engine.command("info", notice=(60.0, lambda: calls.append("info"))) == engine.banner
    assert calls == []  # answered long before its notice was due
    engine.newgame("Base")
    with pytest.raises(EngineTimeoutError, match="no 'ok' within 0.5 s"):
        engine.command("bestmove depth 1", 0.5, notice=(0.05, lambda: calls.append("bestmove")))
    assert calls == ["bestmove"]  # once, and the deadline still held
    assert not engine.alive() and gone(engine.proc.pid)
