"""Property test: random and malformed command lines never break the protocol.

For every generated line the engine answers exactly one ``ok`` (none for a
blank line), a failing command leaves the GameString unchanged, a successful
one changes it only as its reply says, and the process stays alive. At the
end of each example an ``info`` must come back intact, which catches any
extra or missing ``ok`` (replies would be out of step).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uhp_client import MIDGAME, Engine

KEYWORDS = ["info", "newgame", "play", "pass", "validmoves", "undo", "options", "INFO", "Play", "UNDO"]
TOKENS = [
    "Base", "Base+MLP", "Base+X", "base+lm", "wS1", "bQ", "wQ", "wA1 -bM", "bS1 /wL", "WA2 wQ-", "wM1",
    "pass", "0", "1", "2", "-1", "99", "x", "1.5", "get", "set", "TimeUsage", "0,5", "LogLevel", "Debug",
    "ReportIntermediateBestMoves", "True", "tRUE", "maybe", "Nope", ";", "Base;InProgress;White[2];wS1;bS1 wS1-",
    "Base;NotStarted;White[1];wQ", "\t", "  ", "\\", "-", "/", "\x00", "é", "ok", "err", "invalidmove",
]
# Anything but the two characters that end a line.
junk = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=25)
tokens = st.lists(st.sampled_from(TOKENS) | junk, max_size=4).map(" ".join)


def keep(line: str) -> bool:
    """Leave out the lines whose success is not a reply: exit, and bestmove
    forms that may think for long (covered by dedicated tests)."""
    words = line.split()
    return not words or words[0].lower() not in ("exit", "bestmove")


lines = st.one_of(
    junk,
    st.builds(lambda k, rest: f"{k} {rest}", st.sampled_from(KEYWORDS), tokens),
    st.sampled_from(["bestmove depth 0", "bestmove depth 1", "bestmove time 00:00:00",
                     "bestmove time 00:00:00.1", "bestmove time x", "bestmove depth -1", "bestmove nope",
                     "bestmove time", "BESTMOVE DEPTH 1", "", "   ", "\t"]),
)
commands = st.lists(st.one_of(lines.filter(keep), lines.filter(lambda s: s.startswith("bestmove"))),
                    min_size=1, max_size=8)

CHANGES_GAME = ("newgame", "play", "pass", "undo")


def current_game_string(e: Engine, expected: str) -> str:
    """Read the GameString without changing it, also after the game ended."""
    if expected.split(";")[1] in ("NotStarted", "InProgress"):
        return e.game_string()
    last = expected.split(";")[-1]
    e.cmd1("undo")
    return e.cmd1(f"play {last}")


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(commands)
def test_random_command_lines(engine: Engine, batch: list[str]) -> None:
    expected = engine.cmd1(f"newgame {MIDGAME}")
    for line in batch:
        engine.send(line)
        if not line.split():
            continue  # blank: no reply; the final info check catches a stray ok
        reply = engine.reply()
        assert engine.alive(), engine.stderr_text()
        failed = len(reply) == 1 and reply[0].startswith(("err ", "invalidmove "))
        assert failed or not any(x.startswith(("err", "invalidmove")) for x in reply), (line, reply)
        if not failed and line.split()[0].lower() in CHANGES_GAME:
            assert len(reply) == 1 and reply[0].startswith("Base"), (line, reply)
            expected = reply[0]
    assert current_game_string(engine, expected) == expected
    assert engine.cmd("info") == engine.banner


# --- the same with pondering on ------------------------------------------------

# With PonderDuringIdle on, every searched bestmove leaves a ponder search
# running behind the next commands. Replies whose length is known are checked
# exactly, so a line printed while pondering would show up as an extra one.
PONDER_LINES = st.one_of(
    lines.filter(keep),
    st.sampled_from(["bestmove depth 1", "bestmove depth 2", "bestmove time 00:00:00.05",
                     "bestmove time 00:00:00.2", "validmoves", "info", "options", "undo", "pass",
                     "options get PonderDuringIdle"]),
)


def expected_length(line: str, engine: Engine) -> int | None:
    """How many lines a successful reply to ``line`` has, where that is fixed."""
    words = line.lower().split()
    if words[0] in ("bestmove", "validmoves", "newgame", "play", "pass", "undo"):
        return 1
    if words[0] == "info":
        return len(engine.banner)
    if words == ["options"]:
        return engine.option_count
    return None


def pondering_engine_setup(engine: Engine) -> None:
    engine.cmd1("options set UseBook False")
    engine.cmd1("options set PonderDuringIdle MultiThreaded")
    engine.option_count = len(engine.cmd("options"))


def check_pondering_batch(engine: Engine, batch: list[str]) -> None:
    expected = engine.cmd1(f"newgame {MIDGAME}")
    for line in batch:
        engine.send(line)
        if not line.split():
            continue
        reply = engine.reply()
        failed = len(reply) == 1 and reply[0].startswith(("err ", "invalidmove "))
        if not failed:
            n = expected_length(line, engine)
            assert n is None or len(reply) == n, (line, reply)
            if line.split()[0].lower() in CHANGES_GAME:
                expected = reply[0]
    engine.assert_silent(0.05)
    assert current_game_string(engine, expected) == expected
    assert engine.cmd("info") == engine.banner


@pytest.fixture(scope="module")
def pondering_engine(warm_cache):
    e = Engine()
    pondering_engine_setup(e)
    yield e
    e.send("exit")
    assert e.close() == 0


# 20 sequences in the fast run (each waits on a pondering engine); the slow step plays a thousand.
@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(PONDER_LINES, min_size=1, max_size=8))
def test_random_command_lines_while_pondering(pondering_engine: Engine, batch: list[str]) -> None:
    check_pondering_batch(pondering_engine, batch)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(PONDER_LINES, min_size=1, max_size=8))
def test_a_thousand_random_command_sequences_while_pondering(pondering_engine: Engine, batch: list[str]) -> None:
    check_pondering_batch(pondering_engine, batch)
