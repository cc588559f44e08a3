"""``hiveai play``: a board in the browser to play and analyse against hiveai, or any UHP engine.

:func:`serve` starts the web server (:mod:`hiveai.play.app`) on the
loopback address and opens the page; the engine (:mod:`hiveai.play.engines`)
loads in the background while the page is already up; every game is kept in
the SQLite store (:mod:`hiveai.play.store`). See docs/play.md.
"""

from __future__ import annotations

import errno
import socket
import sys
import threading
import webbrowser
from pathlib import Path

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "allowed_hosts", "bind", "serve"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8421
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def allowed_hosts(host: str, port: int) -> set[str]:
    """The ``Host`` headers the page may arrive with: the bound address, and the loopback names
    when it is a loopback address.

    >>> sorted(allowed_hosts("127.0.0.1", 8421))
    ['127.0.0.1:8421', '[::1]:8421', 'localhost:8421']
    """
    name = f"[{host}]" if ":" in host else host
    hosts = {f"{name}:{port}"}
    if host in ("127.0.0.1", "localhost", "::1") or host.startswith("127."):
        hosts.update(f"{n}:{port}" for n in _LOOPBACK_NAMES)
    return hosts


def bind(host: str, port: int, fallback: bool) -> socket.socket:
    """A listening socket on ``host``:``port``; if that port is taken and ``fallback``, any free port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        if not (fallback and e.errno == errno.EADDRINUSE):
            sock.close()
            raise
        sock.bind((host, 0))
    sock.listen(64)
    sock.setblocking(False)
    return sock


def serve(host: str = DEFAULT_HOST, port: int | None = None, *, open_browser: bool = True,
          engine_command: str | None = None, db: str | Path | None = None, url_query: str = "") -> None:
    """Run the board until interrupted (Ctrl-C). ``port`` None: :data:`DEFAULT_PORT`, or a free
    one if that is taken. ``engine_command``: a UHP engine to play instead of hiveai's own search.
    ``db``: the games database (default: :func:`hiveai.play.store.default_path`)."""
    import uvicorn

    from hiveai.play.engines import engine_side
    from hiveai.play.app import create_app
    from hiveai.play.store import GameStore, default_path

    sock = bind(host, DEFAULT_PORT if port is None else port, fallback=port is None)
    bound_port = sock.getsockname()[1]
    store = GameStore(db or default_path())
    app = create_app(store, engine_side(engine_command), allowed_hosts(host, bound_port))
    name = f"[{host}]" if ":" in host else host
    url = f"http://{name}:{bound_port}/{url_query}"
    print(f"hiveai play: the board is at {url} (games kept in {store.path}); Ctrl-C stops it.",
          file=sys.stderr, flush=True)
    from uvicorn.config import WS_PROTOCOLS

    # websockets' Sans-I/O protocol where uvicorn has it (0.35 on), the older one before.
    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "websockets"
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws=ws)
    server = uvicorn.Server(config)
    if open_browser:
        def open_when_up() -> None:
            while not server.started and not server.should_exit:
                threading.Event().wait(0.02)
            if server.started:
                webbrowser.open(url)

        threading.Thread(target=open_when_up, name="hiveai-open-browser", daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        store.close()
