"""What a search reports: :class:`Line`, :class:`SearchInfo` and :class:`SearchResult`.

Plain data, no numba: the front ends (UHP, analysis, the library) and the
playing levels read these without loading the search kernels. Scores are
hundredths from the side to move's view, or wins and losses in some number of
plies (:mod:`hiveai.search.score`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hiveai.rules.board import Move


@dataclass
class Line:
    """One principal variation: a root move, its score and the line it leads to."""

    move: Move
    score: int
    pv: list[Move]  # from the searched position; pv[0] is move

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``)."""
        return str(self.move)


@dataclass
class SearchInfo:
    """A completed iteration (one per multipv line), for progress output."""

    depth: int
    multipv: int  # 1-based line number
    score: int
    nodes: int
    seconds: float
    nps: float
    pv: list[Move]  # from the searched position
    tt_hits: int = 0
    tt_probes: int = 0


@dataclass
class SearchResult:
    """What a search found: the move to play and how it got there.

    >>> from hiveai import Board
    >>> from hiveai.search.searcher import search
    >>> result = search(Board("Base"), depth=2)
    >>> result.move in Board("Base").legal_moves, result.pv[0] == result.move
    (True, True)
    """

    move: Move
    score: int | None  # side to move's view; None when nothing was searched
    depth: int  # last completed iteration (0: no search, the fallback move)
    nodes: int
    seconds: float
    pv: list[Move] = field(default_factory=list)  # from the searched position; pv[0] is move
    lines: list[Line] = field(default_factory=list)  # multipv, best first
    tt_hits: int = 0
    tt_probes: int = 0

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``), what UHP's ``bestmove`` answers."""
        return str(self.move)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0
