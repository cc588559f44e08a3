"""The puzzles' one door to hiveai's own search: a weak level's move and full-strength analysis.

Everything here goes through :func:`hiveai.search.searcher.search` (the levels:
:mod:`hiveai.player.levels`), behind these two functions, so that moving to
the engine object (``hiveai.Engine``) is an edit in this file alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hiveai.rules.board import Board
    from hiveai.search.searcher import Searcher

# Transposition table of the searchers made here (MB): small positions, short searches.
TT_MB = 8


def new_searcher() -> Searcher:
    """A searcher for :func:`level_move` and :func:`analyse` to reuse (its table kept)."""
    from hiveai.search.searcher import Searcher

    return Searcher(tt_mb=TT_MB)


def level_move(board: Board, level: int, rng: random.Random, searcher: Searcher | None = None) -> str:
    """The MoveString playing level ``level`` (1-10) chooses on ``board``, drawn with ``rng``."""
    from hiveai.search.searcher import search

    searcher = searcher or new_searcher()
    searcher.clear()
    return str(search(board, depth=40 if level < 10 else 6, level=level, rng=rng, searcher=searcher).move)


@dataclass
class Analysis:
    """A full-strength search: its best ``move`` (MoveString), ``depth``, ``nodes``, and
    ``win_plies`` (plies to its forced win, None when it found none)."""

    move: str
    depth: int
    nodes: int
    win_plies: int | None


def analyse(board: Board, depth: int, searcher: Searcher | None = None) -> Analysis:
    """Search ``board`` at full strength to ``depth`` plies (no book, no level)."""
    from hiveai.search.score import Score
    from hiveai.search.searcher import search

    searcher = searcher or new_searcher()
    searcher.clear()
    result = search(board, depth=depth, searcher=searcher)
    plies = None
    if result.score is not None:
        score = Score.from_int(result.score)
        plies = score.plies() if score.is_win() else None
    return Analysis(str(result.move), result.depth, result.nodes, plies)
