"""The cases: each a short conversation with the engine and an expectation.

The expectations come from the `Universal Hive Protocol
<https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol>`_ and from
the clients that speak it (MzingaViewer, the Hive website's bot bridge
hive-hydra), or from the rules, with hiveai's move generator as the
reference (:mod:`hiveai.uhpcheck.reference`). A case is a function of the
:class:`~hiveai.uhpcheck.harness.Checker`, registered in report order with
:func:`case`; it returns a message (pass) or a (status, message) pair, and
raises :class:`~hiveai.uhpcheck.verdicts.CaseFailed` to fail.
docs/engine-authors.md describes every case for engine authors.

>>> [c.name for c in CASES][:3]
['banner', 'info', 'newgame']
"""

from __future__ import annotations

import collections
import random
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from hiveai.engine import EngineError, EngineOption, EngineTerminatedError, EngineTimeoutError
from hiveai.uhpcheck.harness import STRAY_WAIT, TIME_MARGIN, cpu_seconds
from hiveai.uhpcheck.reference import (
    EXPANSIONS,
    SetDifference,
    board_from,
    compare_moves,
    game_string_problem,
    game_type_of,
    load_illegal_moves,
    load_reference_positions,
    move_key,
    sample_board,
)
from hiveai.uhpcheck.verdicts import SKIP, CaseFailed, noted

if TYPE_CHECKING:
    from hiveai.uhpcheck.harness import Checker

# Seconds an engine gets to exit once its input ends (hive-hydra waits for the exit) or after `exit`
# (MzingaViewer kills the engine 3 s after `exit`: src/Mzinga.Viewer/CLIEngineWrapper.cs).
EXIT_WAIT = 3.0
# Lines the one-process-per-move pattern may produce before the engine counts as running away.
ONE_SHOT_LINES = 200
# Positions compared in random games, over all game types: --quick and the default.
POSITIONS_QUICK = 200
POSITIONS_DEFAULT = 3000
# Plies after which a random game starts again (random play rarely ends a game).
RANDOM_GAME_PLIES = 80


@dataclass
class Case:
    """A named check; ``run(checker)`` returns a message (pass), or a (status, message) pair."""

    name: str
    group: str
    run: Callable[[Checker], object]
    doc: str


CASES: list[Case] = []


def case(name: str, group: str) -> Callable[[Callable[[Checker], object]], Callable[[Checker], object]]:
    """Register a case function under ``name`` (in report order)."""
    def wrap(fn: Callable[[Checker], object]) -> Callable[[Checker], object]:
        CASES.append(Case(name, group, fn, (fn.__doc__ or "").strip().splitlines()[0]))
        return fn
    return wrap


# --- protocol cases ----------------------------------------------------------------------------

@case("banner", "protocol")
def _banner(ck: Checker) -> object:
    """The start-up block: `id ...`, an optional capability line, `ok`."""
    lines = ck.banner
    if not lines or not lines[0].startswith("id "):
        raise CaseFailed(f"the banner's first line is not `id <name>`: {lines!r}")
    if len(lines) > 2:
        raise CaseFailed(f"the banner has {len(lines)} lines before `ok` (at most `id` and capabilities): {lines!r}")
    if len(lines) == 2:
        flags = [f for f in lines[1].split(";")]
        bad = [f for f in flags if f not in EXPANSIONS]
        if bad:
            raise CaseFailed(f"the capability line {lines[1]!r} has {bad!r}; UHP defines Mosquito, Ladybug, Pillbug")
    return f"{'; '.join(lines)}; game types {', '.join(ck.types)}"


@case("info", "protocol")
def _info(ck: Checker) -> object:
    """`info` answers the banner's block again."""
    lines = ck.ask("info", wait=STRAY_WAIT)
    if lines != ck.banner:
        raise CaseFailed(f"`info` answered {lines!r}, the banner was {ck.banner!r}")
    return "the same block as the banner"


@case("newgame", "protocol")
def _newgame(ck: Checker) -> object:
    """`newgame` and `newgame T` for every game type announced."""
    reply = ck.one("newgame")
    if reply != "Base;NotStarted;White[1]":
        raise CaseFailed(f"`newgame` answered {reply!r}, expected 'Base;NotStarted;White[1]'")
    for t in ck.types:
        reply = ck.one(f"newgame {t}")
        if reply != f"{t};NotStarted;White[1]":
            raise CaseFailed(f"`newgame {t}` answered {reply!r}, expected '{t};NotStarted;White[1]'")
    return f"{len(ck.types) + 1} forms"


# A finished game from Mzinga's tests (Board_InvalidMovesByRuleTest.csv): White's queen is surrounded.
FINISHED_GAME = ("Base;BlackWins;White[7];wS1;bS1 wS1-;wQ \\wS1;bQ bS1/;wG1 -wQ;bG1 bQ-;wA1 wG1\\;bA1 bQ\\;"
                 "wA2 \\wQ;bA2 \\bG1;wG2 wQ/;bG1 wG2\\")


@case("newgame-string", "protocol")
def _newgame_string(ck: Checker) -> object:
    """`newgame GameString`: in progress (state and turn recomputed) and finished."""
    board = sample_board("Base", 7, ck.seed)
    from hiveai.rules.notation import read_game_string
    fields = read_game_string(board.game_string())
    wrong = ";".join([fields.game_type, "NotStarted", "White[1]", *fields.moves])  # Mzinga recomputes these
    reply = ck.one(f"newgame {wrong}")
    problem = game_string_problem(reply, board)
    if problem:
        raise CaseFailed(f"`newgame {wrong}` answered {reply!r}: {problem}")
    ck.newgame(board_from(FINISHED_GAME))
    return "in progress, with wrong state fields, and finished"


@case("play", "protocol")
def _play(ck: Checker) -> object:
    """`play` answers the new GameString; `pass` is rejected while moves exist."""
    board = board_from("Base")
    ck.newgame(board)
    for _ in range(4):
        move = board.legal_moves[len(board.legal_moves) // 2]
        reply = ck.one(f"play {move}")
        board.push(move)
        problem = game_string_problem(reply, board)
        if problem:
            raise CaseFailed(f"`play {move}` answered {reply!r}: {problem}")
    ck.rejected("pass")
    return "4 plies and a refused pass"


@case("undo", "protocol")
def _undo(ck: Checker) -> object:
    """`undo`, `undo N` and too many undos (err, game kept)."""
    board = sample_board("Base", 6, ck.seed + 1)
    ck.newgame(board)
    for line, n in (("undo", 1), ("undo 2", 2)):
        reply = ck.one(line)
        board.undo(n)
        problem = game_string_problem(reply, board)
        if problem:
            raise CaseFailed(f"`{line}` answered {reply!r}: {problem}")
    ck.rejected(f"undo {board.ply + 1}")
    d = ck.validmoves(board)
    if d:
        raise CaseFailed(f"after a refused `undo {board.ply + 1}` the game changed: " + "; ".join(d.describe()))
    return "undo, undo 2, and too many refused"


@case("validmoves", "protocol")
def _validmoves(ck: Checker) -> object:
    """`validmoves` is one `;`-separated line, no empty entry, no duplicate."""
    board = sample_board("Base", 8, ck.seed + 2)
    ck.newgame(board)
    line = ck.one("validmoves")
    texts = line.split(";")
    if any(not t.strip() for t in texts):
        raise CaseFailed(f"`validmoves` has an empty entry: {line!r}")
    keys = collections.Counter()
    for t in texts:
        try:
            keys[move_key(board, t)] += 1
        except Exception:  # noqa: BLE001
            raise CaseFailed(f"`validmoves` lists {t!r}, which names no move in {board.game_string()}") from None
    dup = [k for k, n in keys.items() if n > 1]
    if dup:
        raise CaseFailed(f"`validmoves` names {len(dup)} moves twice: {line!r}")
    return f"{len(texts)} moves, well formed"


@case("errors", "protocol")
def _errors(ck: Checker) -> object:
    """No game: err; an unknown command and a malformed move: err/invalidmove, game kept."""
    for line, reply in ck.no_game:
        if not reply or not reply[0].startswith("err"):
            ck.transcript.extend(ck.no_game_exchange)
            raise CaseFailed(f"answered {reply!r} to {line!r} before any game, expected err")
    board = sample_board("Base", 5, ck.seed + 3)
    ck.newgame(board)
    for line in ("frobnicate", "play xyz", "play wQ wQ wQ", "undo x", "bestmove sideways"):
        ck.rejected(line)
    d = ck.validmoves(board)
    if d:
        raise CaseFailed("the game changed after refused commands: " + "; ".join(d.describe()))
    return "err or invalidmove, then ok, the game kept"


@case("game-over", "protocol")
def _game_over(ck: Checker) -> object:
    """After the game ended: play, pass and bestmove refused (no crash); undo works."""
    board = board_from(FINISHED_GAME)
    ck.newgame(board)
    for line in ("play wB1 wG2/", "pass", "bestmove depth 1"):
        ck.rejected(line)
    reply = ck.one("undo")
    board.undo()
    problem = game_string_problem(reply, board)
    if problem:
        raise CaseFailed(f"`undo` after the end answered {reply!r}: {problem}")
    return "refused, and undo goes back"


@case("bestmove-depth", "protocol")
def _bestmove_depth(ck: Checker) -> object:
    """`bestmove depth 1` and `depth 2`: one line, a legal move, the game unchanged."""
    board = sample_board("Base", 6, ck.seed + 4)
    ck.newgame(board)
    answers = [ck.bestmove(board, f"bestmove depth {n}")[0] for n in (1, 2)]
    d = ck.validmoves(board)
    if d:
        raise CaseFailed("bestmove changed the game: " + "; ".join(d.describe()))
    return f"{' and '.join(answers)}, legal"


@case("bestmove-time", "protocol")
def _bestmove_time(ck: Checker) -> object:
    """`bestmove time` (1 s, 0.5 s, 0 s) answered within its budget plus the margin."""
    board = sample_board("Base", 6, ck.seed + 5)
    ck.newgame(board)
    wait = 1 + TIME_MARGIN
    whole = False
    for command, budget in (("bestmove time 00:00:01", 1.0), ("bestmove time 00:00:00.5000000", 0.5),
                            ("bestmove time 00:00:00", 0.0)):
        lines = ck.ask(command, max(budget + TIME_MARGIN, min(ck.timeout, 5.0)) + 1.0)
        if lines and lines[0].startswith("err") and "." in command:
            # nokamute's convention: whole seconds only; then ceil(T) must be kept.
            _, took = ck.bestmove(board, "bestmove time 00:00:01", wait + 1.0)
            if took > wait:
                raise CaseFailed(f"`bestmove time 00:00:01` (after refusing a fraction) took {took:.2f} s")
            whole = True
            continue
        start = time.monotonic()
        ck.engine.send(command)  # asked again to time it alone
        lines = ck.engine.read_block(budget + TIME_MARGIN + 5.0, command)
        took = time.monotonic() - start
        if not lines or lines[0].startswith(("err", "invalidmove")) or not board.is_legal(lines[-1].split(";")[0]):
            raise CaseFailed(f"answered {lines!r} to {command!r}, expected a legal move")
        if took > budget + TIME_MARGIN:
            raise CaseFailed(f"`{command}` answered after {took:.2f} s (budget {budget:g} s + {TIME_MARGIN} s)")
    if whole:
        return noted("fractions refused; 1 s and 0 s answered in time", "whole-seconds")
    return "1 s, 0.5 s and 0 s answered in time"


@case("options", "protocol")
def _options(ck: Checker) -> object:
    """`options` lines well formed; `get` and `set` round trips; out-of-range values refused or clamped."""
    lines = ck.ask("options")
    if lines and lines[0].startswith("err"):
        raise CaseFailed(f"`options` answered {lines[0]!r} (an engine without options answers just ok)")
    opts = []
    for ln in lines:
        fields = ln.split(";")
        if len(fields) < 4 or any(not f for f in fields) or fields[1] not in ("bool", "int", "double", "enum"):
            raise CaseFailed(f"option line {ln!r} is not Name;bool|int|double|enum;Value;Default[;...] "
                             "with no empty field (MzingaViewer rejects the whole reply)")
        opts.append(EngineOption.parse(ln))
    for opt in opts:
        got = ck.ask(f"options get {opt.name}")
        if len(got) != 1 or EngineOption.parse(got[0]).value != opt.value:
            raise CaseFailed(f"`options get {opt.name}` answered {got!r}")
        new = {"bool": "False" if opt.value == "True" else "True", "enum": opt.choices[-1] if opt.choices else opt.value,
               "int": opt.min, "double": opt.min}.get(opt.type) or opt.value
        for value in (new, opt.value):
            got = ck.ask(f"options set {opt.name} {value}")
            if len(got) != 1 or got[0].startswith("err") or EngineOption.parse(got[0]).value != value:
                raise CaseFailed(f"`options set {opt.name} {value}` answered {got!r}")
        if opt.type == "int" and opt.min is not None:
            too_big = str(int(opt.min) - 1)  # below the minimum: a maximum may be a huge table
            got = ck.ask(f"options set {opt.name} {too_big}")
            if got and not got[0].startswith("err"):
                value = EngineOption.parse(got[0]).value
                if int(value) < int(opt.min):
                    raise CaseFailed(f"`options set {opt.name} {too_big}` took a value below its minimum "
                                     f"{opt.min}: {got!r}")
            ck.ask(f"options set {opt.name} {opt.value}")
    return f"{len(opts)} options" if opts else "no options (just ok)"


@case("sigint", "protocol")
def _sigint(ck: Checker) -> object:
    """SIGINT during `bestmove time 00:00:05` answers a legal move at once (UHP does not require it)."""
    board = sample_board("Base", 6, ck.seed + 6)
    ck.newgame(board)
    engine = ck.engine
    engine.send("bestmove time 00:00:05")
    early = engine.poll_line(0.5)
    if early is not None:
        ck.stray.clear()  # the answer itself, read early
        if early != "ok":
            engine.read_block(ck.timeout, "bestmove")
        return SKIP, f"answered {early!r} within 0.5 s, before the signal could be sent"
    engine.send_signal(signal.SIGINT)
    start = time.monotonic()
    try:
        lines = engine.read_block(6.0, "bestmove time 00:00:05 + SIGINT")
    except EngineTerminatedError:
        ck.forget_engine()
        return noted("the engine exited at SIGINT", "no-sigint")
    except EngineTimeoutError:
        ck.forget_engine()
        return noted("no answer after SIGINT", "no-sigint")
    took = time.monotonic() - start
    if not lines or not board.is_legal(lines[-1].split(";")[0]):
        raise CaseFailed(f"answered {lines!r} after SIGINT, not a legal move")
    if took > 1.5:
        return noted(f"SIGINT ignored: answered after {took:.1f} s", "no-sigint")
    ck.ask("info")
    return f"answered {lines[-1]} {took:.2f} s after SIGINT"


@case("eof", "protocol")
def _eof(ck: Checker) -> object:
    """At the end of its input the engine finishes and exits with status 0."""
    engine = ck.engine  # warm: an engine still loading may take longer to go
    engine.command("newgame Base", check=False)
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    deadline = time.monotonic() + EXIT_WAIT
    # Poll rather than wait: an engine that loops at the end of its input may also print without
    # end (MzingaCpp answers its empty reads with err lines), and those lines pile up here.
    while engine.proc.poll() is None and time.monotonic() < deadline and engine.pending_lines() < ONE_SHOT_LINES:
        time.sleep(0.02)
    code = engine.proc.poll()
    if code is None:
        flood = engine.pending_lines()
        before, t0 = cpu_seconds(engine.proc.pid), time.monotonic()
        time.sleep(0.5)
        after = cpu_seconds(engine.proc.pid)
        ck.stop()
        busy = ""
        if before is not None and after is not None:
            busy = f", using {100 * (after - before) / (time.monotonic() - t0):.0f} % of a CPU"
        if flood >= ONE_SHOT_LINES:
            busy += f", printing without end ({flood} lines so far)"
        raise CaseFailed(f"still running after its input ended{busy}; killed (hive-hydra waits for the exit)")
    ck.forget_engine()
    if code != 0:
        raise CaseFailed(f"exited with status {code} at the end of its input")
    return "exited with status 0"


@case("exit", "protocol")
def _exit(ck: Checker) -> object:
    """`exit` ends the process, printing nothing."""
    engine = ck.engine
    engine.send("exit")
    try:
        code = engine.proc.wait(EXIT_WAIT)
    except subprocess.TimeoutExpired:
        ck.stop()
        raise CaseFailed(f"still running {EXIT_WAIT:g} s after `exit`; killed") from None
    extra = []
    while True:
        try:
            line = engine.poll_line(0.2)
        except EngineTerminatedError:
            break
        if line is None:
            break
        extra.append(line)
    ck.forget_engine()
    if extra:
        raise CaseFailed(f"printed {extra!r} after `exit`")
    return f"exited with status {code}"


@case("one-shot", "protocol")
def _one_shot(ck: Checker) -> object:
    """The Hive website's pattern: `newgame GameString` and `bestmove`, input closed, first line after the second ok."""
    board = sample_board(ck.types[-1], 8, ck.seed + 7)
    engine = ck.start(read_banner=False)
    engine.send(f"newgame {board.game_string()}")
    engine.send("bestmove depth 1")
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    out: list[str] = []
    deadline = time.monotonic() + ck.timeout + EXIT_WAIT
    try:
        while time.monotonic() < deadline and len(out) < ONE_SHOT_LINES:
            out.append(engine.read_line(max(0.0, deadline - time.monotonic()), "one-shot"))
    except EngineTerminatedError:
        pass
    except EngineTimeoutError:
        ck.forget_engine()
        raise CaseFailed(f"did not answer and exit within {ck.timeout + EXIT_WAIT:g} s; output {out[:12]!r}") from None
    ck.stop()
    if len(out) >= ONE_SHOT_LINES or engine.proc.returncode not in (0, None) and not out:
        raise CaseFailed(f"printed {len(out)} lines or more after its input ended, without exiting; "
                         f"the first: {out[:10]!r}; killed")
    ck.forget_engine()
    oks = [i for i, ln in enumerate(out) if ln == "ok"]
    if len(oks) < 3 or oks[2] != len(out) - 1:
        raise CaseFailed(f"expected banner, GameString, move, each ending in ok; got {out!r}")
    answer = out[oks[1] + 1].split(";")[0]
    if not board.is_legal(answer):
        raise CaseFailed(f"the first line after the second ok is {answer!r}, not a legal move")
    code = engine.proc.returncode
    if code != 0:
        raise CaseFailed(f"exited with status {code}")
    return f"answered {answer} and exited"


# --- rules cases -------------------------------------------------------------------------------

@case("reference-moves", "rules")
def _reference_moves(ck: Checker) -> object:
    """`validmoves` equals Mzinga's move sets on real-game positions (shipped with hiveai)."""
    positions = [(g, m) for g, m in load_reference_positions() if game_type_of(g) in ck.types]
    if not positions:
        return SKIP, "the reference positions are Base+MLP games; the engine does not announce that type"
    if ck.quick:
        positions = positions[::8]
    for game, moves in positions:
        board = board_from(game)
        ck.newgame(board)
        reference = {move_key(board, t): t for t in moves.split(";")}
        d = compare_moves(board, ck.one("validmoves"), reference)
        if d:
            raise CaseFailed("differs from Mzinga's move set:\n" + "\n".join(d.describe("Mzinga")))
    return f"{len(positions)} positions equal Mzinga's sets"


@case("random-moves", "rules")
def _random_moves(ck: Checker) -> object:
    """`validmoves` equals hiveai's on positions of random games in every game type announced."""
    from hiveai.rules.notation import read_game_string
    total = POSITIONS_QUICK if ck.quick else POSITIONS_DEFAULT
    per_type = max(1, total // len(ck.types))
    found: list[str] = []
    notes: list[str] = []
    compared = differing = 0
    for game_type in ck.types:
        rng = random.Random(f"{ck.seed}:{game_type}")
        board = None
        first: tuple[SetDifference, object] | None = None
        for _ in range(per_type):
            if board is None or board.is_game_over() or board.ply >= RANDOM_GAME_PLIES:
                board = board_from(game_type)
                ck.newgame(board)
            d = ck.validmoves(board)
            compared += 1
            if d:
                differing += 1
                if first is None:
                    first = (d, board.copy())
            move = rng.choice(board.legal_moves)
            reply = ck.ask(f"play {move}")
            before = board.copy()
            board.push(move)
            if not reply or reply[0].startswith(("err", "invalidmove")):
                raise CaseFailed(f"refused `play {move}`, a legal move in {before.game_string()}: {reply!r}")
            problem = game_string_problem(reply[0], board, before)
            if problem and read_game_string(reply[0], check=False).state == "Draw" and board.is_repetition():
                notes.append(f"Draw declared at {board.game_string()}")
                board = None  # the engine's game is over: start another
            elif problem:
                raise CaseFailed(f"`play {move}` in {before.game_string()} answered {reply[0]!r}: {problem}")
        if first is not None:
            shrunk = ck.shrink(first[1], first[0])
            plies = len(read_game_string(shrunk.game).moves)
            found.append(f"{game_type}: the first difference, shrunk from {first[1].ply} plies to {plies}:\n"
                         + "\n".join(shrunk.describe()))
    if found:
        raise CaseFailed(f"{differing} of {compared} positions differ from hiveai's moves\n" + "\n".join(found))
    message = f"{compared} positions in {len(ck.types)} game types equal hiveai's moves"
    if notes:
        return noted(message + f"; {len(notes)} repetition draws, first {notes[0]}", "threefold-repetition")
    return message


@case("bestmove-legal", "rules")
def _bestmove_legal(ck: Checker) -> object:
    """`bestmove depth 1` answers a legal move in random positions of every game type."""
    count = 3 if ck.quick else 10
    n = 0
    for game_type in ck.types:
        for i in range(count):
            board = sample_board(game_type, 4 + 3 * i, ck.seed * 1000 + i)
            ck.newgame(board)
            ck.bestmove(board, "bestmove depth 1")
            n += 1
    return f"{n} answers legal"


@case("illegal-moves", "rules")
def _illegal_moves(ck: Checker) -> object:
    """Every move of the catalogue (one or more per rule) is refused and the game kept."""
    n = 0
    rules = set()
    failures: list[str] = []
    lenient: list[str] = []
    for rule, game, move in load_illegal_moves():
        if game_type_of(game) not in ck.types and not rule.startswith("A piece not in"):
            continue
        board = board_from(game)
        line = "pass" if move == "pass" else f"play {move}"
        try:
            ck.newgame(board)
            if _spells_legal_move(board, move):
                # A climb written with a direction (`bB1 -bQ` for the stack west of bQ): Mzinga
                # refuses the spelling, but the move it names is legal; accepting it is leniency.
                reply = ck.ask(line)
                if reply and not reply[0].startswith(("err", "invalidmove")):
                    lenient.append(move)
                    n += 1
                    continue
            ck.rejected(line)
            if not board.is_game_over():
                d = ck.validmoves(board)
                if d:
                    raise CaseFailed(f"after refusing `{line}` the game changed: " + "; ".join(d.describe()))
        except (CaseFailed, EngineError) as e:
            failures.append(f"{rule}: {e}\n  in {game}")
        n += 1
        rules.add(rule)
    also = (f"; accepted {', '.join(lenient)}: a legal climb spelt with a direction, which Mzinga refuses"
            if lenient else "")
    if failures:
        raise CaseFailed(f"{len(failures)} of {n} illegal moves not refused{also}:\n" + "\n".join(failures))
    return f"{n} illegal moves refused ({len(rules)} rules){also}"


def _spells_legal_move(board, text: str) -> bool:
    """Whether MoveString ``text``, read as its piece and the cell it points at, is a legal move
    (it is in the catalogue only for naming an occupied cell with a direction)."""
    try:
        code = move_key(board, text)
    except Exception:  # noqa: BLE001
        return False
    return code in board.legal_move_ints()
