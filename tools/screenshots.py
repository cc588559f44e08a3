"""Render the pictures of docs/analysis.md: a board SVG and a screenshot of a game review page.

    python tools/screenshots.py [--out docs] [--depth 3]

writes ``docs/board.svg`` (docs/analysis.md's example position with the engine's
best move as an arrow) and ``docs/review.png`` (headless Chromium's
screenshot of ``hiveai analyse --game`` 's HTML page for a test game). It also
holds the headless Chromium helpers the browser test uses: :func:`screenshot`
and :func:`dump_dom`, both returning the console messages the page produced.

Chromium is Debian's ``chromium`` package (``apt-get install -y chromium``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=REPO / "docs")
    p.add_argument("--depth", type=int, default=3, help="search depth of the best move and the review")
    a = p.parse_args()
    if not have_chromium():
        print(f"no {CHROMIUM}: install Debian's chromium package", file=sys.stderr)
        return 1
    render_docs(a.out, a.depth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
