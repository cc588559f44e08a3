"""hiveai: a Hive engine speaking the Universal Hive Protocol.

Importing this package is cheap on purpose: numba and the compiled kernels are
loaded only when a :class:`hiveai.board.Board` is first used, so the UHP banner
can be printed before any compilation happens.
"""

__version__ = "0.2.0"
ENGINE_NAME = "hiveai"


_LAZY = {
    "Board": "hiveai.board",
    "Move": "hiveai.board",
    "Searcher": "hiveai.search",
    "SearchResult": "hiveai.search",
    "format_score": "hiveai.score",
    "Limit": "hiveai.limit",
    "think": "hiveai.thinking",
    "StopHandle": "hiveai.thinking",
}


def __getattr__(name):
    # Lazy re-exports: ``hiveai.Board``, ``hiveai.Move`` and ``hiveai.Searcher`` work without
    # making ``import hiveai`` slow (numba loads only when they are used).
    # ``hiveai.search`` is the search module; its ``search()`` is the one-call API.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'hiveai' has no attribute {name!r}")
