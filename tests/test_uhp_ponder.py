"""The new engine options over a real pipe: NumThreads, Level, and pondering
(PonderDuringIdle): silent, stopped by any command that changes the game or
the settings, kept through queries and the client's ``play`` of our move, a
ponder hit leaves a fuller table and ``bestmove time`` takes the ponder
search over, and ``exit`` or the end of input quit at once.

No test here waits for a time to pass: they wait on what the engine reports on
stderr (with LogLevel Debug, a line for every iteration the ponder search
completes). How quickly replies come while pondering is timed in the
``timing`` tests, run in the slow step.
"""

from __future__ import annotations

import re
import time

import pytest
from uhp_client import MIDGAME, TIMEOUT, Engine, EngineError

from hiveai.player import CPUS, MAX_LEVEL, MIN_LEVEL

BESTMOVE_LOG = re.compile(r"bestmove (\S+(?: \S+)?) score \S+ depth (\d+) nodes (\d+)")
PONDER_ITERATION = re.compile(r"pondering: depth (\d+) done")
# Replies while pondering take milliseconds (docs/engine.md, "Pondering"); the timing test allows this on a loaded machine.
ROUND_TRIP = 1.0
# exit or the end of input while pondering: the ponder search stops at its next node, then the process exits.
QUIT = 3.0


def start_pondering_game(engine: Engine, ponder: str = "SingleThreaded") -> None:
    """Options for a pondering test, then the mid-game position. (Not named
    setup: older pytest would take that for a module set-up hook.)"""
    for line in ("UseBook False", f"PonderDuringIdle {ponder}", "LogLevel Debug", "ReportIntermediateBestMoves True"):
        assert not engine.cmd1(f"options set {line}").startswith("err")
    engine.cmd1(f"newgame {MIDGAME}")


def think(engine: Engine, limit: str) -> tuple[str, list[str]]:
    """``bestmove limit`` with intermediate lines on: (move, the last PV)."""
    lines = engine.cmd(f"bestmove {limit}", 60)
    return lines[-1], lines[-2].split(";")[3:]


def stderr_count(engine: Engine, text: str, at_least: int = 1) -> int:
    """How often ``text`` is on stderr, once it is there ``at_least`` times (another thread reads
    stderr, so a line written before a reply may be read after it); fails after TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while engine.stderr_text().count(text) < at_least:
        if time.monotonic() > deadline:
            raise EngineError(f"{text!r} not {at_least} times on stderr within {TIMEOUT} s: {engine.stderr_text()[-2000:]}")
        time.sleep(0.02)
    return engine.stderr_text().count(text)


def wait_pondered(engine: Engine, searches: int, depth: int) -> None:
    """Wait until the ponder search begun after the engine's ``searches``-th bestmove has
    completed an iteration of ``depth`` (its Debug line on stderr); fails after TIMEOUT."""
    stderr_count(engine, "INFO: bestmove", searches)
    deadline = time.monotonic() + TIMEOUT
    while True:
        text = engine.stderr_text()
        start = -1
        for _ in range(searches):  # the ponder search's lines come after that bestmove's
            start = text.index("INFO: bestmove", start + 1)
        if any(int(d) >= depth for d in PONDER_ITERATION.findall(text, start)):
            return
        if time.monotonic() > deadline:
            raise EngineError(f"no ponder iteration of depth {depth} within {TIMEOUT} s: {text[-2000:]}")
        time.sleep(0.02)


def last_search_nodes(engine: Engine, searches: int) -> int:
    stderr_count(engine, "INFO: bestmove", searches)
    return int(BESTMOVE_LOG.findall(engine.stderr_text())[-1][2])


def test_new_options_are_listed_with_their_defaults(engine):
    cpus = CPUS  # the CPUs this process may use (its affinity mask), not the host's
    lines = engine.cmd("options")
    assert f"NumThreads;int;{cpus};{cpus};1;{cpus}" in lines
    assert "PonderDuringIdle;enum;Disabled;Disabled;Disabled;SingleThreaded;MultiThreaded" in lines
    assert f"Level;int;{MAX_LEVEL};{MAX_LEVEL};{MIN_LEVEL};{MAX_LEVEL}" in lines  # full strength by default
    assert engine.cmd1("options set NumThreads 99") == f"NumThreads;int;{cpus};{cpus};1;{cpus}"  # clamped
    assert engine.cmd1("options set Level 0") == f"Level;int;{MIN_LEVEL};{MAX_LEVEL};{MIN_LEVEL};{MAX_LEVEL}"  # clamped
    assert engine.cmd1("options set PonderDuringIdle maybe").startswith("err")
    engine.cmd1(f"options set Level {MAX_LEVEL}")


def test_pondering_is_silent_queries_run_beside_it_and_other_commands_stop_it(fresh_engine):
    e = fresh_engine()
    start_pondering_game(e, "MultiThreaded")
    move, pv = think(e, "depth 3")
    assert len(pv) >= 2 and pv[0] == move
    wait_pondered(e, 1, 2)
    e.assert_silent(0.1)  # pondering now: nothing on stdout
    assert e.cmd1("validmoves").count(";") > 5
    assert e.cmd1("options get LogLevel").startswith("LogLevel;")
    e.assert_silent(0.1)
    assert "pondered" not in e.stderr_text()  # the queries left it running
    assert e.cmd1("options set LogLevel Info") == "LogLevel;enum;Info;Warning;Debug;Info;Warning;Error"
    assert stderr_count(e, "pondered") == 1  # stopped before the set ran (then pondering again)


# How deep the ponder search has gone before the hit's depth-5 search starts: the same depth,
# so that search finds every node of its tree in the table (about two fifths of them searched again;
# where the ponder thread stood when the hit stopped it moves that by a few per cent, so the
# check asks for a third fewer: without the table's help the two counts are the same).
PONDERED_DEPTH = 5


def test_a_ponder_hit_starts_from_the_deeper_table(fresh_engine):
    nodes = {}
    for ponder in ("Disabled", "SingleThreaded"):
        e = fresh_engine()
        start_pondering_game(e, ponder)
        # One search thread: two split the tree differently each run (the count without pondering
        # moved by a tenth), and this compares two counts.
        assert e.cmd1("options set NumThreads 1").startswith("NumThreads;int;1;")
        move, pv = think(e, "depth 3")
        e.cmd1(f"play {move}")  # the client plays our move: pondering goes on
        e.assert_silent(0.1)
        e.cmd1(f"play {pv[1]}")  # the predicted reply: a ponder hit
        if ponder != "Disabled":
            wait_pondered(e, 1, PONDERED_DEPTH)
        think(e, "depth 5")
        nodes[ponder] = last_search_nodes(e, 2)
        e.send("exit")
        assert e.close() == 0
    assert nodes["SingleThreaded"] < nodes["Disabled"] * 2 / 3, nodes


def test_a_ponder_miss_drops_the_prediction(fresh_engine):
    e = fresh_engine()
    start_pondering_game(e)
    move, pv = think(e, "depth 3")
    assert len(pv) >= 2, pv
    e.cmd1(f"play {move}")
    other = next(m for m in e.cmd1("validmoves").split(";") if m != pv[1])
    e.cmd1(f"play {other}")
    count = stderr_count(e, "pondered", 1)  # stopped by the miss alone (play and validmoves ran beside it)
    e.assert_silent(0.1)
    e.cmd1("validmoves")
    e.cmd1("options set LogLevel Info")
    # A bestmove would stop (and log) any ponder search before its own search, logged once it ends.
    think(e, "depth 1")
    stderr_count(e, "INFO: bestmove", 2)
    assert count == 1 and e.stderr_text().count("pondered") == 1, e.stderr_text()  # nothing pondered since the miss


def test_bestmove_time_takes_the_ponder_search_over_on_a_hit(fresh_engine):
    e = fresh_engine()
    start_pondering_game(e)
    move, pv = think(e, "depth 3")
    e.cmd1(f"play {move}")
    e.cmd1(f"play {pv[1]}")  # a ponder hit: the same search goes on
    wait_pondered(e, 1, 4)
    valid = set(e.cmd1("validmoves").split(";"))
    # With no time left the answer comes from the ponder search, not from a fresh
    # search's first move: its deepest iteration's line is printed, then the move
    # (that line's, or a better root move of the unfinished iteration).
    lines = e.cmd("bestmove time 00:00:00")
    assert stderr_count(e, "ponder hit: the ponder search goes on") == 1
    assert len(lines) >= 2 and lines[-1] in valid
    depth = int(lines[-2].split(";")[1])
    assert depth >= 4, lines  # pondered to depth 4 at least before the bestmove
    stderr_count(e, "INFO: bestmove", 2)
    searched = BESTMOVE_LOG.findall(e.stderr_text())[-1]
    assert searched[0] == lines[-1] and int(searched[1]) == depth
    # The next hit, under a depth limit: a fresh search (reproducible), not a take-over.
    pv = lines[-2].split(";")[3:]
    assert len(pv) >= 2, lines
    e.cmd1(f"play {pv[0]}")
    e.cmd1(f"play {pv[1]}")
    think(e, "depth 2")
    stderr_count(e, "INFO: bestmove", 3)  # its log comes after any ponder hit's
    assert e.stderr_text().count("ponder hit") == 1


def quit_while_pondering(fresh_engine, finish: str) -> float:
    """Seconds from ``exit`` (or the end of input) while pondering to the process's exit, which must be 0."""
    e = fresh_engine()
    start_pondering_game(e, "MultiThreaded")
    think(e, "depth 3")
    wait_pondered(e, 1, 1)
    start = time.monotonic()
    if finish == "exit":
        e.send("exit")
    assert e.close(TIMEOUT) == 0
    return time.monotonic() - start


def test_exit_and_end_of_input_quit_while_pondering(fresh_engine):
    for finish in ("exit", "eof"):
        quit_while_pondering(fresh_engine, finish)


@pytest.mark.timing
def test_replies_and_exit_come_at_once_while_pondering(fresh_engine):
    """Queries run beside the ponder search, a command that changes the settings stops it
    first, and exit or the end of input quit: all in much less than a second."""
    e = fresh_engine()
    start_pondering_game(e, "MultiThreaded")
    think(e, "depth 3")
    wait_pondered(e, 1, 2)
    for command in ("validmoves", "options get LogLevel", "options set LogLevel Debug"):
        sent = time.monotonic()
        e.cmd1(command)
        assert time.monotonic() - sent < ROUND_TRIP, command
    for finish in ("exit", "eof"):
        assert quit_while_pondering(fresh_engine, finish) < QUIT, finish


def test_level_answers_over_uhp_and_level_10_matches_the_default(fresh_engine):
    e = fresh_engine()
    e.cmd1("options set UseBook False")
    e.cmd1("options set NumThreads 1")  # reproducible: one thread
    e.cmd1(f"newgame {MIDGAME}")
    plain = e.cmd1("bestmove depth 3")
    e.cmd1(f"options set Level {MAX_LEVEL}")
    assert e.cmd1("bestmove depth 3") == plain
    e.cmd1(f"options set Level {MIN_LEVEL}")
    moves = {e.cmd1("bestmove depth 3") for _ in range(12)}
    valid = set(e.cmd1("validmoves").split(";"))
    assert moves <= valid and len(moves) >= 2
