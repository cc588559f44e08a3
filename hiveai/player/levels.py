"""Playing levels for people: the engine's option ``Level`` (1 to 10).

Level 10 is full strength: the engine (:class:`hiveai.player.Engine`) plays from the
book and searches as without a level. Below it, :func:`play_level` decides, and the
engine thinks less and is less exact, the way a weaker player is:

* **Node budget.** The main search stops after the level's number of nodes
  (deterministic, unlike time), one thread, so a level plays the same on any
  machine. Depth 1 is always searched in full first, so every move is scored.
  It evaluates with the linear evaluation in every game type, the one the
  levels were calibrated with (full strength uses the default evaluation,
  which is the shipped network in some game types: hiveai.evaluation.network).
* **Choice.** The search ranks the level's ``multipv`` best root moves; the
  move is drawn among those scoring within ``margin`` of the best, with
  weights ``exp((score - best) / temperature)`` (scores in hundredths: 100 is
  one queen cell). A high temperature makes the inaccuracies frequent, a
  small margin keeps them small, so the engine errs like a person, never
  plays a move the search finds absurd.
* **Safety.** Every level takes a win in one move. From level
  :data:`BLOCK_FROM_LEVEL` up it never allows a win in one it could prevent:
  candidates that give the opponent an immediate queen surround are dropped
  (and if every ranked move does, any legal move that prevents it is taken).
* **Natural time.** Given ``bestmove time T``, a level below 10 answers no
  sooner than ``min(THINK_SHARE * T, THINK_MAX)`` (0.4 s of 5 s), even when its
  budget is spent sooner: an instant reply feels like a machine.

The table below was calibrated by matches (docs/levels.md).

This is part of the engine, a layer above the searcher: :func:`play_level` calls a
:class:`hiveai.search.searcher.Searcher` it is given, and the engine calls
:func:`play_level`. The searcher knows nothing of levels.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np
from numba import njit

from hiveai.rules.board import Move
from hiveai.rules.movegen import MAX_MOVES, legal_moves, new_workspace
from hiveai.rules.position import BLACK_WINS, PLY, WHITE_WINS, do_move, game_result, undo_move
from hiveai.search.searcher import LEVEL, Line, SearchInfo, SearchResult
from hiveai.search.timeman import Budget, Limit

if TYPE_CHECKING:
    from hiveai.rules.board import Board
    from hiveai.search.searcher import Searcher

# The search switches (hiveai.switches) the levels' node budgets were calibrated
# with (docs/levels.md): none of the pruning that the full-strength linear search
# gained later, so each level stays as measured.
CALIBRATED_SWITCHES = {"rfp": 0, "nullmove": 0}

# From this level up the engine always blocks an opponent's win in one.
BLOCK_FROM_LEVEL = 4

# Natural time: a weak level answers after this share of the move budget, at most THINK_MAX seconds.
THINK_SHARE = 0.08
THINK_MAX = 0.5


@dataclass(frozen=True)
class LevelSettings:
    """How one level below full strength searches and chooses."""

    nodes: int  # node budget of the main search (after the uncapped depth-1 ranking)
    multipv: int  # root moves ranked
    margin: int  # candidates score within this of the best (hundredths)
    temperature: float  # softmax temperature of the random choice (hundredths)


# The levels below full strength. What decides strength is the depth the
# budget buys (measured on the bench's mid-game positions with multipv):
# depth 1 up to ~1.5 k nodes, 2 at ~4 k, 3 at ~15 k, 4 at ~60 k, 5 from
# ~150 k. A level whose budget buys no more depth than the one below loses
# to it as often as not (a 2x step at 15 k and at 60 k did, 48.8 % and 45 %
# over 40 games), so the steps here are ~2.5x. Temperature and margin shrink
# towards exact play. Level 1 is depth 1 and a near-uniform pick among the
# thirty best moves that do not lose at once: with the twelve best (margin
# 800, temperature 400) it still scored 51.2 % against nokamute at depth 1
# over 40 games, where a beginner level should score under 25 %.
# Calibration matches: docs/levels.md.
LEVELS: dict[int, LevelSettings] = {
    1: LevelSettings(nodes=1, multipv=30, margin=2000, temperature=600),
    2: LevelSettings(nodes=500, multipv=10, margin=400, temperature=150),
    3: LevelSettings(nodes=1_500, multipv=8, margin=300, temperature=90),
    4: LevelSettings(nodes=4_000, multipv=6, margin=200, temperature=60),
    5: LevelSettings(nodes=8_000, multipv=5, margin=150, temperature=40),
    6: LevelSettings(nodes=20_000, multipv=4, margin=100, temperature=25),
    7: LevelSettings(nodes=50_000, multipv=3, margin=60, temperature=15),
    8: LevelSettings(nodes=120_000, multipv=3, margin=40, temperature=10),
    9: LevelSettings(nodes=300_000, multipv=2, margin=20, temperature=5),
}


@njit(cache=True, nogil=True)
def winning_move(b, ws, moves, start):
    """A move that wins at once for the side to move (surrounds the enemy
    queen, not both), or -1. ``moves[start:]`` is scratch space."""
    win = WHITE_WINS if (b[PLY] & 1) == 0 else BLACK_WINS
    end = legal_moves(b, ws, moves, start)
    for i in range(start, end):
        mv = moves[i]
        token = do_move(b, mv)
        result = game_result(b)
        undo_move(b, mv, token)
        if result == win:
            return mv
    return -1


@njit(cache=True, nogil=True)
def allows_win(b, ws, moves, mv):
    """Whether after ``mv`` the opponent has a win in one."""
    token = do_move(b, mv)
    answer = winning_move(b, ws, moves, np.int64(0)) >= 0
    undo_move(b, mv, token)
    return answer


def warm(board: Board) -> None:
    """Compile (or load from numba's cache) the levels' kernels, with one of
    ``board``'s moves (it must have one): a game played below level 10 then
    starts without compiling them."""
    b = board.position_array.copy()
    moves = np.zeros(2 * MAX_MOVES, dtype=np.int32)
    winning_move(b, new_workspace(), moves, 0)
    allows_win(b, new_workspace(), moves, board.legal_move_ints()[0])


def choose(lines, settings: LevelSettings, rng: random.Random):
    """One of the multipv ``lines``, drawn as the module docstring says. The lines come best first,
    but a move an unfinished iteration proved better may head them with a score from that iteration,
    below a later line's: the margin and the weights count from the highest score, so no weight
    exceeds 1."""
    scores = [ln.score.relative.to_int() for ln in lines]
    best = max(scores)
    near = [(ln, s) for ln, s in zip(lines, scores) if s >= best - settings.margin]
    weights = [math.exp((s - best) / settings.temperature) for _, s in near]
    return rng.choices([ln for ln, _ in near], weights)[0]


def play_level(searcher: Searcher, board: Board, limits: Budget, level: int, rng: random.Random, *,
               multipv: int = 1, on_iteration: Callable[[SearchInfo], None] | None = None) -> SearchResult:
    """The move ``searcher`` plays on ``board`` within ``limits`` at ``level`` (1 to 9).

    The level searches as the module docstring says, on one thread whatever
    ``searcher.threads`` is (a node budget is only deterministic there), and
    draws the move with ``rng``. It ranks at least ``multipv`` lines, and the
    level's own number; ``on_iteration`` sees every completed iteration, its
    nodes and seconds counted from the start of the move; ``limits.nodes`` caps
    the nodes the move searches beyond the depth-1 ranking, which is always
    searched in full (below the level's own budget, never above it). Full
    strength (level 10) is the engine's plain search, not this.
    """
    settings = LEVELS[level]
    nodes = limits.nodes
    ranked = max(multipv, settings.multipv)
    start = time.monotonic()
    legal = board.legal_move_ints()
    if not legal:
        raise ValueError("the game is over: there is no move to search")
    b = board.position_array.copy()
    ws = new_workspace()
    moves = np.zeros(2 * MAX_MOVES, dtype=np.int32)
    win = int(winning_move(b, ws, moves, 0))
    if win >= 0:
        move = Move(win, board.move_to_string(win))
        result = SearchResult(move, None, 0, 0, 0.0, [move])
    else:
        first = searcher.search(board, Limit(depth=1), ranked, on_iteration, stop=limits.stop, threads=1,
                                linear=True, switches=CALIBRATED_SWITCHES)
        result = first
        budget = settings.nodes if nodes is None else min(settings.nodes, nodes - first.nodes)
        if settings.nodes > 1 and budget > 0 and not limits.out_of_time():
            report = None if on_iteration is None else _after(on_iteration, first.nodes, time.monotonic() - start)
            deeper = searcher.search(board, dataclasses.replace(limits, nodes=budget), ranked, report, threads=1,
                                     linear=True, switches=CALIBRATED_SWITCHES)
            total = first.nodes + deeper.nodes
            # A deeper answer, unless its lines are fewer (an iteration cut short before any).
            if deeper.depth > first.depth and len(deeper.lines) >= len(first.lines):
                result = deeper
            result.nodes = total
        lines = result.lines[: settings.multipv]  # a move found in an unfinished iteration may come on top
        if level >= BLOCK_FROM_LEVEL and lines:
            safe = [ln for ln in lines if not allows_win(b, ws, moves, ln.move.code)]
            if not safe:
                block = next((mv for mv in legal if not allows_win(b, ws, moves, mv)), None)
                if block is not None:
                    move = Move(block, board.move_to_string(block))
                    safe = [Line(move, lines[-1].score, [move])]
            lines = safe or lines
        if lines:
            pick = choose(lines, settings, rng)
            result = SearchResult(pick.move, pick.score, result.depth, result.nodes, result.seconds, pick.pv,
                                  result.lines, result.tt_hits, result.tt_probes)
    result.source = LEVEL
    _think_naturally(limits, start)
    result.seconds = time.monotonic() - start
    return result


def _after(on_iteration: Callable[[SearchInfo], None], nodes: int,
           seconds: float) -> Callable[[SearchInfo], None]:
    """``on_iteration`` for a search that starts ``nodes`` nodes and ``seconds``
    seconds into the move: its reports counted from the start of the move."""

    def report(info: SearchInfo) -> None:
        total, elapsed = info.nodes + nodes, info.seconds + seconds
        on_iteration(dataclasses.replace(info, nodes=total, seconds=elapsed,
                                         nps=total / elapsed if elapsed > 0 else 0.0))

    return report


def _think_naturally(limits: Budget, start: float) -> None:
    """Wait until the level's minimum thinking time, unless told to stop."""
    if limits.hard is None:
        return
    until = start + min(THINK_SHARE * max(0.0, limits.hard - start), THINK_MAX)
    while time.monotonic() < until and not limits.stopped():
        time.sleep(0.005)
