"""The board's web server: a Starlette app, JSON actions over HTTP, live updates over a WebSocket.

Routes (every answer JSON unless named otherwise; an error is ``{"error": message}``
with a 4xx status, and leaves the game unchanged):

* ``GET /`` the page; ``GET /static/NAME`` its script, style and icon (a fixed set).
* ``POST /api/new`` ``{game, colour, level, seconds, gamestring, setup}`` a new game (``setup``: a
  :mod:`hiveai.rules.setup_position` position to start from).
* ``POST /api/setup`` ``{setup}`` or ``{game_id}`` the set-up editor's view of a position: its drawing,
  the cells a piece may go on, the pieces left, and why no game could reach it (``problem``), if so.
* ``GET /api/games`` the recent games; ``GET /api/game/ID`` one game's state.
* ``POST /api/game/ID/ACTION`` with ACTION one of ``move`` ``{move}``, ``undo``,
  ``resign``, ``draw``, ``hint``, ``analyse`` ``{on, lines}``, ``review``,
  ``playon`` ``{ply, colour, level}``.
* ``GET /api/game/ID/at/PLY`` the picture after PLY moves (stepping through a game).
* ``GET /api/game/ID/pgn`` the game as a PGN download; ``GET /api/game/ID/review`` its review page.
* ``POST /api/import`` ``{text}`` a GameString or PGN, as a new game (at most :data:`MAX_UPLOAD` bytes).
* ``GET /api/puzzles`` the puzzles' view (:mod:`hiveai.play.puzzle_mode`): the player's rating and
  streak, the filters, the puzzle on the board, the history.
* ``POST /api/puzzles/ACTION`` with ACTION one of ``next`` ``{theme, game_type}`` or ``{id}``,
  ``move`` ``{attempt, move, ply}``, ``hint`` ``{attempt}``, ``retry`` ``{attempt}``; each answers the view.
* ``GET /api/puzzles/line/solution/PLY`` and ``.../refutation/PLY``: a finished puzzle's line, PLY moves in.
* ``WS /ws/ID`` the game's state, sent again after every change (engine moves, thinking, analysis lines,
  each move a review has judged).

Security: the server binds the loopback address unless told otherwise, and
refuses any HTTP request or WebSocket handshake whose ``Host`` is not the
server's own name or whose ``Origin`` (when sent) is not the server's own page,
so a web page elsewhere cannot drive the engine or read the games (DNS
rebinding, cross-site requests). Actions take JSON bodies only, which a
cross-site form cannot send. No request names a file: the static files are
a fixed list inside the package, the games live in the store.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from typing import TYPE_CHECKING

from hiveai.errors import HiveError
from hiveai.play.engines import ANALYSIS_LINES, LEVEL_SECONDS, AnalysisLine, EngineSide, Superseded
from hiveai.errors import BadRequest
from hiveai.play.puzzle_mode import PuzzleMode
from hiveai.play.store import GameStore
from hiveai.search.score import MATE_BOUND, format_score
from hiveai.search.timeman import StopHandle

# The rules, the pictures and the hints load numba, which takes a while: they are imported when
# first used (the engine's loading thread imports them at once), so the page answers at once.
if TYPE_CHECKING:
    from hiveai.rules.board import Board
    from hiveai.play.session import Game, Players

__all__ = ["MAX_UPLOAD", "PlayServer", "create_app"]

log = logging.getLogger("hiveai.play")

# Largest request body taken (bytes): a long game's PGN is a few kilobytes.
MAX_UPLOAD = 1 << 20
# The hint searches this long (seconds) unless the game's time per move is shorter.
HINT_SECONDS = 1.0
# The review's search depth per position (the review page's default).
REVIEW_DEPTH = 2
# Colours of the analysis lines' arrows, best first, and the hint's.
LINE_COLOURS = ("#1e6fd9", "#7048e8", "#868e96", "#adb5bd", "#ced4da")
HINT_COLOUR = "#2f9e44"
# Seconds between the server starting and the engine starting to load (the page answers first).
ENGINE_START_DELAY = 0.2
# Scores drawn at the evaluation bar's ends (hundredths; hiveai.analysis.analyse's cap).
BAR_CAP = 1000

STATIC = {
    "play.js": "text/javascript; charset=utf-8",
    "play.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}


def _static(name: str) -> bytes:
    return (resources.files("hiveai.play") / "static" / name).read_bytes()


@dataclass
class _Live:
    """What the server knows of a game beyond the store: the engine's work on it."""

    game: Game
    version: int = 0
    job: StopHandle | None = None  # the running engine search, stopped when superseded
    thinking: str = ""  # "move", "hint", "analyse", "review"
    analysing: bool = False
    lines: int = ANALYSIS_LINES
    analysis: dict | None = None
    hint: dict | None = None
    review: str = ""  # "", "running", "stopped" (superseded), "ready"
    review_live: dict | None = None  # the review so far: moves done, the graph, the marked mistakes
    review_html: str = ""
    error: str = ""
    sockets: set = field(default_factory=set)


class PlayServer:
    """The board's state and actions; :func:`create_app` wraps it in HTTP routes."""

    def __init__(self, store: GameStore, engine: EngineSide, allowed_hosts: set[str]) -> None:
        self.store = store
        self.engine = engine
        self.allowed_hosts = {h.lower() for h in allowed_hosts}
        self.live: dict[int, _Live] = {}
        self.pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="hiveai-play")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.puzzles = PuzzleMode(store)
        # The puzzles' work (reading the collection, proofs) in a thread of its own, one action at a
        # time: never on the event loop, never waiting behind an engine's search.
        self.puzzle_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hiveai-puzzles")

    # --- games ---------------------------------------------------------------------

    def _load(self, game_id: int) -> _Live:
        from hiveai.rules.notation import read_game_string
        from hiveai.play.session import Game, Players

        if game_id in self.live:
            return self.live[game_id]
        stored = self.store.get(game_id)
        if stored is None:
            raise BadRequest(f"There is no game {game_id}.")
        try:
            board = _start_board(stored.settings.get("setup"), stored.game_string)
            for i, move in enumerate(read_game_string(stored.game_string).moves, 1):
                try:
                    board.play(move)
                except HiveError as e:
                    raise HiveError(f'move {i} ("{move}"): {e}') from None
        except HiveError as e:
            raise BadRequest(f"Game {game_id} cannot be replayed: {e}") from None
        game = Game(board, Players.from_dict(stored.settings), Game.parse_outcome(stored.outcome), game_id)
        self.live[game_id] = live = _Live(game)
        return live

    def _save(self, live: _Live) -> None:
        g = live.game
        self.store.update(g.id, g.board.game_string(), g.outcome_text(), g.settings())

    def stop_games(self) -> None:
        """One board in front of the player: the games' engines stop (a new game, a puzzle)."""
        for live in self.live.values():
            self._stop(live)

    def new_game(self, board: Board, players: Players) -> _Live:
        from hiveai.play.session import Game

        self.stop_games()
        game = Game(board, players)
        game.id = self.store.create(board.game_string(), game.settings())
        self.live[game.id] = live = _Live(game)
        return live

    def state(self, live: _Live) -> dict:
        from hiveai.svg import Arrow

        g = live.game
        arrows = []
        if live.analysis:
            arrows = [Arrow(ln["pv"][0], LINE_COLOURS[min(i, len(LINE_COLOURS) - 1)])
                      for i, ln in reversed(list(enumerate(live.analysis["lines"]))) if ln["pv"]]
        if live.hint:
            arrows.append(Arrow(live.hint["move"], HINT_COLOUR))
        view = g.view(either_side=live.analysing)
        if arrows:
            try:
                view["svg"] = g.svg(arrows)
            except (HiveError, ValueError):  # lines of an older position: draw none
                pass
        view.update(version=live.version, thinking=live.thinking, analysing=live.analysing,
                    analysis=live.analysis, hint=live.hint, review=live.review, review_live=live.review_live,
                    error=live.error,
                    engine={"name": self.engine.name, "status": self.engine.status, "error": self.engine.error})
        return view

    # --- the engine ------------------------------------------------------------------

    def _stop(self, live: _Live) -> None:
        if live.job is not None:
            live.job.stop()
            live.job = None
        live.thinking = ""
        if live.review == "running":
            live.review = "stopped"

    def _run(self, live: _Live, kind: str, work, done) -> None:
        """Run ``work(stop)`` in a worker thread as ``live``'s engine job; ``done(result)`` back on the loop
        unless a newer job superseded it."""
        self._stop(live)
        stop = StopHandle()
        live.job, live.thinking = stop, kind
        loop = self.loop

        def finish(future) -> None:
            loop.call_soon_threadsafe(self._finished, live, stop, kind, future, done)

        self.pool.submit(work, stop).add_done_callback(finish)

    def _finished(self, live: _Live, stop: StopHandle, kind: str, future, done) -> None:
        if live.job is not stop:
            return  # superseded: its answer belongs to an older position
        live.job, live.thinking = None, ""
        try:
            done(future.result())
        except Exception as e:  # the engine failed: say so, keep serving
            log.exception("engine %s failed", kind)
            live.error = f"The engine failed ({kind}): {e}"
            live.analysing = False
        self._changed(live, engine=False)

    def _changed(self, live: _Live, engine: bool = True) -> None:
        """After any change: store it, let the engine move (or analyse) if it should, tell the page."""
        live.version += 1
        self._save(live)
        g = live.game
        if live.analysing and not g.over:
            self._analyse(live)
        elif g.engine_to_move and live.job is None:
            self._engine_move(live)
        self._broadcast(live)

    def _engine_move(self, live: _Live) -> None:
        g = live.game
        board = g.board.copy()
        players = g.players
        seconds = players.seconds or LEVEL_SECONDS

        def work(stop: StopHandle) -> str:
            return self.engine.best_move(board, level=players.level, seconds=seconds, stop=stop)

        def done(move: str) -> None:
            if g.board.game_string() == board.game_string() and not g.over:
                g.play(move)
                live.hint = None

        self._run(live, "move", work, done)

    def _analyse(self, live: _Live) -> None:
        board = live.game.board.copy()
        version = live.version
        loop = self.loop

        def on_lines(depth: int, lines: list[AnalysisLine]) -> None:
            loop.call_soon_threadsafe(self._on_lines, live, version, board, depth, lines)

        def work(stop: StopHandle) -> None:
            self.engine.analyse(board, multipv=live.lines, stop=stop, on_lines=on_lines)

        self._run(live, "analyse", work, lambda _: None)

    def _on_lines(self, live: _Live, version: int, board: Board, depth: int, lines: list[AnalysisLine]) -> None:
        if live.version != version or not live.analysing:
            return
        live.analysis = analysis_view(board, depth, lines)
        self._broadcast(live)

    def _broadcast(self, live: _Live) -> None:
        if not live.sockets:
            return
        text = json.dumps(self.state(live))
        for ws in list(live.sockets):
            asyncio.ensure_future(_send(ws, text, live.sockets))

    # --- actions ---------------------------------------------------------------------

    def act(self, live: _Live, action: str, data: dict) -> None:
        g = live.game
        live.error = ""
        if action == "move":
            move = data.get("move")
            if not isinstance(move, str) or not move.strip():
                raise BadRequest('Give a move, e.g. {"move": "wA1 -bG1"}.')
            if g.engine_to_move and not live.analysing:
                raise BadRequest("Wait: it is the engine's move.")
            self._stop(live)
            g.play(move)
            live.hint = live.analysis = None
        elif action == "undo":
            self._stop(live)
            g.undo()
            live.hint = live.analysis = None
        elif action == "resign":
            self._stop(live)
            g.resign()
        elif action == "draw":
            self._stop(live)
            g.agree_draw()
        elif action == "hint":
            self._hint(live)
            return self._broadcast(live)
        elif action == "analyse":
            live.analysing = bool(data.get("on", not live.analysing))
            live.lines = max(1, min(int(data.get("lines") or ANALYSIS_LINES), len(LINE_COLOURS)))
            live.analysis = live.hint = None
            self._stop(live)
        elif action == "review":
            self._review(live)
            return self._broadcast(live)
        else:
            raise BadRequest(f'Unknown action "{action}".')
        self._changed(live)

    def _hint(self, live: _Live) -> None:
        from hiveai.play.hint import reason

        g = live.game
        if g.over:
            raise BadRequest(f"The game is over: {g.end}.")
        board = g.board.copy()
        seconds = min(HINT_SECONDS, g.players.seconds or HINT_SECONDS)
        found: list[tuple[int, list[AnalysisLine]]] = []

        def work(stop: StopHandle) -> dict:
            self.engine.analyse(board, multipv=1, stop=stop, seconds=seconds,
                                on_lines=lambda depth, lines: found.append((depth, lines)))
            if not found:
                raise RuntimeError("the search found no move")
            depth, lines = found[-1]
            move = board.parse_move(lines[0].pv[0])
            return {"move": str(move), "reason": reason(board, move, lines[0].score), "depth": depth,
                    "score": format_score(lines[0].score)}

        def done(hint: dict) -> None:
            if g.board.game_string() == board.game_string():
                live.hint = hint

        self._run(live, "hint", work, done)

    def _review(self, live: _Live) -> None:
        from hiveai.analysis.analyse import analyse_game
        from hiveai.records import GameRecord
        from hiveai.analysis.pages import review_page

        g = live.game
        if not g.board.move_history:
            raise BadRequest("There is no move to review yet.")
        if g.board.setup:
            raise BadRequest("The review replays a game from the empty board; this one starts from a "
                             "set-up position (analyse it instead).")
        record = GameRecord.from_board(g.board, g.end.result if g.end else None)
        total = len(record.moves)
        loop = self.loop

        def work(stop: StopHandle) -> str:
            def on_move(reviews) -> None:  # each move's verdict goes to the page at once
                if stop.is_set():
                    raise Superseded
                loop.call_soon_threadsafe(self._on_review, live, stop, review_view(reviews, total))

            try:
                review = analyse_game(record, lambda line: None, depth=REVIEW_DEPTH, on_move=on_move)
            except Superseded:
                return ""
            return review_page(review, name=f"Game {g.id}")

        def done(html: str) -> None:
            live.review, live.review_html = "ready", html

        self._run(live, "review", work, done)
        live.review, live.review_live = "running", review_view([], total)

    def _on_review(self, live: _Live, stop: StopHandle, view: dict) -> None:
        if live.job is stop:
            live.review_live = view
            self._broadcast(live)

    def play_on(self, live: _Live, data: dict) -> _Live:
        """A new game from the first ``ply`` moves of ``live``'s, the person taking the side to move."""
        from hiveai.play.session import Players

        g = live.game
        try:
            ply = int(data.get("ply", len(g.board.move_history)))
        except (TypeError, ValueError):
            raise BadRequest(f"ply must be a whole number, not {data.get('ply')!r}.") from None
        board = g.board_at(ply)
        colour = data.get("colour") or ("white", "black")[board.turn]
        players = Players.from_colour(colour, data.get("level", g.players.level), data.get("seconds"))
        return self.new_game(board, players)

    def at(self, live: _Live, ply: int) -> dict:
        from hiveai.play.session import Game

        board = live.game.board_at(ply)
        return {"ply": ply, "gamestring": board.game_string(), "svg": Game(board).svg()}


def review_view(reviews, total: int) -> dict:
    """The review panel so far: ``reviews`` (:class:`hiveai.analysis.analyse.MoveReview`) of a game of
    ``total`` moves; the graph spans the whole game and fills in from the left."""
    from hiveai.analysis.analyse import white_scores
    from hiveai.analysis.pages import eval_graph

    scores = white_scores(reviews) or [None]
    scores += [None] * (total + 1 - len(scores))
    marks = [""] + [r.mark for r in reviews]
    labels = ["start"] + [f"{r.number}. {r.move} {r.mark}".rstrip() for r in reviews]
    marked = [{"ply": r.number, "colour": r.colour, "move": str(r.move), "mark": r.mark, "best": str(r.best),
               "loss": r.loss} for r in reviews if r.mark]
    return {"done": len(reviews), "total": total, "marked": marked,
            "graph": eval_graph(scores, marks=marks, labels=labels, width=320, height=100)}


async def _send(ws: WebSocket, text: str, sockets: set) -> None:
    try:
        await ws.send_text(text)
    except Exception:  # a closed tab: forget it
        sockets.discard(ws)


def analysis_view(board: Board, depth: int, lines: list[AnalysisLine]) -> dict:
    """The analysis panel: depth, and per line its score (White's view for the bar) and moves."""
    sign = 1 if board.turn == 0 else -1
    out = []
    for ln in lines:
        white = sign * ln.score
        out.append({"pv": ln.pv, "score": format_score(ln.score), "white": white})
    best = out[0]["white"] if out else 0
    bar = 1.0 if best > MATE_BOUND else 0.0 if best < -MATE_BOUND else 0.5 + max(-BAR_CAP, min(BAR_CAP, best)) / (2 * BAR_CAP)
    return {"depth": depth, "lines": out, "bar": round(bar, 3), "mover": ("White", "Black")[board.turn]}


# --- HTTP -------------------------------------------------------------------------------


class _Guard:
    """ASGI middleware: refuse requests and WebSocket handshakes from anywhere but the server's own page."""

    def __init__(self, app, server: PlayServer) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        problem = self.problem(headers)
        if problem is None:
            return await self.app(scope, receive, send)
        log.warning("refused %s %s: %s", scope["type"], scope.get("path"), problem)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": problem})
            return
        await JSONResponse({"error": problem}, status_code=403)(scope, receive, send)

    def problem(self, headers: dict[str, str]) -> str | None:
        host = headers.get("host", "").lower()
        if host not in self.server.allowed_hosts:
            return f"Refused: the Host {host!r} is not this board's address."
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in {f"http://{h}" for h in self.server.allowed_hosts}:
            return f"Refused: a request from another site ({origin})."
        return None


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_UPLOAD:
        raise _TooLarge()
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_UPLOAD:
            raise _TooLarge()
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw:
        return {}
    if "json" not in request.headers.get("content-type", ""):
        raise BadRequest("Send the request as JSON (Content-Type: application/json).")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise BadRequest(f"The request is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise BadRequest("The request must be a JSON object.")
    return data


class _TooLarge(Exception):
    pass


def _game_id(request: Request) -> int:
    text = request.path_params["game_id"]
    return int(text)


def create_app(store: GameStore, engine: EngineSide, allowed_hosts: set[str] | None = None,
               start_engine: bool = True) -> Starlette:
    """The board's app over ``store`` and ``engine``. ``allowed_hosts``: the ``host:port`` names the
    page is reached by (the Host header of every request must be one)."""
    server = PlayServer(store, engine, allowed_hosts or {"testserver"})

    def guarded(handler):
        async def endpoint(request: Request) -> Response:
            server.loop = asyncio.get_running_loop()
            try:
                return await handler(request)
            except _TooLarge:
                return _error(f"Too large: the board takes at most {MAX_UPLOAD // 1024} KB in a request.", 413)
            except BadRequest as e:
                return _error(str(e))
            except HiveError as e:
                return _error(str(e))
            except Exception as e:  # never die of one request
                log.exception("error in %s", request.url.path)
                return _error(f"Something went wrong on the board's side: {type(e).__name__}: {e}", 500)
        return endpoint

    async def index(request: Request) -> Response:
        return HTMLResponse(_static("index.html").decode("utf-8"), headers=_NO_FRAMES)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return _error(f"No such file: {name}", 404)
        return Response(_static(name), media_type=STATIC[name], headers={"Cache-Control": "no-cache"})

    async def new(request: Request) -> Response:
        from hiveai.rules.board import Board
        from hiveai.play.session import Players, parse_game_type

        data = await _body(request)
        players = Players.from_colour(str(data.get("colour") or "white"), data.get("level", 5), data.get("seconds"))
        text = str(data.get("gamestring") or "").strip()
        setup = str(data.get("setup") or "").strip()
        if setup:
            from hiveai.rules.setup_position import set_up

            board = set_up(setup)  # SetupError (a HiveError) names what no game could reach
        elif text:
            board = _board_from_text(text)
        else:
            board = Board(parse_game_type(str(data.get("game") or "Base+MLP")))
        live = server.new_game(board, players)
        server._changed(live)
        return JSONResponse(server.state(live))

    async def setup(request: Request) -> Response:
        data = await _body(request)
        if data.get("game_id") is not None:  # the editor opened on a game's position
            from hiveai.rules.setup_position import Setup

            try:
                live = server._load(int(data["game_id"]))
            except (TypeError, ValueError):
                raise BadRequest(f"game_id must be a game's number, not {data['game_id']!r}.") from None
            text = str(Setup.from_board(live.game.board))
        else:
            text = data.get("setup")
            if not isinstance(text, str) or not text.strip():
                raise BadRequest('Give a set-up, e.g. {"setup": "Base+MLP;White;wQ@0,0;bQ@1,0"}.')
        return JSONResponse(setup_view(text))

    async def games(request: Request) -> Response:
        from hiveai.play.session import Players

        out = []
        for g in store.recent():
            head = g.game_string.split(";")
            out.append({"id": g.id, "updated": g.updated, "game_type": head[0],
                        "state": g.outcome.split(" ")[0] if g.outcome else (head[1] if len(head) > 1 else ""),
                        "plies": max(0, len(head) - 3), "colour": Players.from_dict(g.settings).colour})
        return JSONResponse({"games": out})

    async def game(request: Request) -> Response:
        live = server._load(_game_id(request))
        return JSONResponse(server.state(live))

    async def action(request: Request) -> Response:
        live = server._load(_game_id(request))
        data = await _body(request)
        name = request.path_params["action"]
        if name == "playon":
            live = server.play_on(live, data)
            server._changed(live)
        else:
            server.act(live, name, data)
        return JSONResponse(server.state(live))

    async def at(request: Request) -> Response:
        live = server._load(_game_id(request))
        return JSONResponse(server.at(live, int(request.path_params["ply"])))

    async def pgn(request: Request) -> Response:
        from hiveai.records import GameRecord

        live = server._load(_game_id(request))
        g = live.game
        if g.board.setup:
            raise BadRequest("A game from a set-up position has no PGN: a PGN record starts from the empty "
                             f"board. Its position: {g.board.setup}")
        stored = store.get(g.id)
        tags = {"Site": "hiveai play", "Event": f"Game {g.id}",
                "Date": time.strftime("%Y.%m.%d", time.localtime(stored.created if stored else time.time())),
                "White": _player_name(g.players.white, server.engine, g.players),
                "Black": _player_name(g.players.black, server.engine, g.players)}
        record = GameRecord.from_board(g.board, g.end.result if g.end else None, tags)
        return PlainTextResponse(record.to_pgn(), media_type="application/x-hive-pgn",
                                 headers={"Content-Disposition": f'attachment; filename="hiveai-game-{g.id}.pgn"'})

    async def review(request: Request) -> Response:
        live = server._load(_game_id(request))
        if not live.review_html:
            return _error("The review is not ready: ask for one first.", 404)
        return HTMLResponse(live.review_html)

    async def import_record(request: Request) -> Response:
        from hiveai.play.session import Players
        from hiveai.records import read_game

        data = await _body(request)
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            raise BadRequest("Paste a GameString or a PGN record to import.")
        # A newline makes read_game take the text as the record itself, never as a file name.
        record = read_game(text.strip() + "\n")
        board = record.to_board("the record")
        live = server.new_game(board, Players.from_colour("people"))
        server._changed(live)
        state = server.state(live)
        state["imported"] = {"tags": {k: v for k, v in record.tags.items() if v}, "result": record.result}
        return JSONResponse(state)

    async def in_puzzle_thread(work, *args):
        return await asyncio.get_running_loop().run_in_executor(server.puzzle_pool, work, *args)

    async def puzzle_state(request: Request) -> Response:
        return JSONResponse(await in_puzzle_thread(server.puzzles.state))

    async def puzzle_action(request: Request) -> Response:
        data = await _body(request)
        name = request.path_params["action"]
        if name in ("next", "retry"):
            for live in server.live.values():  # the games' engines and analyses stop while puzzles are solved
                live.analysing = False
            server.stop_games()
        return JSONResponse(await in_puzzle_thread(server.puzzles.act, name, data))

    async def puzzle_line(request: Request) -> Response:
        return JSONResponse(await in_puzzle_thread(server.puzzles.line, request.path_params["which"],
                                                   int(request.path_params["ply"])))

    async def socket(ws: WebSocket) -> None:
        server.loop = asyncio.get_running_loop()
        try:
            live = server._load(int(ws.path_params["game_id"]))
        except (BadRequest, ValueError):
            await ws.close(code=1008)
            return
        await ws.accept()
        live.sockets.add(ws)
        try:
            await ws.send_text(json.dumps(server.state(live)))
            if live.game.engine_to_move and live.job is None and not live.analysing:
                server._engine_move(live)  # a game reopened on the engine's move: it moves now
                server._broadcast(live)
            while True:
                await ws.receive_text()  # nothing is read from the page here; this waits for it to close
        except WebSocketDisconnect:
            pass
        finally:
            live.sockets.discard(ws)

    routes = [
        Route("/", index),
        Route("/static/{name}", static),
        Route("/api/new", guarded(new), methods=["POST"]),
        Route("/api/import", guarded(import_record), methods=["POST"]),
        Route("/api/setup", guarded(setup), methods=["POST"]),
        Route("/api/games", guarded(games)),
        Route("/api/game/{game_id:int}", guarded(game)),
        Route("/api/game/{game_id:int}/at/{ply:int}", guarded(at)),
        Route("/api/game/{game_id:int}/pgn", guarded(pgn)),
        Route("/api/game/{game_id:int}/review", guarded(review)),
        Route("/api/game/{game_id:int}/{action}", guarded(action), methods=["POST"]),
        Route("/api/puzzles", guarded(puzzle_state)),
        Route("/api/puzzles/line/{which}/{ply:int}", guarded(puzzle_line)),
        Route("/api/puzzles/{action}", guarded(puzzle_action), methods=["POST"]),
        WebSocketRoute("/ws/{game_id:int}", socket),
    ]

    async def startup() -> None:
        server.loop = loop = asyncio.get_running_loop()

        def tell_pages() -> None:
            for live in server.live.values():
                server._broadcast(live)

        def on_status() -> None:
            try:
                loop.call_soon_threadsafe(tell_pages)
            except RuntimeError:  # the server has stopped meanwhile
                pass

        engine.on_status = on_status
        if start_engine:  # just after the server is up: loading numba holds the interpreter a while
            loop.call_later(ENGINE_START_DELAY, engine.start)

    async def shutdown() -> None:
        for live in server.live.values():
            server._stop(live)
        server.pool.shutdown(wait=False, cancel_futures=True)
        server.puzzle_pool.shutdown(wait=False, cancel_futures=True)

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        await startup()
        yield
        await shutdown()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    app.add_middleware(_Guard, server=server)
    return app


_NO_FRAMES = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'",
              "Cache-Control": "no-cache"}


def setup_view(text: str) -> dict:
    """The set-up editor's picture of set-up ``text``: the drawing, each cell a piece may go on
    (the hive's cells and the empty ones around it, or the first cell) with its centre in the
    drawing, the pieces left in hand by kind, and what, if anything, no game could reach.
    SetupError (a 400) if the text names no pieces of the game."""
    from hiveai.rules.bug import COLOUR_LETTERS, KIND_LETTERS, PIECES_PER_COLOUR, kind_of, piece_in_game
    from hiveai.rules.cell import Cell, cell_index
    from hiveai.play.session import PAGE_COLORS
    from hiveai.rules.setup_position import Setup
    from hiveai.svg import board as board_svg
    from hiveai.svg import cell_centres

    setup = Setup.parse(text)
    sketch = setup.sketch()
    stacks = setup.stacks()
    cells = set(stacks) | {n for c in stacks for n in c.neighbours()} if stacks else {Cell(0, 0)}
    centres = cell_centres(sketch, [cell_index(c) for c in cells], hands=False)  # the palette shows the hands
    targets = [[c.q, c.r, *centres[cell_index(c)], len(stacks.get(c, ()))] for c in sorted(cells, key=lambda c: (c.r, c.q))]
    hand: dict[str, list] = {}
    for colour, letter in enumerate(COLOUR_LETTERS):
        counts: dict[str, list[int]] = {}  # kind letter -> [left in hand, in the game]
        for p in range(colour * PIECES_PER_COLOUR, (colour + 1) * PIECES_PER_COLOUR):
            if piece_in_game(p, sketch.game_type):
                counts.setdefault(KIND_LETTERS[kind_of(p, sketch.game_type)], [0, 0])[1] += 1
        for piece in sketch.pieces_in_hand(colour):
            counts[str(piece)[1]][0] += 1
        hand[("white", "black")[colour]] = [[letter + k, *v] for k, v in counts.items()]
    entries = [[name[:2], c.q, c.r] for c in sorted(stacks, key=lambda c: (c.r, c.q)) for name in stacks[c]]
    # The page holds the main board's picture too: the editor's glyphs get ids of their own, so
    # neither picture's <use> finds the other's symbols (ids are one per document).
    svg = (board_svg(sketch, colors=PAGE_COLORS, lastmove=False, hands=False)
           .replace('id="hiveai-', 'id="hiveai-setup-').replace('href="#hiveai-', 'href="#hiveai-setup-'))
    return {"setup": str(setup), "problem": setup.problem(), "game_type": sketch.game_type_string,
            "turn": ("white", "black")[setup.turn], "entries": entries, "targets": targets, "hand": hand,
            "svg": svg}


def _start_board(setup: str | None, game_string: str) -> Board:
    """Where a stored game starts: its set-up position, or the empty board of its GameString's type."""
    from hiveai.rules.board import Board
    from hiveai.rules.setup_position import set_up

    return set_up(setup) if setup else Board(game_string.split(";", 1)[0])


def _board_from_text(text: str) -> Board:
    from hiveai.rules.board import Board

    """The position of a pasted GameString (set-up): its moves replayed, errors naming the move."""
    try:
        return Board.from_game_string(text)
    except HiveError as e:
        raise BadRequest(str(e)) from None


def _player_name(side: str, engine: EngineSide, players: Players) -> str:
    if side != "engine":
        return "Player"
    return f"{engine.name} level {players.level}" if engine.name == "hiveai" else engine.name
