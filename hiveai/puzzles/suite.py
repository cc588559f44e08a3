"""Puzzles as a test suite for engines: ``hiveai puzzles solve``, and the play-out check.

**Solve** (:func:`solve`): each position goes to a UHP engine through
:mod:`hiveai.engine` (``newgame`` with the GameString, then ``bestmove`` with the
time or depth asked); the position is solved when the engine's move is one of
its answers (the puzzle's first move, or a plain list's best move), compared
as moves, not as text (``wQ -bA1`` and ``wQ bS1/`` may name one move). The
report gives solved/total by game type and by proof depth, the time of each
position, and every failure with the move played.

**Play-out** (:func:`playout`): the check that a puzzle's solution wins against
an independent engine's defence. From the puzzle, the solver's moves come from
the proof (the line while the engine follows it, else the fastest win against
the engine's own reply) and the defence from the engine; the puzzle passes when
the enemy queen is surrounded within its N moves. Any UHP engine will do;
nokamute is the independent one the docs report.
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from hiveai.search.timeman import Limit

if TYPE_CHECKING:
    from hiveai.engine import UhpEngine
    from hiveai.puzzles.puzzlefile import Case, Puzzle
    from hiveai.rules.board import Board

__all__ = ["CaseResult", "PlayoutResult", "SolveReport", "default_engine", "playout", "report_text", "solve"]


def default_engine() -> list[str]:
    """hiveai's own UHP engine, as a command."""
    return [sys.executable, "-m", "hiveai"]


@dataclass
class CaseResult:
    """One position of a solve run: ``solved``, the move ``played`` (None: the engine
    failed, ``error`` says how) and the ``seconds`` it took."""

    name: str
    game_type: str
    depth: int | None
    expected: list[str]
    played: str | None
    solved: bool
    seconds: float
    error: str = ""


@dataclass
class SolveReport:
    """A solve run: the engine, the limit, each case's result."""

    engine: str
    limit: str
    results: list[CaseResult] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(r.solved for r in self.results)

    def table(self, key: Callable[[CaseResult], object]) -> dict[object, tuple[int, int]]:
        """(solved, total) grouped by ``key`` of each result."""
        out: dict[object, list[int]] = {}
        for r in self.results:
            cell = out.setdefault(key(r), [0, 0])
            cell[0] += r.solved
            cell[1] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}

    def to_json(self) -> dict:
        """The report as plain data (``--json``)."""
        return {"engine": self.engine, "limit": self.limit, "solved": self.solved, "total": len(self.results),
                "by_game_type": {k: list(v) for k, v in self.table(lambda r: r.game_type).items()},
                "by_depth": {str(k): list(v) for k, v in self.table(lambda r: r.depth).items()},
                "cases": [asdict(r) for r in self.results]}


def _limit_text(limit: Limit) -> str:
    return f"{limit.time:g} s" if limit.time is not None else f"depth {limit.depth}"


def _start(command: Sequence[str] | None, whole_seconds: bool) -> UhpEngine:
    from hiveai.engine import popen_uhp

    engine = popen_uhp(list(command) if command else default_engine(), whole_seconds=whole_seconds)
    if "UseBook" in engine.options:
        engine.configure({"UseBook": False})  # a puzzle asks the engine to think, not to recall
    return engine


def _ask(engine: UhpEngine, board: Board, limit: Limit, command: Sequence[str] | None,
         whole_seconds: bool) -> tuple[UhpEngine, str | None, str]:
    """The engine's move in ``board``: (the engine, the move, ""), or, when it fails (an error
    answer, a crash, a hang), (a freshly started engine, None, the first line of what went wrong)."""
    from hiveai.engine import EngineError

    try:
        return engine, str(engine.play(board, limit).move), ""
    except EngineError as e:
        engine.kill()
        return _start(command, whole_seconds), None, str(e).splitlines()[0]


def solve(cases: list[Case], command: Sequence[str] | None = None, limit: Limit = Limit(time=1.0), *,
          whole_seconds: bool = False, on_case: Callable[[CaseResult, int, int], None] | None = None) -> SolveReport:
    """Run ``cases`` against the UHP engine ``command`` (default: hiveai's own).

    A case with its own depth (a plain list's third column) is searched to that
    depth when ``limit`` is a depth limit. An engine that dies or hangs on a case
    counts it unsolved (``error`` says why) and is started again.
    """
    from hiveai.errors import HiveError
    from hiveai.rules.board import Board

    engine = _start(command, whole_seconds)
    label = _limit_text(limit)
    if limit.depth is not None and any(c.depth for c in cases):
        label += " (a position's own depth where it names one)"
    report = SolveReport(" ".join(command) if command else "hiveai", label)
    try:
        for i, case in enumerate(cases, 1):
            board = Board(case.game)
            asked = Limit(depth=case.depth) if limit.depth is not None and case.depth else limit
            start = time.monotonic()
            engine, played, error = _ask(engine, board, asked, command, whole_seconds)
            seconds = time.monotonic() - start
            solved = False
            if played is not None:
                try:
                    code = board.parse_move(played).code
                    solved = any(board.parse_move(m).code == code for m in case.answers)
                except HiveError as e:
                    error = str(e)
            result = CaseResult(case.name, case.game_type, case.proof_depth, list(case.answers), played, solved,
                                round(seconds, 3), error)
            report.results.append(result)
            if on_case is not None:
                on_case(result, i, len(cases))
    finally:
        engine.quit()
    return report


def report_text(report: SolveReport) -> str:
    """The human-readable report: totals by game type and depth, times, failures."""
    lines = [f"{report.engine} at {report.limit} a position: {report.solved}/{len(report.results)} solved"]
    if report.results:
        lines.append(f"{100 * report.solved / len(report.results):.1f} %, "
                     f"{sum(r.seconds for r in report.results) / len(report.results):.2f} s a position on average, "
                     f"{max(r.seconds for r in report.results):.2f} s at most")
    lines.append("")
    lines.append(f"{'game type':<10} {'solved':>7} {'total':>6}")
    for gt, (s, t) in report.table(lambda r: r.game_type).items():
        lines.append(f"{gt:<10} {s:>7} {t:>6}")
    lines.append("")
    lines.append(f"{'depth':<10} {'solved':>7} {'total':>6}")
    for depth, (s, t) in sorted(report.table(lambda r: r.depth).items(), key=lambda kv: (kv[0] is None, kv[0])):
        lines.append(f"{'-' if depth is None else depth:<10} {s:>7} {t:>6}")
    failures = [r for r in report.results if not r.solved]
    if failures:
        lines.append("")
        lines.append("failures:")
        for r in failures:
            what = f"played {r.played}" if r.played else f"no move ({r.error})"
            lines.append(f"  {r.name} {r.game_type} depth {r.depth}: {what}, expected {' or '.join(r.expected)}"
                         f" ({r.seconds:.2f} s)")
    return "\n".join(lines)


@dataclass
class PlayoutResult:
    """One puzzle played out: ``won`` within its N moves, the ``line`` played. ``error``: the
    engine failed on the puzzle (refused its position, died, hung), so it was not played out;
    such a result is neither won nor lost."""

    id: str
    game_type: str
    depth: int
    won: bool
    line: list[str]
    reason: str = ""
    error: str = ""


def playout(puzzles: list[Puzzle], command: Sequence[str] | None = None, limit: Limit = Limit(time=1.0), *,
            whole_seconds: bool = False,
            on_puzzle: Callable[[PlayoutResult, int, int], None] | None = None) -> list[PlayoutResult]:
    """Play each win puzzle's solution against the engine ``command``'s defence (module docstring).

    An engine that fails on a puzzle (an ``invalidmove`` for its position, a crash, a hang) leaves
    that puzzle not played (the result's ``error``) and is started again for the next."""
    from hiveai.puzzles.prove import fastest_win, make_prover

    engine = _start(command, whole_seconds)
    prover = make_prover()
    out = []
    try:
        wins = [p for p in puzzles if p.kind == "win"]
        for i, puzzle in enumerate(wins, 1):
            board = puzzle.board()
            me = board.turn
            line: list[str] = []
            reason = error = ""
            left = puzzle.depth
            while not board.is_game_over() and left > 0:
                if board.turn == me:
                    if line == puzzle.solution[: len(line)]:
                        move = puzzle.solution[len(line)]
                    else:
                        plies = fastest_win(board, prover, left)
                        if plies is None:
                            reason = f"no forced win left after {';'.join(line)}"
                            break
                        prover.wins(board.position_array, plies, me)
                        move = board.move_to_string(prover.best)
                else:
                    engine, move, error = _ask(engine, board, limit, command, whole_seconds)
                    if move is None:
                        break
                board.push(move)
                line.append(str(board.peek()))
                left -= 1
            won = not error and board.is_game_over() and board.outcome() is not None and board.outcome().winner == me
            if not won and not reason and not error:
                reason = f"not won within {puzzle.depth} plies"
            result = PlayoutResult(puzzle.id, puzzle.game_type, puzzle.depth, won, line, reason, error)
            out.append(result)
            if on_puzzle is not None:
                on_puzzle(result, i, len(wins))
    finally:
        engine.quit()
    return out
