"""hiveai: a Hive engine speaking the Universal Hive Protocol.

Importing this package is cheap on purpose: numba and the compiled kernels are
loaded only when a :class:`hiveai.board.Board` is first used, so the UHP banner
can be printed before any compilation happens.
"""

__version__ = "0.1.0"
ENGINE_NAME = "hiveai"


def __getattr__(name):
    # Lazy re-exports: ``hiveai.Board`` works without making ``import hiveai`` slow.
    if name in ("Board",):
        from hiveai.board import Board

        return Board
    raise AttributeError(f"module 'hiveai' has no attribute {name!r}")
