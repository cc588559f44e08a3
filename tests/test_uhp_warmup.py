"""The engine prepares its search in the background right after the banner.

In-process: :class:`hiveai.uhp.UhpServer` with string streams. ``serve`` waits
for a background preparation before it returns, so the state can be checked
afterwards without timing.
"""

from __future__ import annotations

import io

from hiveai.uhp import UhpServer


def serve(commands: str) -> tuple[UhpServer, list[str]]:
    out = io.StringIO()
    server = UhpServer(out)
    server.serve(io.StringIO(commands))
    return server, out.getvalue().splitlines()


def test_the_searcher_is_made_after_the_banner_without_any_command():
    server, lines = serve("")
    assert lines[0].startswith("id hiveai") and lines[-1] == "ok"
    searcher = server._searcher
    assert searcher is not None and searcher.tt_mb == server.options["TranspositionTableSizeMB"]
    assert not searcher._keys.any()  # warmed, then cleared


def test_a_new_table_size_is_prepared_and_newgame_clears_before_the_next_search():
    server, lines = serve("options set UseBook false\noptions set TranspositionTableSizeMB 2\nnewgame Base\nbestmove depth 2\nnewgame Base\n")
    assert "err" not in " ".join(lines)
    searcher = server._searcher
    assert searcher.tt_mb == 2
    assert searcher._keys.any()  # what the bestmove learnt is still there...
    assert not server._get_searcher()._keys.any()  # ...until the next search starts after newgame
    assert server._get_searcher() is searcher
