"""The conformance checklist (docs/protocol-notes.md, section 3) against a real ``hiveai`` process.

Each test names the checklist item it covers. Item 9 (perft parity) lives in
the perft tests and item 29 (responsiveness) in ``tools/bench_uhp.py``.
Expectations about positions come from the independent model in
``hive_oracle.py``, never from hiveai itself. The fast tests wait on what the
engine answers (a hang fails after uhp_client.TIMEOUT); the bounds on how
long an answer may take are the ``timing`` tests, run in the slow step.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from game_types import STANDARD_GAME_TYPES as GAME_TYPES
from hive_oracle import CANONICAL_MOVE, Oracle, neighbours
from uhp_client import COLD_TIMEOUT, MIDGAME, REPO, TIMEOUT, Engine

from hiveai import __version__
from hiveai.uhp.interrupts import EOF_THINK_SECONDS

DATA = Path(__file__).parent / "data"
# Generous slack on top of a time budget in the timing tests: this is a noisy
# 2-core machine and speed is measured by the benchmarks, not here.
SLACK = 1.5
# The banner comes before numba is imported (test_01_banner_before_numba): a Python start-up.
BANNER_SECONDS = 2.0
# A signal or the end of input stops a search at its next poll: well within this.
STOP_SECONDS = 1.0
# exit with nothing running: the process ends at once (a warm-up still loading kernels is waited for).
EXIT_SECONDS = 3.0


def load_positions() -> dict[str, tuple[str, str]]:
    out = {}
    for line in (DATA / "uhp" / "positions.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, piece, gs = line.split("\t")
            out[name] = (piece, gs)
    return out


POSITIONS = load_positions()


def is_error(reply: list[str]) -> bool:
    return len(reply) == 1 and reply[0].startswith("err ")


def is_invalid(reply: list[str]) -> bool:
    return len(reply) == 1 and reply[0].startswith("invalidmove ")


def newgame(e: Engine, arg: str = "") -> str:
    gs = e.cmd1(f"newgame {arg}".strip())
    assert not gs.startswith("err"), gs
    return gs


def entries(e: Engine) -> list[str]:
    line = e.cmd1("validmoves")
    assert not line.startswith("err"), line
    return line.split(";")


# -- 1-5: framing -------------------------------------------------------------


def test_01_banner(fresh_engine):
    e = fresh_engine()
    assert e.banner == [f"id hiveai v{__version__}", "Mosquito;Ladybug;Pillbug"]
    e.assert_silent(0.3)


@pytest.mark.timing
def test_01_banner_is_immediate(fresh_engine):
    e = fresh_engine()
    elapsed = time.monotonic() - e.started
    assert e.banner[0].startswith("id ")
    assert elapsed < BANNER_SECONDS, f"banner took {elapsed:.2f} s"


@pytest.mark.integration
def test_01_banner_before_numba():
    """The modules that print the banner do not import numba or the board."""
    code = "import sys, hiveai.cli, hiveai.uhp.server; print(sorted({'numba', 'hiveai.rules.board'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow  # compiles every kernel (about 100 s)
@pytest.mark.timing
def test_01_cold_cache(fresh_engine, tmp_path):
    """With an empty numba cache the banner is still immediate; compiling
    happens after it, and the engine then answers normally."""
    e = fresh_engine(env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert time.monotonic() - e.started < BANNER_SECONDS
    assert e.banner[0].startswith("id ")
    assert e.cmd1(f"newgame {MIDGAME}", timeout=COLD_TIMEOUT).startswith("Base+MLP;InProgress")
    assert e.cmd1("bestmove depth 1", timeout=COLD_TIMEOUT) in entries(e)


def test_02_info_again(engine):
    assert engine.cmd("info") == engine.banner


def test_03_one_ok_per_command(fresh_engine):
    e = fresh_engine()
    lines = ["info", "", "   ", "frobnicate", "newgame", "play wQ", "validmoves", "undo", "undo 5",
             "options get Nope", "bestmove depth 1", "\t", "pass", "newgame Base+Q", "play"]
    e.proc.stdin.write(("\n".join(lines) + "\nexit\n").encode())
    e.proc.stdin.flush()
    out = []
    while True:
        try:
            out.append(e.read_line(TIMEOUT))  # a bound on a hang: EOF ends the wait at once
        except AssertionError:
            break  # stdout closed after exit
    assert out.count("ok") == sum(1 for x in lines if x.strip())
    assert out[-1] == "ok"  # nothing after the last ok: exit prints nothing
    assert e.proc.wait(10) == 0


def test_04_silence_between_commands(engine):
    newgame(engine, MIDGAME)
    assert engine.cmd1("options set LogLevel Info").startswith("LogLevel;enum;Info")
    try:
        move = engine.cmd1("bestmove depth 1")
        engine.assert_silent(0.5)
        assert "bestmove" in engine.stderr_text()  # the log went to stderr
        assert move in entries(engine)
    finally:
        engine.cmd("options set LogLevel Warning")


def test_05_unknown_command(engine):
    gs = newgame(engine, MIDGAME)
    for line in ["frobnicate", "PLAYY wS1", "perft 99", "help me"]:
        assert is_error(engine.cmd(line))
    assert engine.alive()
    assert engine.game_string() == gs


# -- 6-8: games and openings ----------------------------------------------------


def test_06_newgame_forms(engine):
    assert newgame(engine) == "Base;NotStarted;White[1]"
    for gt in GAME_TYPES:
        assert newgame(engine, gt) == f"{gt};NotStarted;White[1]"
    assert newgame(engine, "Base+LM") == "Base+ML;NotStarted;White[1]"
    assert newgame(engine, "Base+PLM") == "Base+MLP;NotStarted;White[1]"
    # Wrong state and turn fields are ignored and recomputed.
    assert newgame(engine, "Base;WhiteWins;Black[9];wS1;bS1 wS1-") == "Base;InProgress;White[2];wS1;bS1 wS1-"
    # Extra spaces inside the GameString are re-joined.
    assert newgame(engine, "Base;NotStarted;White[1];wS1;bS1   wS1-") == "Base;InProgress;White[2];wS1;bS1 wS1-"
    gs = newgame(engine, MIDGAME)
    for bad in ["Base+X", "Chess", "Base;InProgress;White[2];wS1;bQ wS1-", "Base;InProgress;Black[1];wQ",
                "Base+M;InProgress;White[2];wS1;bL wS1-"]:
        reply = engine.cmd(f"newgame {bad}")
        assert is_error(reply) or is_invalid(reply), (bad, reply)
    assert engine.game_string() == gs


def test_07_no_game_yet(fresh_engine):
    e = fresh_engine()
    for line in ["play wS1", "pass", "validmoves", "bestmove depth 1", "bestmove time 00:00:01", "undo", "undo 1"]:
        assert is_error(e.cmd(line)), line
    assert e.alive()
    assert newgame(e) == "Base;NotStarted;White[1]"


def test_08_opening(engine):
    newgame(engine, "Base")
    assert sorted(entries(engine)) == sorted(["wS1", "wB1", "wG1", "wA1"])
    newgame(engine, "Base+MLP")
    assert sorted(entries(engine)) == sorted(["wS1", "wB1", "wG1", "wA1", "wM", "wL", "wP"])
    for gt, bugs in [("Base", 4), ("Base+MLP", 7)]:
        newgame(engine, gt)
        engine.cmd1("play wA1")
        second = entries(engine)
        assert len(second) == 6 * bugs == len(set(second))
        o = Oracle.from_game_string(f"{gt};InProgress;Black[1];wA1")
        for mv in second:
            piece, cell = o.destination(mv)
            assert piece[0] == "b" and piece != "bQ" and cell in neighbours((0, 0)), mv


# -- 10-16: moves ---------------------------------------------------------------


def perft1_positions() -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / "perft" / "random_positions.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            gs, depth, leaves = line.split("\t")
            if depth == "1":
                rows.append((gs, int(leaves)))
    return rows


@pytest.mark.parametrize("gs, count", perft1_positions())
def test_10_real_game_move_sets(engine, gs, count):
    """Move counts on reference positions, where MzingaCpp and nokamute agree,
    with every entry a distinct (piece, destination) pair."""
    newgame(engine, gs)
    moves = entries(engine)
    o = Oracle.from_game_string(gs)
    assert len({o.destination(m) for m in moves}) == len(moves) == count


# A reported case: W of bQ holds bS1, so "bB1 -bQ" names an occupied cell; a climb there is "bB1 bS1".
OCCUPIED_SIDE = "Base;;;wS1;bS1 wS1-;wB1 \\wS1;bB1 bS1/;wG1 /wS1;bG1 bS1\\;wQ /wB1;bQ bB1\\;wS2 /wG1"
# wB2 sits on wQ: a climb onto that stack names wB2, not wQ.
COVERED = "Base;;;wB1;bB1 \\wB1;wQ /wB1;bB2 -bB1;wB2 wQ\\;bQ \\bB1;wB2 wQ;bB2 /bB1"
ILLEGAL = [
    # (rule, GameString, move)
    ("queen on first turn", "Base", "wQ"),
    ("queen on black's first turn", "Base;;;wS1", "bQ wS1-"),
    ("queen by the fourth turn", "Base;;;wS1;bS1 wS1-;wA1 -wS1;bA1 bS1-;wG1 -wA1;bG1 bA1-", "wB1 -wG1"),
    ("move before the queen", "Base;;;wS1;bS1 wS1-;wA1 -wS1;bA1 bS1-", "wA1 wS1\\"),
    ("numbers out of order", "Base", "wS2"),
    ("numbers out of order later", "Base;;;wS1;bS1 wS1-", "bA2 bS1-"),
    ("occupied cell", "Base;;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "wA1 wS1"),
    ("queen onto a piece", "Base;;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "wQ wS1"),
    ("covered piece", "Base;;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wB1 \\wQ;bB1 bQ/;wB1 wQ;bB1 bQ", "wQ \\wS1"),
    ("breaking the hive", "Base;;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "wS1 \\wQ"),
    ("wrong colour", "Base;;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "bA1 bQ-"),
    ("disabled expansion piece", "Base", "wM"),
    ("disabled expansion piece for black", "Base+M;;;wS1", "bL wS1-"),
    ("pass when moves exist", "Base", "pass"),
    ("reference in hand", "Base;;;wS1", "bS1 wQ-"),
    ("unknown piece", "Base", "wX1"),
    ("garbage", "Base", "hello world"),
    ("bad separator", "Base;;;wS1", "bS1 wS1+"),
    ("not touching", "Base;;;wS1;bS1 wS1-", "wA1 bS1-"),
    ("occupied cell named by a side", OCCUPIED_SIDE, "bB1 -bQ"),
    ("stack named below its top", COVERED, "wB1 wQ"),
    ("moving the opponent's piece", "Base;;;wS1;bS1 wS1-;wQ -wS1;bQ bS1-", "bQ bS1/"),
]


def start_of(start: str) -> str:
    """A GameString from a start whose state and turn fields are left empty."""
    fields = start.split(";")
    return ";".join([fields[0], "NotStarted", "White[1]", *fields[3:]])


@pytest.mark.parametrize("rule, start, move", ILLEGAL, ids=[r[0] for r in ILLEGAL])
def test_11_illegal_moves(engine, rule, start, move):
    gs = newgame(engine, start_of(start))
    verb = "pass" if move == "pass" else f"play {move}"
    assert is_invalid(engine.cmd(verb)), rule
    assert engine.game_string() == gs


# The rejections above for which Mzinga has words (src/Mzinga/Core/Board.cs, Play), as it says them.
_START = {rule: start for rule, start, _ in ILLEGAL}
MZINGA_REASONS = [
    ("Base", "wQ", "You can't play your Queen Bee on your first turn."),
    (_START["queen by the fourth turn"], "wB1 -wG1", "You must play your Queen Bee on or before your fourth turn."),
    (_START["move before the queen"], "wA1 wS1\\", "You can't move a piece in play until you've played your Queen Bee."),
    ("Base", "wS2", "When there are multiple pieces of the same bug type, you must play the pieces in order."),
    (OCCUPIED_SIDE, "bB1 -bQ", "You can't move there because a piece already exists at that position."),
    (COVERED, "wB1 wQ", "You can't move there because a piece already exists at that position."),
    (_START["covered piece"], "wQ \\wS1", "You can't move that piece because it has another piece on top of it."),
    (_START["breaking the hive"], "wS1 \\wQ", "You can't move that piece because it will break the hive."),
    ("Base", "pass", "You can't pass when you have valid moves."),
]


@pytest.mark.parametrize("start, move, reason", MZINGA_REASONS, ids=[r[2] for r in MZINGA_REASONS])
def test_11_mzinga_reasons(engine, start, move, reason):
    gs = newgame(engine, start_of(start))
    verb = "pass" if move == "pass" else f"play {move}"
    assert engine.cmd(verb) == [f"invalidmove {reason}"]
    assert engine.game_string() == gs


def test_11_climb_onto_a_side_named_piece_is_written_with_the_bare_name(engine):
    gs = newgame(engine, start_of(OCCUPIED_SIDE))
    assert engine.cmd1("play bB1 bS1") == gs.replace("Black[5]", "White[6]") + ";bB1 bS1"


def test_11_play_after_game_over_keeps_the_game(engine):
    """The rejected play and pass leave the finished game as it was: taking
    back its last move and playing it again gives the same GameString."""
    _, gs = POSITIONS["end_WhiteWins"]
    newgame(engine, gs)
    assert is_error(engine.cmd("play wQ")) and is_error(engine.cmd("pass"))
    engine.cmd1("undo")
    assert engine.cmd1(f"play {gs.split(';')[-1]}") == gs


def test_11_play_after_game_over(engine):
    _, gs = POSITIONS["end_WhiteWins"]
    newgame(engine, gs)
    assert is_error(engine.cmd("play wQ"))
    assert is_error(engine.cmd("pass"))


def test_12_turn_and_state_bookkeeping(engine):
    gs = newgame(engine, "Base")
    assert gs.split(";")[1:3] == ["NotStarted", "White[1]"]
    o = Oracle("Base")
    for ply in range(8):
        mv = entries(engine)[ply * 7 % len(entries(engine))]
        gs = engine.cmd1(f"play {mv}")
        o.apply(mv)
        assert gs.split(";")[1:3] == ["InProgress", o.turn_string()]
        assert gs.split(";")[2] == ("White", "Black")[(ply + 1) % 2] + f"[{(ply + 1) // 2 + 1}]"
    _, gs = POSITIONS["pass"]
    newgame(engine, gs)
    after = engine.cmd1("pass")  # a pass counts as a ply
    assert after == gs.replace("Black[24]", "White[25]") + ";pass"


def test_13_input_leniency(engine):
    gs = newgame(engine, MIDGAME)
    o = Oracle.from_game_string(gs)
    checked = 0
    for mv in entries(engine):
        spellings = o.spellings(mv, allow_self=True)
        if len(spellings) < 2:
            continue
        canonical = engine.cmd1(f"play {mv}")
        assert engine.cmd1("undo") == gs
        variants = spellings + [mv.upper(), mv.lower(), f"  {mv.replace(' ', '   ')}  "]
        for text in variants:
            assert engine.cmd1(f"play {text}") == canonical, text
            assert engine.cmd1("undo") == gs
        checked += 1
        if checked == 4:
            break
    assert checked == 4
    _, pass_gs = POSITIONS["pass"]
    for word in ["pass", "PASS", "Pass"]:
        newgame(engine, pass_gs)
        assert engine.cmd1(f"play {word}").endswith(";pass")
    newgame(engine, "Base;NotStarted;White[1];wS1")
    assert is_invalid(engine.cmd("play bS1 wQ-"))  # reference to a piece in hand


def check_canonical(o: Oracle, move: str) -> None:
    """Checklist item 14 for one emitted MoveString."""
    assert CANONICAL_MOVE.match(move), move
    parts = move.split(" ")
    if len(parts) == 2:
        ref = parts[1].strip("-/\\")
        assert ref != parts[0], f"self-reference {move}"
        assert ref in o.where, f"reference in hand {move}"
        if ref == parts[1]:  # climbing: the bare name of the stack top
            assert o.top(o.where[ref]) == ref, move


@pytest.mark.parametrize("name", ["mosquito_top", "throw_gate", "ladybug_gate", "beetle_gate"])
def test_14_output_canonical(engine, name):
    _, gs = POSITIONS[name]
    gs = newgame(engine, gs)
    o = Oracle.from_game_string(gs)
    for mv in gs.split(";")[3:]:
        assert CANONICAL_MOVE.match(mv), mv
    line = engine.cmd1("validmoves")
    assert line and not line.endswith(";") and ";;" not in line
    moves = line.split(";")
    for mv in moves:
        check_canonical(o, mv)
    check_canonical(o, engine.cmd1("bestmove depth 1"))
    # Every entry is accepted when fed back (pipelined: play then undo).
    engine.proc.stdin.write("".join(f"play {mv}\nundo\n" for mv in moves).encode())
    engine.proc.stdin.flush()
    for mv in moves:
        played = engine.reply()
        assert len(played) == 1 and played[0].startswith(gs.split(";")[0] + ";"), (mv, played)
        assert engine.reply() == [gs]


def test_15_pass_rules(engine):
    _, gs = POSITIONS["pass"]
    newgame(engine, gs)
    assert engine.cmd1("validmoves") == "pass"
    assert engine.cmd1("bestmove depth 1") == "pass"
    assert engine.cmd1("pass").endswith(";pass")
    assert "pass" not in entries(engine)
    assert is_invalid(engine.cmd("pass"))


def piece_destinations(o: Oracle, moves: list[str]) -> dict[str, set]:
    out: dict[str, set] = {}
    for mv in moves:
        dest = o.destination(mv)
        if dest:
            out.setdefault(dest[0], set()).add(dest[1])
    return out


@pytest.mark.parametrize("name", ["beetle_gate", "ladybug_gate", "mosquito_top", "mosquito_only_mosquito",
                                  "throw_gate", "throw_lastmoved", "throw_lastmoved_stacked"])
def test_16_expansion_rules(engine, name):
    """Gates, mosquito, ladybug and pillbug rules on positions chosen to exercise them."""
    piece, gs = POSITIONS[name]
    newgame(engine, gs)
    o = Oracle.from_game_string(gs)
    got = piece_destinations(o, entries(engine))
    side = o.to_move()
    ungated = Oracle.from_game_string(gs, gates=False)
    if name.endswith("_gate"):
        rule = {"beetle_gate": Oracle.beetle_moves, "ladybug_gate": Oracle.ladybug_moves,
                "throw_gate": Oracle.throws_of}[name]
        assert rule(o, piece) < rule(ungated, piece), "the position should gate a move"
        assert got.get(piece, set()) == rule(o, piece)  # exact: these pieces have no other moves here
    elif name == "mosquito_top":
        assert o.height(o.where[piece]) > 1
        assert got[piece] == o.beetle_moves(piece)  # only as a beetle
    elif name == "mosquito_only_mosquito":
        assert piece not in got
    elif name.startswith("throw_lastmoved"):
        assert piece == o.last_moved and piece not in got
        friends = [p for p in o.where if p[0] == side and o.throws_of(p)]
        assert friends and all(got[p] >= o.throws_of(p) for p in friends)
        if name.endswith("stacked"):
            assert any(o.height(o.where[p]) > 1 for p in o.where if p[0] != side)
    # Every enemy piece moves exactly as the pillbug throws allow (none without one):
    # covers throwing foes, and never the last-moved or a stacked piece.
    for p in o.where:
        if p[0] != side:
            assert got.get(p, set()) == o.throws_of(p), p


# -- 17-19: game end and undo ------------------------------------------------------


@pytest.mark.parametrize("name, state", [("end_WhiteWins", "WhiteWins"), ("end_BlackWins", "BlackWins"),
                                         ("end_draw", "Draw"), ("end_self", None)])
def test_17_game_end(engine, name, state):
    _, gs = POSITIONS[name]
    moves = gs.split(";")[3:]
    o = Oracle.from_game_string(gs)
    if state is None:  # the last mover surrounded only its own queen, and lost
        state = "BlackWins" if len(moves) % 2 == 1 else "WhiteWins"
    assert o.state() == state
    before = newgame(engine, ";".join(gs.split(";")[:3] + moves[:-1]))
    assert before.split(";")[1] == "InProgress"
    after = engine.cmd1(f"play {moves[-1]}")
    assert after.split(";")[1] == state


def test_17_repetition_is_not_a_draw(engine):
    newgame(engine, "Base;NotStarted;White[1];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    for _ in range(4):
        for mv in ["wQ \\wS1", "bQ bS1/", "wQ -wS1", "bQ bS1-"]:
            gs = engine.cmd1(f"play {mv}")
            assert gs.split(";")[1] == "InProgress", gs


def test_18_after_game_over(engine):
    _, gs = POSITIONS["end_BlackWins"]
    gs = newgame(engine, gs)
    assert gs.split(";")[1] == "BlackWins"
    for line in ["play wQ \\wG1", "pass", "validmoves", "bestmove depth 1", "bestmove time 00:00:01"]:
        assert is_error(engine.cmd(line)), line
    fields = gs.split(";")
    o = Oracle.from_game_string(";".join(fields[:-1]))
    assert engine.cmd1("undo 1") == ";".join([fields[0], "InProgress", o.turn_string(), *fields[3:-1]])


def test_19_undo(engine):
    gs0 = newgame(engine, "Base")
    gs1 = engine.cmd1("play wS1")
    gs2 = engine.cmd1("play bS1 wS1-")
    engine.cmd1("play wQ -wS1")
    assert engine.cmd1("undo") == gs2
    engine.cmd1("play wQ -wS1")
    assert engine.cmd1("undo 2") == gs1
    gs2 = engine.cmd1("play bS1 wS1-")
    for bad in ["undo 0", "undo 3", "undo x", "undo -1", "undo 1 1", "undo 1.0"]:
        assert is_error(engine.cmd(bad)), bad
    assert engine.game_string() == gs2
    assert engine.cmd1("undo 2") == gs0 == "Base;NotStarted;White[1]"
    assert is_error(engine.cmd("undo"))


# -- 20-24: bestmove and options -----------------------------------------------------


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_20_bestmove_depth(engine, depth):
    gs = newgame(engine, MIDGAME)
    moves = entries(engine)
    assert engine.cmd(f"bestmove depth {depth}")[-1] in moves
    assert engine.game_string() == gs


TIME_SPANS = [("00:00:01", 1.0), ("00:00:00", 0.0), ("00:00:00.5000000", 0.5), ("00:00:02.5", 2.5),
              ("0.00:00:01", 1.0), ("00:00:00,25", 0.25)]


def timed_bestmove(engine: Engine, span: str) -> float:
    """``bestmove time span`` on the mid-game: checks the answer and the game, returns the seconds it took."""
    gs = newgame(engine, MIDGAME)
    moves = entries(engine)
    start = time.monotonic()
    reply = engine.cmd(f"bestmove time {span}")
    elapsed = time.monotonic() - start
    assert reply[-1] in moves
    assert engine.game_string() == gs
    return elapsed


@pytest.mark.parametrize("span, seconds", TIME_SPANS)
def test_21_bestmove_time(engine, span, seconds):
    timed_bestmove(engine, span)


@pytest.mark.timing
@pytest.mark.parametrize("span, seconds", TIME_SPANS)
def test_21_bestmove_time_keeps_the_budget(engine, span, seconds):
    elapsed = timed_bestmove(engine, span)
    assert elapsed < seconds + SLACK, f"{span}: answered after {elapsed:.2f} s"


@pytest.mark.parametrize("args", ["time", "time 5", "time abc", "time 00:00:60", "time -00:00:01",
                                  "time 00:00:01 extra", "depth", "depth -1", "depth x", "depth 1.5",
                                  "depth 1 2", "moves 3", "TIME"])
def test_21_bestmove_malformed(engine, args):
    gs = newgame(engine, MIDGAME)
    assert is_error(engine.cmd(f"bestmove {args}"))
    assert engine.game_string() == gs


def test_22_intermediate_output(engine):
    newgame(engine, MIDGAME)
    moves = entries(engine)
    assert len(engine.cmd("bestmove depth 1")) == 1  # off by default
    assert engine.cmd1("options set ReportIntermediateBestMoves True").split(";")[2] == "True"
    try:
        reply = engine.cmd("bestmove depth 1")
        assert len(reply) >= 2
        for line in reply[:-1]:
            assert line.split(";")[0] in moves
        assert reply[-1] in moves and ";" not in reply[-1]
    finally:
        engine.cmd("options set ReportIntermediateBestMoves False")


OPTION_LINE = re.compile(r"^[A-Za-z]\w*;(bool|int|double|enum);[^;]+(;[^;]+)*$")


def test_23_options(engine):
    lines = engine.cmd("options")
    assert lines and all(OPTION_LINE.match(x) for x in lines), lines
    names = {x.split(";")[0]: x for x in lines}
    assert engine.cmd("options get ReportIntermediateBestMoves") == [names["ReportIntermediateBestMoves"]]
    for value, shown in [("True", "True"), ("true", "True"), ("FALSE", "False"), ("False", "False")]:
        assert engine.cmd1(f"options set ReportIntermediateBestMoves {value}").split(";")[2] == shown
    for value, shown in [("0.5", "0.5"), ("0,5", "0.5"), ("7", "1.0"), ("0.9", "0.9")]:
        assert engine.cmd1(f"options set TimeUsage {value}").split(";")[2] == shown  # 7 is clamped
    assert is_error(engine.cmd("options get NoSuchOption"))
    assert is_error(engine.cmd("options set NoSuchOption 1"))
    assert is_error(engine.cmd("options set TimeUsage lots"))
    assert is_error(engine.cmd("options set ReportIntermediateBestMoves maybe"))
    assert is_error(engine.cmd("options frobnicate"))
    assert engine.cmd("options") == lines  # failures changed nothing


def test_24_viewer_renotation(engine):
    positions = [MIDGAME] + [POSITIONS[n][1] for n in ("beetle_gate", "ladybug_gate", "throw_gate")]
    for gs in positions:
        gs = newgame(engine, gs)
        o = Oracle.from_game_string(gs)
        best = engine.cmd1("bestmove depth 1")
        canonical = engine.cmd1(f"play {best}")
        engine.cmd1("undo")
        for other in o.spellings(best):
            if other != best:
                assert engine.cmd1(f"play {other}") == canonical, other
                assert engine.cmd1("undo") == gs


# -- 25-28: process behaviour ----------------------------------------------------


def interrupted_searches(e: Engine) -> list[float]:
    """A bare bestmove, then one of a minute, each stopped by SIGINT once its first iteration
    is reported: checks the answers; returns the seconds from each SIGINT to the answer.
    Without the SIGINT neither would answer within TIMEOUT."""
    newgame(e, MIDGAME)
    moves = entries(e)
    e.cmd1("options set UseBook False")  # a search, not the book's answer at once
    assert e.cmd1("options set ReportIntermediateBestMoves True").split(";")[2] == "True"
    waits = []
    for command in ["bestmove", "bestmove time 00:01:00"]:
        e.send(command)
        first = e.read_line()  # an iteration's line: the search runs
        assert first.split(";")[0] in moves, (command, first)
        e.sigint()
        sent = time.monotonic()
        reply = e.reply()
        waits.append(time.monotonic() - sent)
        assert reply[-1] in moves, (command, reply)
    assert e.cmd("info") == e.banner
    return waits


def test_25_sigint(fresh_engine):
    e = fresh_engine()
    interrupted_searches(e)
    e.sigint()  # idle: nothing happens
    e.assert_silent(0.5)
    assert e.alive()
    assert e.cmd("info") == e.banner


@pytest.mark.timing
def test_25_sigint_answers_at_once(fresh_engine):
    for wait in interrupted_searches(fresh_engine()):
        assert wait < STOP_SECONDS + SLACK, f"answered {wait:.2f} s after SIGINT"


def test_26_pipelining_and_eof(fresh_engine):
    e = fresh_engine(read_banner=False)
    e.proc.stdin.write(f"newgame {MIDGAME}\nbestmove depth 1\n".encode())
    e.proc.stdin.close()
    code = e.proc.wait(TIMEOUT)  # a bound on a hang, not a speed test (a loaded machine is slow)
    out = []
    while True:
        try:
            out.append(e.read_line(TIMEOUT))
        except AssertionError:
            break
    assert code == 0
    assert out[:3] == [f"id hiveai v{__version__}", "Mosquito;Ladybug;Pillbug", "ok"]
    assert out[3].startswith("Base+MLP;InProgress;White[5]") and out[4] == "ok"
    assert CANONICAL_MOVE.match(out[5]) and out[6:] == ["ok"]


def bare_bestmove_at_eof(e: Engine, closed_early: bool) -> float:
    """A bare bestmove whose input ends before it is read or (``closed_early`` False) once it
    reports its first iteration: checks the answer and the exit code 0; returns the seconds
    from the end of input to the answer. Without the end of input it would never answer."""
    newgame(e, MIDGAME)
    moves = entries(e)
    e.cmd1("options set ReportIntermediateBestMoves True")
    e.proc.stdin.write(b"bestmove\n")
    e.proc.stdin.flush()
    if not closed_early:
        assert e.read_line().split(";")[0] in moves  # it thinks
    e.proc.stdin.close()
    closed = time.monotonic()
    reply = e.reply()
    waited = time.monotonic() - closed
    assert reply and reply[-1] in moves, reply
    assert e.proc.wait(TIMEOUT) == 0
    return waited


@pytest.mark.parametrize("closed_early", [True, False])
def test_26_bare_bestmove_answers_at_eof(fresh_engine, closed_early):
    """A bare bestmove (think until SIGINT) whose input ends answers and exits: no SIGINT
    can come any more. Input closed before the command is read, or while it thinks."""
    bare_bestmove_at_eof(fresh_engine(), closed_early)


@pytest.mark.timing
@pytest.mark.parametrize("closed_early", [True, False])
def test_26_bare_bestmove_answers_soon_after_eof(fresh_engine, closed_early):
    waited = bare_bestmove_at_eof(fresh_engine(), closed_early)
    assert waited < EOF_THINK_SECONDS + SLACK, f"answered {waited:.2f} s after the end of input"


def exit_seconds(e: Engine) -> float:
    """``exit`` in a game: checks exit code 0 and nothing printed after the last ok; returns the seconds to exit."""
    newgame(e, "Base")
    sent = time.monotonic()
    e.send("exit")
    assert e.proc.wait(TIMEOUT) == 0
    waited = time.monotonic() - sent
    with pytest.raises(AssertionError):
        e.read_line(1)  # EOF, nothing printed after the last ok
    return waited


def test_27_exit(fresh_engine):
    exit_seconds(fresh_engine())


@pytest.mark.timing
def test_27_exit_at_once(fresh_engine):
    assert exit_seconds(fresh_engine()) < EXIT_SECONDS


def test_28_crlf_input(engine):
    gs = newgame(engine, MIDGAME)
    engine.send(f"newgame {MIDGAME}", end="\r\n")
    assert engine.reply() == [gs]
    moves = entries(engine)
    engine.send("validmoves", end="\r\n")
    assert engine.reply() == [";".join(moves)]
    engine.send(f"play {moves[0]}", end="\r\n")
    played = engine.reply()
    engine.send("undo", end="\r\n")
    assert engine.reply() == [gs]
    engine.send("", end="\r\n")  # blank CRLF line: no output
    engine.send("info", end="\r\n")
    assert engine.reply() == engine.banner
    assert played[0].startswith("Base+MLP;InProgress;Black[5]")


class _InputEndingDuringBareSearch:
    """stdin for an in-process server: the given lines, then the end of input at the worst
    moment for a bare bestmove, just after it has started thinking (or before it is read)."""

    def __init__(self, server, lines: list[str], early: bool) -> None:
        self.server, self.lines, self.early = server, list(lines), early

    def readline(self) -> str:
        if self.lines:
            return self.lines.pop(0)
        if not self.early:
            deadline = time.monotonic() + 30
            while not self.server.interrupts.searching_infinite and time.monotonic() < deadline:
                time.sleep(0.001)
        return ""


def bare_search_ending_at_eof(early: bool) -> tuple[float, list[str]]:
    """An in-process server answering a bare bestmove whose input ends just as it starts
    (``early``: before the main thread reads it): the seconds serve took, and the lines of
    the bestmove's answer (its iterations, the move, ok)."""
    import io

    from hiveai.uhp.server import UhpServer

    out = io.StringIO()
    server = UhpServer(out)
    lines = [f"newgame {MIDGAME}\n", "options set UseBook False\n", "options set ReportIntermediateBestMoves True\n",
             "bestmove\n"]
    if early:  # the reader sees the end of input before the main thread reads the command
        server.interrupts.input_ended()
    start = time.monotonic()
    assert server.serve(_InputEndingDuringBareSearch(server, lines, early)) == 0
    elapsed = time.monotonic() - start
    reply = out.getvalue().splitlines()
    return elapsed, reply[reply.index("ReportIntermediateBestMoves;bool;True;False") + 2:]


@pytest.mark.parametrize("early", [True, False])
def test_26_bare_bestmove_reports_however_eof_interleaves(warm_cache, early):
    """The end of input arriving just as a bare bestmove starts: both interleavings report
    their iterations, one line each from depth 1, then answer."""
    _, answer = bare_search_ending_at_eof(early)
    iterations = [int(line.split(";")[1]) for line in answer[:-2]]
    assert iterations and iterations[0] == 1 and iterations == list(range(1, len(iterations) + 1)), answer
    assert answer[-1] == "ok" and ";" not in answer[-2]


@pytest.mark.timing
@pytest.mark.parametrize("early", [True, False])
def test_26_bare_bestmove_thinks_the_same_however_eof_interleaves(warm_cache, early):
    """The end of input arriving just as a bare bestmove starts must not cut it short: both
    interleavings think EOF_THINK_SECONDS from the command (a lower bound: a slow machine
    cannot fail it, but it is a clock)."""
    elapsed, answer = bare_search_ending_at_eof(early)
    assert elapsed >= EOF_THINK_SECONDS
    assert answer[-1] == "ok" and ";" not in answer[-2]
