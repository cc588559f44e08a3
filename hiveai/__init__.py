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

Other engines are driven with :func:`hiveai.engine.popen_uhp`.

Importing this package is cheap on purpose: numba and the compiled kernels are
loaded only when a :class:`hiveai.board.Board` is first used, so the UHP banner
can be printed before any compilation happens. The names are loaded on first
use (``__getattr__`` below); type checkers see them through the imports under
``TYPE_CHECKING`` instead (and not the ``__getattr__``, so a misspelt name is an
error for them), and the package ships ``py.typed``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.2.0"
ENGINE_NAME = "hiveai"

if TYPE_CHECKING:
    from hiveai import engine as engine
    from hiveai.board import Board as Board
    from hiveai.board import Move as Move
    from hiveai.bug import BLACK as BLACK
    from hiveai.bug import WHITE as WHITE
    from hiveai.cell import Cell as Cell
    from hiveai.cell import Direction as Direction
    from hiveai.limit import Limit as Limit
    from hiveai.outcome import Outcome as Outcome
    from hiveai.outcome import Termination as Termination
    from hiveai.piece import Piece as Piece
    from hiveai.score import Cp as Cp
    from hiveai.score import PovScore as PovScore
    from hiveai.score import Score as Score
    from hiveai.score import Win as Win
    from hiveai.score import format_score as format_score
    from hiveai.search import SearchResult as SearchResult
    from hiveai.search import Searcher as Searcher
    from hiveai.thinking import StopHandle as StopHandle
    from hiveai.thinking import ThinkResult as ThinkResult
    from hiveai.thinking import think as think

# Each public name and the module it lives in (loaded on first use).
_LAZY = {
    "Board": "hiveai.board",
    "Move": "hiveai.board",
    "Cell": "hiveai.cell",
    "Direction": "hiveai.cell",
    "Piece": "hiveai.piece",
    "WHITE": "hiveai.bug",
    "BLACK": "hiveai.bug",
    "Outcome": "hiveai.outcome",
    "Termination": "hiveai.outcome",
    "Limit": "hiveai.limit",
    "think": "hiveai.thinking",
    "ThinkResult": "hiveai.thinking",
    "StopHandle": "hiveai.thinking",
    "Score": "hiveai.score",
    "Cp": "hiveai.score",
    "Win": "hiveai.score",
    "PovScore": "hiveai.score",
    "format_score": "hiveai.score",
    "Searcher": "hiveai.search",
    "SearchResult": "hiveai.search",
}

#: :data:`WHITE` (0) and :data:`BLACK` (1) are the colours: ``board.turn``, ``Outcome.winner``.
__all__ = [
    "BLACK",
    "WHITE",
    "Board",
    "Cell",
    "Cp",
    "Direction",
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
