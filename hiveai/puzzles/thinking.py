"""The puzzles' one door to hiveai's own engine (:class:`hiveai.Engine`): a weak level's move
and full-strength analysis."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hiveai.player import Engine
    from hiveai.rules.board import Board

# Transposition table of the engines made here (MB): small positions, short searches.
TT_MB = 8


def new_engine() -> Engine:
    """An engine for :func:`analyse` to reuse (one thread, no book)."""
    from hiveai.player import Engine

    return Engine(hash_mb=TT_MB, use_book=False)


def level_move(board: Board, level: int, rng: random.Random) -> str:
    """The MoveString playing level ``level`` (1-10) chooses on ``board``, its choice drawn
    from a seed that ``rng`` gives (the same ``rng`` state, the same move)."""
    from hiveai.player import Engine
    from hiveai.search.timeman import Limit

    engine = Engine(hash_mb=TT_MB, level=level, use_book=False, seed=rng.getrandbits(32))
    return str(engine.play(board, Limit(depth=40 if level < 10 else 6)).move)


@dataclass
class Analysis:
    """A full-strength search: its best ``move`` (MoveString), ``depth``, ``nodes``, and
    ``win_plies`` (plies to its forced win, None when it found none)."""

    move: str
    depth: int
    nodes: int
    win_plies: int | None


def analyse(board: Board, depth: int, engine: Engine | None = None) -> Analysis:
    """Search ``board`` at full strength to ``depth`` plies (no book, no level), from an empty table."""
    from hiveai.search.timeman import Limit

    engine = engine or new_engine()
    engine.new_game()
    result = engine.analyse(board, Limit(depth=depth))
    plies = None
    if result.score is not None:
        score = result.score.relative
        plies = score.plies() if score.is_win() else None
    return Analysis(str(result.move), result.depth, result.nodes, plies)
