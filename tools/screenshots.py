"""Render the pictures of docs/analysis.md and docs/puzzles.md: a board SVG and screenshots.

    python tools/screenshots.py [--out docs] [--depth 3] [--only analysis|puzzles]

writes ``docs/board.svg`` (docs/analysis.md's example position with the engine's
best move as an arrow), ``docs/review.png`` (headless Chromium's
screenshot of ``hiveai analyse --game`` 's HTML page for a test game), and
``docs/puzzles.png`` and ``docs/puzzles-refuted.png`` (the board's puzzle mode,
``hiveai play`` run on a fresh store: a puzzle with its hint lit after one
solved and one missed, then a missed one with its refutation). It also
holds the headless Chromium helpers the browser test uses: :func:`screenshot`
and :func:`dump_dom`, both returning the console messages the page produced.

Chromium is Debian's ``chromium`` package (``apt-get install -y chromium``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags that work in a container without a display, a GPU or a network: no sandbox (we run as root),
# nothing phoned home, a fresh profile each run.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0")
# Chromium writes each console message (log, warning, error, uncaught exception) to stderr like this.
CONSOLE_RE = re.compile(r":CONSOLE(?:\(\d+\))?:?\d*\] (.*)")
TIMEOUT = 120
# docs/analysis.md's analyse example position (a Base+MLP middle game).
EXAMPLE = ("Base+MLP;InProgress;White[13];wB1;bL /wB1;wQ wB1-;bQ -bL;wA1 \\wB1;bM bQ\\;wA1 bM\\;bA1 /bQ;wA2 wA1-;"
           "bA1 wA2\\;wM \\wQ;bP /bQ;wA3 -wM;bA2 -bP;wA3 -bA2;bA3 bA2\\;wM wB1;bB1 -bQ;wM bL;bS1 /bA1;wP wQ\\;"
           "bS1 bP\\;wB2 wB1\\;bQ bB1/")
REVIEW_GAME = REPO / "tests" / "data" / "games" / "HV-Abbo69-WeakBot-2018-10-28-2007.pgn"


def have_chromium() -> bool:
    return shutil.which(CHROMIUM) is not None


def _run(args: list[str], width: int, height: int) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="hiveai-chromium-") as profile:
        cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def _console(stderr: str) -> list[str]:
    return [m.group(1) for m in map(CONSOLE_RE.search, stderr.splitlines()) if m]


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 1400) -> list[str]:
    """Screenshot ``page`` (an HTML or SVG file) into ``png``; returns the page's console messages."""
    proc = _run([f"--screenshot={png}", page.resolve().as_uri()], width, height)
    if not png.is_file():
        raise RuntimeError(f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return _console(proc.stderr)


def screenshot_url(url: str, png: Path, width: int, height: int, wait_ms: int = 10_000) -> list[str]:
    """Screenshot the page at ``url`` once its scripts have run (up to ``wait_ms`` of the page's time:
    its requests answered, its timers fired); returns the page's console messages."""
    proc = _run([f"--virtual-time-budget={wait_ms}", f"--screenshot={png}", url], width, height)
    if not png.is_file():
        raise RuntimeError(f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return _console(proc.stderr)


def dump_dom(page: Path, width: int = 1280, height: int = 1400) -> tuple[str, list[str]]:
    """The DOM of ``page`` after its scripts ran, serialised, and its console messages."""
    proc = _run(["--dump-dom", page.resolve().as_uri()], width, height)
    if proc.returncode != 0:
        raise RuntimeError(f"chromium --dump-dom failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout, _console(proc.stderr)


def best_move(position, depth: int):
    """The engine's move in ``position`` at a fixed ``depth`` (the library's one-call search)."""
    import hiveai

    return hiveai.think(position, hiveai.Limit(depth=depth)).move


def render_docs(out: Path, depth: int) -> None:
    from hiveai.analysis.analyse import analyse_game
    from hiveai.rules.board import Board
    from hiveai.records import read_game
    from hiveai.analysis.pages import review_page
    from hiveai.svg import board

    out.mkdir(parents=True, exist_ok=True)
    position = Board.parse(EXAMPLE)
    best = best_move(position, depth)
    (out / "board.svg").write_text(board(position, arrows=[best]) + "\n", encoding="utf-8")
    print(f"wrote {out / 'board.svg'} (best move {best} at depth {depth})")
    review = analyse_game(read_game(REVIEW_GAME), lambda line: None, depth=depth)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "review.html"
        html.write_text(review_page(review, name=REVIEW_GAME.name), encoding="utf-8")
        console = screenshot(html, out / "review.png", 1100, 1500)
    print(f"wrote {out / 'review.png'}" + (f"; console: {console}" if console else ""))


class PlayServer:
    """``hiveai play --no-browser --port 0 ARGS`` in a child process (``env``: its environment), and its
    JSON API; the browser tests start theirs with it too."""

    def __init__(self, args: tuple[str, ...] | list[str] = (), env: dict | None = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "hiveai", "play", "--no-browser", "--port", "0", *args],
                                     stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stderr.readline()
        match = re.search(r"(http://\S+?)/ ", line)
        if not match:
            self.close()
            raise RuntimeError(f"hiveai play said: {line!r}")
        self.url = match.group(1)

    def call(self, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return json.loads(answer.read())

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()


def _pick(collection, **want):
    """The first puzzle with the attributes and themes wanted (``themes``: all of them)."""
    themes = set(want.pop("themes", ()))
    for p in collection:
        if themes <= set(p.themes) and all(getattr(p, k) == v for k, v in want.items()):
            return p
    raise RuntimeError(f"no puzzle of the collection has {want} and themes {sorted(themes)}")


def render_puzzles(out: Path) -> None:
    """docs/puzzles.md's pictures of the board's puzzle mode, at a desktop width."""
    from hiveai import puzzles

    collection = puzzles.shipped()
    prover = puzzles.make_prover()
    solved = _pick(collection, game_type="Base", kind="win", depth=1)
    missed = _pick(collection, game_type="Base", kind="win", depth=3)
    hinted = _pick(collection, game_type="Base+MLP", kind="win", depth=3, themes=("beetle-drop", "pillbug-throw"))
    refuted = _pick(collection, game_type="Base+MLP", kind="win", depth=3, themes=("pin",))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hiveai-puzzle-shots-") as tmp:
        board = PlayServer(["--db", str(Path(tmp) / "games.sqlite3")])
        try:
            def play(puzzle, moves):
                view = board.call("/api/puzzles/next", {"id": puzzle.id})
                for move in moves:
                    view = board.call("/api/puzzles/move", {"attempt": view["current"]["attempt"], "move": move})
                return view

            play(solved, solved.solution[::2])
            play(missed, [_wrong(missed, prover)[0]])
            view = play(hinted, [])
            board.call("/api/puzzles/hint", {"attempt": view["current"]["attempt"]})
            console = screenshot_url(board.url + "/?puzzles", out / "puzzles.png", 1100, 720)
            view = play(refuted, [_wrong(refuted, prover)[0]])
            console += screenshot_url(board.url + "/?puzzles", out / "puzzles-refuted.png", 1100, 720)
        finally:
            board.close()
    print(f"wrote {out / 'puzzles.png'} and {out / 'puzzles-refuted.png'}" + (f"; console: {console}" if console else ""))


def _wrong(puzzle, prover) -> tuple[str, list[str]]:
    """The first wrong first move of ``puzzle`` that leaves a refutation to draw, and that refutation."""
    from hiveai import puzzles

    for move in puzzle.board().legal_moves:
        if str(move) != puzzle.solution[0] and not move.is_pass:
            refutation = puzzles.try_move(puzzle, [], str(move), prover).refutation
            if refutation:
                return str(move), refutation
    raise RuntimeError(f"puzzle {puzzle.id} has no wrong move with a refutation")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=REPO / "docs")
    p.add_argument("--depth", type=int, default=3, help="search depth of the best move and the review")
    p.add_argument("--only", choices=("analysis", "puzzles"), help="only docs/analysis.md's or docs/puzzles.md's pictures")
    a = p.parse_args()
    if not have_chromium():
        print(f"no {CHROMIUM}: install Debian's chromium package", file=sys.stderr)
        return 1
    if a.only != "puzzles":
        render_docs(a.out, a.depth)
    if a.only != "analysis":
        render_puzzles(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
