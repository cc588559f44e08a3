"""The search benchmark behind ``hiveai bench``, like Stockfish's ``bench``.

A fixed list of positions is searched to fixed depths, each with a fresh
:class:`~hiveai.search.searcher.Searcher` (empty table, history and killers), so the
node counts depend only on the code: their sum is a *signature* that changes
exactly when the search's behaviour does (move ordering, pruning, evaluation,
the rules). A change meant to be a pure speed-up must keep it; the lead can
quote it in a commit message, as Stockfish does with ``Bench: N``. The
signature also depends on the table size (replacement), so compare runs with
the same ``tt_mb``.

Speed figures (nodes/s) are noisy on a shared machine; the signature is not.
Per position we report time to each depth, the effective branching factor
and the TT hit rate; in total nodes/s overall and on the mid-game positions,
the figure with a target (:data:`MIDGAME_NPS_TARGET`), set against the perft rate (leaves/s,
the move generator alone) on the same positions.

Kernels are compiled or loaded (:func:`hiveai.search.searcher.warmup`) before anything
is timed, so compile time never pollutes the figures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from hiveai.rules.board import Board, Move
from hiveai.search.score import format_score, int_score
from hiveai.search.searcher import Searcher, SearchInfo, warmup
from hiveai.search.timeman import Limit

# Table size of the bench searches: Stockfish's bench default (16 MB) and
# what hiveai.think() uses. Big enough that the bench rarely
# replaces entries, small enough to allocate in no time per position.
BENCH_TT_MB = 16

# Perft depth for the move-generator rate on the mid-game positions: depth 3
# is 0.2-1 M leaves per position here, a few hundredths of a second each.
PERFT_DEPTH = 3

# The project's target for search speed on the mid-game positions, evaluation
# included, in nodes/s on one core; `hiveai bench` says whether a run met it.
MIDGAME_NPS_TARGET = 1_000_000


@dataclass(frozen=True)
class BenchPosition:
    """One bench position: a name, a GameString and the depth it is searched to."""

    name: str
    game: str  # GameString, or a GameTypeString for the empty board
    depth: int
    midgame: bool  # counts towards the mid-game nodes/s and the perft comparison


# Depths chosen so the whole bench is a few million nodes, a few seconds on a
# 2-core machine. The empty boards get a smaller share: the mid-game is what
# games are made of.
# Mid-game positions come from tests/data/perft/random_positions.tsv (random
# play, perft-verified against MzingaCpp and nokamute), except the last.
POSITIONS: tuple[BenchPosition, ...] = (
    BenchPosition("Base start", "Base", 7, False),
    BenchPosition("Base+MLP start", "Base+MLP", 7, False),
    BenchPosition(
        "Base mid-game",
        "Base;InProgress;White[9];wS1;bB1 \\wS1;wS2 wS1-;bG1 -bB1;wB1 wS2/;bB2 /bG1;wQ wB1/;bQ bB2\\;"
        "wG1 wB1\\;bG2 \\bB1;wA1 wQ/;bG3 bG2/;wA1 -wB1;bA1 /bQ;wA1 -bB2;bA2 bG3-",
        6, True),
    BenchPosition(
        "Base late mid-game",
        "Base;InProgress;White[21];wG1;bB1 wG1/;wB1 /wG1;bG1 \\bB1;wS1 wG1\\;bB2 bB1/;wQ wS1-;bQ -bG1;"
        "wB1 /wS1;bQ /bG1;wG2 /wB1;bA1 \\bG1;wA1 -wG2;bB2 bB1;wA2 /wA1;bA1 /bQ;wA2 bG1/;bA1 -wB1;"
        "wA1 \\wA2;bA1 wA1/;wB2 -wB1;bQ -wG1;wS2 /wB2;bB2 bG1;wG3 wA2-;bB2 -bG1;wS2 -bQ;bA2 bA1-;"
        "wA3 wG2\\;bA2 wS1\\;wA3 bA2\\;bA3 -bB2;wA3 -wB2;bA1 wG3-;wA1 wA3\\;bA2 bA1-;wA3 \\wA2;"
        "bA2 wQ-;wA1 /wA3;bS1 bB1-",
        6, True),
    BenchPosition(
        "Base+MLP mid-game",
        "Base+MLP;InProgress;White[9];wL;bS1 wL-;wM /wL;bA1 bS1/;wA1 /wM;bL bA1/;wQ wA1\\;bQ -bL;"
        "wG1 -wA1;bS2 bA1\\;wQ wM\\;bB1 bL/;wS1 wA1\\;bP -bQ;wB1 /wG1;bG1 bS2\\",
        6, True),
    BenchPosition(
        "Base+M mid-game",
        "Base+M;InProgress;White[14];wG1;bM \\wG1;wM wG1\\;bQ -bM;wS1 /wG1;bB1 -bQ;wQ -wS1;bB2 \\bB1;"
        "wA1 -wQ;bB2 bB1;wB1 wS1\\;bS1 bM/;wA1 bB2\\;bG1 bS1/;wS2 wM/;bG2 bG1/;wA2 wM\\;bG2 bQ\\;"
        "wG1 -bS1;bG3 \\bG1;wA1 wB1\\;bM wS2-;wA1 -bB2;bA1 bG3/;wA1 \\wG1;bB2 bB1\\",
        6, True),
    BenchPosition(
        "Base+L mid-game",
        "Base+L;InProgress;White[9];wA1;bA1 -wA1;wG1 wA1/;bA2 -bA1;wB1 wG1\\;bQ -bA2;wQ wG1/;"
        "bS1 bQ\\;wA2 \\wQ;bQ \\bA2;wB1 wG1;bB1 bQ/;wA2 wQ\\;bS2 bS1\\;wG2 wA2\\;bB1 bQ",
        6, True),
    BenchPosition(
        "Base+P mid-game",
        "Base+P;InProgress;White[9];wB1;bG1 /wB1;wA1 wB1/;bG2 -bG1;wA2 wA1/;bB1 bG1\\;wQ wA2-;"
        "bQ /bB1;wP -wA2;bA1 -bQ;wS1 wA2\\;bP bB1-;wB2 wQ\\;bA1 -wB1;wA2 bQ\\;bA1 bP-",
        6, True),
    # Black to move with five pieces around its queen: it must defend
    # against the surround, so the search is full of forced lines. Found by
    # random play (random.Random(12) choosing among Board("Base").legal_move_ints()),
    # the first position from ply 14 on with a queen of five neighbours.
    BenchPosition(
        "Queen 5 neighbours",
        "Base;InProgress;Black[10];wA1;bB1 wA1-;wG1 /wA1;bB2 bB1\\;wA2 wG1\\;bG1 bB2\\;wQ /wG1;bQ bG1-;"
        "wS1 -wG1;bG2 bQ\\;wA3 \\wA1;bS1 bG2\\;wA3 \\bB1;bG3 bG1\\;wA3 bS1\\;bS2 \\bQ;wA3 -wA1;"
        "bA1 bS1\\;wA2 bQ/",
        6, True),
)


@dataclass
class PositionResult:
    """The search of one bench position."""

    name: str
    game_string: str
    depth: int
    midgame: bool
    nodes: int
    seconds: float
    move: Move
    score: int | None
    tt_hits: int
    tt_probes: int
    # (depth, cumulative nodes, seconds since start) of each completed iteration
    iterations: list[tuple[int, int, float]] = field(default_factory=list)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def tt_hit_rate(self) -> float:
        """Fraction of table probes that found the position."""
        return self.tt_hits / self.tt_probes if self.tt_probes else 0.0

    @property
    def ebf(self) -> float:
        """Effective branching factor: growth of the cumulative node count per ply.

        The geometric mean of the last two iterations' ratios,
        ``sqrt(N(d) / N(d-2))``: alpha-beta alternates cheap and dear plies,
        so a single ratio swings with the parity of ``d``. Below depth 3 it
        falls back to ``N(d) ** (1/d)``.
        """
        if len(self.iterations) >= 3 and self.iterations[-3][1] > 0:
            return (self.iterations[-1][1] / self.iterations[-3][1]) ** 0.5
        return self.nodes ** (1 / self.depth) if self.depth > 0 and self.nodes > 0 else 0.0


@dataclass
class PerftResult:
    """Perft of the mid-game positions: the move generator's rate on them."""

    depth: int
    positions: int
    leaves: int
    seconds: float
    # Positions whose move list perft generated (plies 0 .. depth-1): the
    # work each interior search node also does, before ordering and probing.
    move_lists: int = 0

    @property
    def leaves_per_second(self) -> float:
        return self.leaves / self.seconds if self.seconds > 0 else 0.0

    @property
    def move_lists_per_second(self) -> float:
        return self.move_lists / self.seconds if self.seconds > 0 else 0.0


@dataclass
class BenchReport:
    """Everything one bench run measured."""

    tt_mb: int
    depth_offset: int
    positions: list[PositionResult]
    perft: PerftResult
    threads: int = 1

    @property
    def signature(self) -> int:
        """Total nodes searched: deterministic for a given code and ``tt_mb``."""
        return sum(p.nodes for p in self.positions)

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.positions)

    @property
    def nps(self) -> float:
        return self.signature / self.seconds if self.seconds > 0 else 0.0

    @property
    def midgame_nodes(self) -> int:
        return sum(p.nodes for p in self.positions if p.midgame)

    @property
    def midgame_seconds(self) -> float:
        return sum(p.seconds for p in self.positions if p.midgame)

    @property
    def midgame_nps(self) -> float:
        """Nodes/s over the mid-game positions together (total nodes / total time)."""
        return self.midgame_nodes / self.midgame_seconds if self.midgame_seconds > 0 else 0.0

    def to_json(self) -> dict:
        """The report as plain JSON types, for ``hiveai bench --json``."""
        return {
            "signature": self.signature,
            "tt_mb": self.tt_mb,
            "threads": self.threads,
            "depth_offset": self.depth_offset,
            "seconds": round(self.seconds, 6),
            "nps": round(self.nps),
            "midgame_nodes": self.midgame_nodes,
            "midgame_seconds": round(self.midgame_seconds, 6),
            "midgame_nps": round(self.midgame_nps),
            "midgame_nps_target": MIDGAME_NPS_TARGET,
            "perft": {"depth": self.perft.depth, "positions": self.perft.positions, "leaves": self.perft.leaves,
                      "seconds": round(self.perft.seconds, 6),
                      "leaves_per_second": round(self.perft.leaves_per_second),
                      "move_lists": self.perft.move_lists,
                      "move_lists_per_second": round(self.perft.move_lists_per_second)},
            "positions": [
                {"name": p.name, "game": p.game_string, "depth": p.depth, "midgame": p.midgame,
                 "nodes": p.nodes, "seconds": round(p.seconds, 6), "nps": round(p.nps),
                 "move": str(p.move), "score": p.score, "ebf": round(p.ebf, 3),
                 "tt_hits": p.tt_hits, "tt_probes": p.tt_probes, "tt_hit_rate": round(p.tt_hit_rate, 4),
                 "iterations": [{"depth": d, "nodes": n, "seconds": round(s, 6)} for d, n, s in p.iterations]}
                for p in self.positions
            ],
        }


def bench_position(position: BenchPosition, depth_offset: int = 0, tt_mb: int = BENCH_TT_MB,
                   threads: int = 1) -> PositionResult:
    """Search one position to its depth plus ``depth_offset`` (at least 1) with a fresh Searcher."""
    board = Board.parse(position.game)
    depth = max(1, position.depth + depth_offset)
    iterations: list[tuple[int, int, float]] = []

    def record(info: SearchInfo) -> None:
        iterations.append((info.depth, info.nodes, info.seconds))

    result = Searcher(tt_mb=tt_mb, threads=threads).search(board, Limit(depth=depth), on_iteration=record)
    return PositionResult(position.name, board.game_string(), result.depth, position.midgame, result.nodes,
                          result.seconds, result.move, int_score(result.score), result.tt_hits, result.tt_probes,
                          iterations)


def perft_rate(positions: tuple[BenchPosition, ...], depth: int = PERFT_DEPTH) -> PerftResult:
    """Perft ``depth`` of each position, leaves and time summed (last ply bulk-counted).

    Also counts the move lists generated (untimed: the positions at plies
    below ``depth``, from shallower perfts; finished games are counted too,
    a slight overestimate).
    """
    boards = [Board.parse(p.game) for p in positions]
    leaves, seconds = 0, 0.0
    for board in boards:
        start = time.perf_counter()
        leaves += board.perft(depth)
        seconds += time.perf_counter() - start
    move_lists = sum(board.perft(d) for board in boards for d in range(depth))
    return PerftResult(depth, len(boards), leaves, seconds, move_lists)


def run_bench(depth_offset: int = 0, tt_mb: int = BENCH_TT_MB,
              positions: tuple[BenchPosition, ...] = POSITIONS,
              on_position: Callable[[PositionResult], None] | None = None, threads: int = 1) -> BenchReport:
    """Warm the kernels, search every position, then time perft on the mid-game ones.

    ``on_position`` is called after each search, for progress output. With
    ``threads`` > 1 (Lazy SMP) the node counts vary from run to run; time to
    each depth is the figure to compare.
    """
    warmup()
    results = []
    for position in positions:
        results.append(bench_position(position, depth_offset, tt_mb, threads))
        if on_position is not None:
            on_position(results[-1])
    perft = perft_rate(tuple(p for p in positions if p.midgame))
    return BenchReport(tt_mb, depth_offset, results, perft, threads)


# --- Text output --------------------------------------------------------------

_NAME_WIDTH = 20


def format_header(tt_mb: int, depth_offset: int, count: int = len(POSITIONS), threads: int = 1) -> list[str]:
    """The lines printed before the first position."""
    offset = f", depth offset {depth_offset:+d}" if depth_offset else ""
    smp = f", {threads} threads (Lazy SMP: nodes vary)" if threads > 1 else ""
    return [
        f"hiveai bench: {count} positions, fresh {tt_mb} MB table each{offset}{smp}",
        f"{'position':<{_NAME_WIDTH}} {'depth':>5} {'nodes':>11} {'seconds':>8} {'nodes/s':>10} {'ebf':>5} "
        f"{'tt hit':>6}  {'move':<12} {'score':>7}  time to each depth (s)",
    ]


def format_position(r: PositionResult) -> str:
    """One table row for a searched position."""
    times = " ".join(f"{s:.3f}" if s < 1 else f"{s:.2f}" for _, _, s in r.iterations)
    return (f"{r.name:<{_NAME_WIDTH}} {r.depth:>5} {r.nodes:>11,} {r.seconds:>8.3f} {r.nps:>10,.0f} {r.ebf:>5.2f} "
            f"{r.tt_hit_rate:>6.1%}  {str(r.move):<12} {format_score(r.score):>7}  {times}")


def format_totals(report: BenchReport) -> list[str]:
    """The summary lines; the last one is the signature."""
    perft = report.perft
    midgame_count = sum(p.midgame for p in report.positions)
    verdict = "met" if report.midgame_nps >= MIDGAME_NPS_TARGET else "not met"
    nps = report.midgame_nps
    return [
        f"total: {report.signature:,} nodes in {report.seconds:.3f} s = {report.nps:,.0f} nodes/s",
        f"mid-game ({midgame_count} positions): {report.midgame_nodes:,} nodes in {report.midgame_seconds:.3f} s"
        f" = {report.midgame_nps:,.0f} nodes/s (target {MIDGAME_NPS_TARGET:,} nodes/s: {verdict})",
        f"perft {perft.depth} on the same {perft.positions} positions: {perft.leaves:,} leaves in "
        f"{perft.seconds:.3f} s = {perft.leaves_per_second:,.0f} leaves/s (last ply bulk-counted)"
        + (f": {perft.leaves_per_second / nps:.0f}x the mid-game search nodes/s" if nps > 0 else ""),
        f"  perft move lists generated: {perft.move_lists:,} = {perft.move_lists_per_second:,.0f}/s "
        f"(a search's interior nodes each generate one; its leaves only evaluate)",
        f"signature: {report.signature} nodes",
    ]
