"""The engine prepares its search in the background right after the banner.

In-process: :class:`hiveai.uhp.server.UhpServer` with string streams. ``serve`` waits
for a background preparation before it returns, so the state can be checked
afterwards without timing. Whether a table is empty is read from what a
search does with it: a one-thread search is deterministic, so the same search
on an empty table of the same size counts exactly the same nodes, and one on
a table that still holds entries for the position counts fewer.
"""

from __future__ import annotations

import io

from hiveai.player import Engine
from hiveai.rules.board import Board
from hiveai.search.timeman import Limit
from hiveai.uhp.server import UhpServer

DEPTH = 2


def serve(commands: str) -> tuple[UhpServer, list[str]]:
    out = io.StringIO()
    server = UhpServer(out)
    server.serve(io.StringIO(commands))
    return server, out.getvalue().splitlines()


def nodes_searched(engine: Engine, game: str = "Base") -> int:
    """Nodes of a one-thread depth-``DEPTH`` search of ``game`` (the engine's table is then not empty)."""
    engine.configure({"NumThreads": 1})
    return engine.analyse(Board.parse(game), Limit(depth=DEPTH)).nodes


def test_the_searcher_is_made_after_the_banner_without_any_command():
    server, lines = serve("")
    assert lines[0].startswith("id hiveai") and lines[-1] == "ok"
    searcher = server.engine.searcher
    size = server.options["TranspositionTableSizeMB"]
    assert searcher is not None and searcher.tt_mb == size
    assert nodes_searched(server.engine) == nodes_searched(Engine(hash_mb=size))  # warmed, then cleared
    assert server.engine.searcher is searcher


def test_a_new_table_size_is_prepared_and_newgame_clears_before_the_next_search():
    commands = ("options set UseBook false\noptions set NumThreads 1\n"
                "options set TranspositionTableSizeMB 2\nnewgame Base\nbestmove depth 2\n")
    fresh = nodes_searched(Engine(hash_mb=2))
    server, lines = serve(commands)
    assert "err" not in " ".join(lines)
    searcher = server.engine.searcher
    assert searcher.tt_mb == 2
    assert nodes_searched(server.engine) < fresh  # what the bestmove learnt is still there...
    server, lines = serve(commands + "newgame Base\n")
    searcher = server.engine.searcher
    assert searcher.tt_mb == 2
    assert nodes_searched(server.engine) == fresh  # ...until the next search starts after newgame
    assert server.engine.searcher is searcher
