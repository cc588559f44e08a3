"""The one-call search: :func:`think` a :class:`~hiveai.rules.board.Board` within a :class:`~hiveai.search.limit.Limit`.

python-chess asks an engine ``engine.play(board, Limit(...))``; hiveai's own
search answers the same question in-process:

>>> from hiveai import Board, Limit, think
>>> result = think(Board("Base"), Limit(depth=2))
>>> result.move in Board("Base").legal_moves, result.depth, result.score.turn
(True, 2, 0)

The score is a :class:`~hiveai.search.score.PovScore`: ``result.score.white()`` is
White's view, ``result.score.relative`` the side to move's, and a forced
result is a :class:`~hiveai.search.score.Win` (plies), not a big number.

To stop a search from another thread, pass a :class:`StopHandle` and call its
:meth:`~StopHandle.stop`: the search answers within milliseconds with the
best move found so far.

>>> import threading
>>> handle = StopHandle()
>>> timer = threading.Timer(0.2, handle.stop)
>>> timer.start()
>>> result = think(Board("Base+MLP"), Limit(depth=40), stop=handle)
>>> result.depth < 40, handle.is_set()
(True, True)

Built on :class:`hiveai.search.searcher.Searcher` (pass one as ``searcher=`` to keep its
transposition table between moves, as a game-playing program should). This
module itself imports no numba: the search loads on the first call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from hiveai.search.limit import Limit
from hiveai.search.score import PovScore, Score
from hiveai.search.timeman import Limits, StopFlag, time_limits

if TYPE_CHECKING:
    from hiveai.rules.board import Board, Move
    from hiveai.search.searcher import Searcher, SearchInfo, SearchResult

__all__ = ["StopHandle", "ThinkResult", "Variation", "think"]

# Transposition table of the searcher think() makes when none is given (MB):
# enough for a few seconds, quick to allocate.
THINK_TT_MB = 16


class StopHandle:
    """Lets another thread stop a running :func:`think` (or one not yet started).

    Safe to call from any thread or a signal handler. One handle serves one
    search at a time; :meth:`clear` makes it reusable.

    >>> handle = StopHandle()
    >>> handle.is_set(), handle.stop(), handle.is_set()
    (False, None, True)
    """

    __slots__ = ("_flag",)

    def __init__(self) -> None:
        self._flag = StopFlag()

    def stop(self) -> None:
        """Ask the search to answer now (with the best move found so far)."""
        self._flag.set()

    def is_set(self) -> bool:
        """Whether a stop was asked for."""
        return self._flag.is_set()

    def clear(self) -> None:
        """Forget the stop request, to use the handle for another search."""
        self._flag.clear()


@dataclass
class Variation:
    """One line of a multipv search: the root move, its score and the principal variation."""

    move: Move
    score: PovScore
    pv: list[Move]


@dataclass
class ThinkResult:
    """What :func:`think` found.

    ``move`` is the move to play; ``score`` its :class:`~hiveai.search.score.PovScore`
    (None when nothing was searched: a zero time or depth); ``depth`` the last
    completed iteration; ``pv`` the principal variation (``pv[0] == move``);
    ``lines`` the multipv lines, best first; ``search`` the search's own
    :class:`hiveai.search.searcher.SearchResult` (table hits and the like).

    >>> from hiveai import Board
    >>> result = think(Board("Base"), Limit(depth=1))
    >>> result.pv[0] == result.move, result.depth, result.search.depth
    (True, 1, 1)
    """

    move: Move
    score: PovScore | None
    depth: int
    nodes: int
    seconds: float
    pv: list[Move]
    lines: list[Variation] = field(default_factory=list)
    search: SearchResult | None = None


def limits_for(limit: Limit, stop: StopFlag) -> Limits:
    """The search's internal limits for a :class:`Limit` (an empty one: the default depth)."""
    from hiveai.search.searcher import DEFAULT_DEPTH

    limits = time_limits(limit.time, stop) if limit.time is not None else Limits(stop=stop)
    limits.depth = limit.depth
    if limit.is_empty():
        limits.depth = DEFAULT_DEPTH
    return limits


def think(board: Board, limit: Limit = Limit(), *, multipv: int = 1, stop: StopHandle | None = None,
          searcher: Searcher | None = None, threads: int = 1,
          on_iteration: Callable[[SearchInfo], None] | None = None) -> ThinkResult:
    """Search ``board`` (left unchanged) within ``limit``; returns a :class:`ThinkResult`.

    ``limit`` may combine time (seconds), depth (plies) and nodes: the search
    ends at the first reached (nodes count the main thread's). An empty limit
    searches to the default depth (4). ``multipv`` > 1 ranks the next best moves
    too. ``stop`` ends the search early from another thread. ``searcher``
    reuses a :class:`hiveai.search.searcher.Searcher` (its table and threads); otherwise a
    fresh one with ``threads`` threads is made (one thread: reproducible).
    ``on_iteration`` is called after every completed iteration. Raises
    ValueError on a finished game.

    >>> from hiveai import Board
    >>> think(Board("Base"), Limit(nodes=50)).nodes <= 60
    True
    """
    from hiveai.search.searcher import Searcher

    flag = stop._flag if stop is not None else StopFlag()
    limits = limits_for(limit, flag)
    if searcher is None:
        searcher = Searcher(tt_mb=THINK_TT_MB, threads=threads)
    raw = searcher.search(board, limits, multipv, on_iteration, nodes=limit.nodes)
    turn = board.turn

    def pov(score: int | None) -> PovScore | None:
        return None if score is None else PovScore(Score.from_int(score), turn)

    lines = [Variation(line.move, PovScore(Score.from_int(line.score), turn), list(line.pv)) for line in raw.lines]
    return ThinkResult(raw.move, pov(raw.score), raw.depth, raw.nodes, raw.seconds, list(raw.pv), lines, raw)
