"""Property test: random and malformed command lines never break the protocol.

For every generated line the engine answers exactly one ``ok`` (none for a
blank line), a failing command leaves the GameString unchanged, a successful
one changes it only as its reply says, and the process stays alive. At the
end of each example an ``info`` must come back intact, which catches any
extra or missing ``ok`` (replies would be out of step).
"""

from __future__ import annotations

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
