"""hiveai: a Hive engine speaking the Universal Hive Protocol, and a library to build on.

The names below are the library's surface, in python-chess's shape:

>>> import hiveai
>>> board = hiveai.Board("Base+MLP")
>>> board.push("wG1"), board.turn == hiveai.BLACK
(<Move wG1>, True)
>>> board.piece_at(hiveai.Cell(0, 0))
Piece('wG1')
>>> result = hiveai.think(board, hiveai.Limit(depth=2))
>>> result.move in board.legal_moves, result.score.pov(hiveai.WHITE) == -result.score.relative
(True, True)
>>> board.outcome() is None, hiveai.WHITE, hiveai.BLACK
(True, 0, 1)

hiveai's own engine, the one behind every front end, is :class:`hiveai.Engine` (its
options, the book, the levels, pondering); :func:`hiveai.think` is its one-call search.
Other engines are driven with :func:`hiveai.engine.popen_uhp`.

Importing this package is cheap on purpose: numba and the compiled kernels are
loaded only when a :class:`hiveai.rules.board.Board` is first used, so the UHP banner
can be printed before any compilation happens. The names are loaded on first
use (``__getattr__`` below); type checkers see them through the imports under
``TYPE_CHECKING`` instead (and not the ``__getattr__``, so a misspelt name is an
error for them), and the package ships ``py.typed``. It also gives the rules layer its board
picture (:func:`hiveai.rules.set_board_drawer`: :func:`hiveai.svg.board`, loaded when first drawn), so
a board shows as SVG in Jupyter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hiveai.rules import set_board_drawer as _set_board_drawer  # plain Python: no numba

__version__ = "0.3.0"
ENGINE_NAME = "hiveai"

if TYPE_CHECKING:
    from hiveai import engine as engine
    from hiveai.rules.board import Board as Board
    from hiveai.rules.board import Move as Move
    from hiveai.rules.bug import BLACK as BLACK
    from hiveai.rules.bug import WHITE as WHITE
    from hiveai.rules.cell import Cell as Cell
    from hiveai.rules.cell import Direction as Direction
    from hiveai.search.timeman import Limit as Limit
    from hiveai.rules.outcome import Outcome as Outcome
    from hiveai.rules.outcome import Termination as Termination
    from hiveai.rules.piece import Piece as Piece
    from hiveai.search.score import Cp as Cp
    from hiveai.search.score import PovScore as PovScore
    from hiveai.search.score import Score as Score
    from hiveai.search.score import Win as Win
    from hiveai.search.score import format_score as format_score
    from hiveai.search.searcher import SearchResult as SearchResult
    from hiveai.search.searcher import Searcher as Searcher
    from hiveai.search.searcher import ThinkResult as ThinkResult
    from hiveai.search.timeman import StopHandle as StopHandle
    from hiveai.player import Engine as Engine
    from hiveai.player import think as think

# Each public name and the module it lives in (loaded on first use).
_LAZY = {
    "Board": "hiveai.rules.board",
    "Move": "hiveai.rules.board",
    "Cell": "hiveai.rules.cell",
    "Direction": "hiveai.rules.cell",
    "Piece": "hiveai.rules.piece",
    "WHITE": "hiveai.rules.bug",
    "BLACK": "hiveai.rules.bug",
    "Outcome": "hiveai.rules.outcome",
    "Termination": "hiveai.rules.outcome",
    "Limit": "hiveai.search.timeman",
    "StopHandle": "hiveai.search.timeman",
    "Engine": "hiveai.player",
    "think": "hiveai.player",
    "ThinkResult": "hiveai.search.searcher",
    "Score": "hiveai.search.score",
    "Cp": "hiveai.search.score",
    "Win": "hiveai.search.score",
    "PovScore": "hiveai.search.score",
    "format_score": "hiveai.search.score",
    "Searcher": "hiveai.search.searcher",
    "SearchResult": "hiveai.search.searcher",
}

#: :data:`WHITE` (0) and :data:`BLACK` (1) are the colours: ``board.turn``, ``Outcome.winner``.
__all__ = [
    "BLACK",
    "WHITE",
    "Board",
    "Cell",
    "Cp",
    "Direction",
    "Engine",
    "Limit",
    "Move",
    "Outcome",
    "Piece",
    "PovScore",
    "Score",
    "SearchResult",
    "Searcher",
    "StopHandle",
    "Termination",
    "ThinkResult",
    "Win",
    "format_score",
    "think",
]


def _draw_board(board: Board) -> str:
    """A board's picture in Jupyter: :func:`hiveai.svg.board`, loaded when the first one is drawn."""
    from hiveai.svg import board as draw

    return draw(board)


_set_board_drawer(_draw_board)  # the rules layer draws nothing itself (hiveai.rules)


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt name is an error there, not Any

    def __getattr__(name: str) -> object:
        # Lazy re-exports, so `import hiveai` stays cheap (numba loads only when a board is used).
        # `hiveai.engine` is a submodule, loaded the same way for `import hiveai; hiveai.engine`.
        import importlib

        if name in _LAZY:
            return getattr(importlib.import_module(_LAZY[name]), name)
        if name == "engine":
            return importlib.import_module("hiveai.engine")
        raise AttributeError(f"module 'hiveai' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "engine"})
