"""The new engine options over a real pipe: NumThreads, Level, and pondering
(PonderDuringIdle): silent, stopped by any command that changes the game or
the settings, kept through queries and the client's ``play`` of our move, a
ponder hit leaves a fuller table and ``bestmove time`` takes the ponder
search over, and ``exit`` or the end of input quit at once."""

from __future__ import annotations

import os
import re
import time

from uhp_client import MIDGAME, Engine

BESTMOVE_LOG = re.compile(r"bestmove (\S+(?: \S+)?) score \S+ depth (\d+) nodes (\d+)")


def start_pondering_game(engine: Engine, ponder: str = "SingleThreaded") -> None:
    """Options for a pondering test, then the mid-game position. (Not named
    setup: older pytest would take that for a module set-up hook.)"""
    for line in ("UseBook False", f"PonderDuringIdle {ponder}", "LogLevel Info", "ReportIntermediateBestMoves True"):
        assert not engine.cmd1(f"options set {line}").startswith("err")
    engine.cmd1(f"newgame {MIDGAME}")


def think(engine: Engine, limit: str) -> tuple[str, list[str]]:
    """``bestmove limit`` with intermediate lines on: (move, the last PV)."""
    lines = engine.cmd(f"bestmove {limit}", 60)
    return lines[-1], lines[-2].split(";")[3:]


def stderr_count(engine: Engine, text: str, at_least: int = 1) -> int:
    """How often ``text`` is on stderr, waiting up to 5 s for ``at_least`` (another thread reads stderr)."""
    deadline = time.monotonic() + 5
    while engine.stderr_text().count(text) < at_least and time.monotonic() < deadline:
        time.sleep(0.02)
    return engine.stderr_text().count(text)


def last_search_nodes(engine: Engine, searches: int) -> int:
    stderr_count(engine, "INFO: bestmove", searches)
    return int(BESTMOVE_LOG.findall(engine.stderr_text())[-1][2])


def test_new_options_are_listed_with_their_defaults(engine):
    cpus = os.cpu_count() or 1
    lines = engine.cmd("options")
    assert f"NumThreads;int;{cpus};{cpus};1;{cpus}" in lines
    assert "PonderDuringIdle;enum;Disabled;Disabled;Disabled;SingleThreaded;MultiThreaded" in lines
    assert "Level;int;10;10;1;10" in lines
    assert engine.cmd1("options set NumThreads 99") == f"NumThreads;int;{cpus};{cpus};1;{cpus}"  # clamped
    assert engine.cmd1("options set Level 0") == "Level;int;1;10;1;10"
    assert engine.cmd1("options set PonderDuringIdle maybe").startswith("err")
    engine.cmd1("options set Level 10")


def test_pondering_is_silent_queries_run_beside_it_and_other_commands_stop_it(fresh_engine):
    e = fresh_engine()
    start_pondering_game(e, "MultiThreaded")
    move, pv = think(e, "depth 3")
    assert len(pv) >= 2 and pv[0] == move
    e.assert_silent(1.5)  # pondering now: nothing on stdout
    sent = time.monotonic()
    assert e.cmd1("validmoves").count(";") > 5
    assert e.cmd1("options get LogLevel").startswith("LogLevel;")
    assert time.monotonic() - sent < 1.0  # milliseconds (README, "Pondering"); generous for a loaded machine
    e.assert_silent(0.3)
    assert "pondered" not in e.stderr_text()  # the queries left it running
    sent = time.monotonic()
    assert e.cmd1("options set LogLevel Info") == "LogLevel;enum;Info;Warning;Debug;Info;Warning;Error"
    assert time.monotonic() - sent < 1.0
    assert stderr_count(e, "pondered") == 1  # stopped before the set ran (then pondering again)


def test_a_ponder_hit_starts_from_the_deeper_table(fresh_engine):
    nodes = {}
    for ponder in ("Disabled", "SingleThreaded"):
        e = fresh_engine()
        start_pondering_game(e, ponder)
        move, pv = think(e, "depth 3")
        e.cmd1(f"play {move}")  # the client plays our move: pondering goes on
        e.assert_silent(0.5)
        e.cmd1(f"play {pv[1]}")  # the predicted reply: a ponder hit
        e.assert_silent(1.5)
        think(e, "depth 5")
        nodes[ponder] = last_search_nodes(e, 2)
        e.send("exit")
        assert e.close() == 0
    assert nodes["SingleThreaded"] < nodes["Disabled"] / 2, nodes


def test_a_ponder_miss_drops_the_prediction(fresh_engine):
    e = fresh_engine()
    start_pondering_game(e)
    move, pv = think(e, "depth 3")
    assert len(pv) >= 2, pv
    e.cmd1(f"play {move}")
    other = next(m for m in e.cmd1("validmoves").split(";") if m != pv[1])
    e.cmd1(f"play {other}")
    count = stderr_count(e, "pondered", 1)  # stopped by the miss alone (play and validmoves ran beside it)
    e.assert_silent(1.0)
    e.cmd1("validmoves")
    e.cmd1("options set LogLevel Info")
    assert count == 1 and stderr_count(e, "pondered", 2) == 1, e.stderr_text()  # nothing pondered since the miss


def test_bestmove_time_takes_the_ponder_search_over_on_a_hit(fresh_engine):
    e = fresh_engine()
    start_pondering_game(e)
    move, pv = think(e, "depth 3")
    e.cmd1(f"play {move}")
    e.cmd1(f"play {pv[1]}")  # a ponder hit: the same search goes on
    e.assert_silent(1.5)
    valid = set(e.cmd1("validmoves").split(";"))
    # With no time left the answer comes from the ponder search, not from a fresh
    # search's first move: its deepest iteration's line is printed, then the move
    # (that line's, or a better root move of the unfinished iteration).
    lines = e.cmd("bestmove time 00:00:00")
    assert stderr_count(e, "ponder hit: the ponder search goes on") == 1
    assert len(lines) >= 2 and lines[-1] in valid
    depth = int(lines[-2].split(";")[1])
    assert depth >= 4, lines  # 1.5 s of pondering: at least depth 4
    stderr_count(e, "INFO: bestmove", 2)
    searched = BESTMOVE_LOG.findall(e.stderr_text())[-1]
    assert searched[0] == lines[-1] and int(searched[1]) == depth
    # The next hit, under a depth limit: a fresh search (reproducible), not a take-over.
    pv = lines[-2].split(";")[3:]
    assert len(pv) >= 2, lines
    e.cmd1(f"play {pv[0]}")
    e.cmd1(f"play {pv[1]}")
    think(e, "depth 2")
    assert e.stderr_text().count("ponder hit") == 1


def test_exit_and_end_of_input_quit_at_once_while_pondering(fresh_engine):
    for finish in ("exit", "eof"):
        e = fresh_engine()
        start_pondering_game(e, "MultiThreaded")
        think(e, "depth 3")
        time.sleep(0.5)
        start = time.monotonic()
        if finish == "exit":
            e.send("exit")
        assert e.close(10) == 0
        assert time.monotonic() - start < 3.0, finish


def test_level_answers_over_uhp_and_level_10_matches_the_default(fresh_engine):
    e = fresh_engine()
    e.cmd1("options set UseBook False")
    e.cmd1("options set NumThreads 1")  # reproducible: one thread
    e.cmd1(f"newgame {MIDGAME}")
    plain = e.cmd1("bestmove depth 3")
    e.cmd1("options set Level 10")
    assert e.cmd1("bestmove depth 3") == plain
    e.cmd1("options set Level 1")
    moves = {e.cmd1("bestmove depth 3") for _ in range(12)}
    valid = set(e.cmd1("validmoves").split(";"))
    assert moves <= valid and len(moves) >= 2
