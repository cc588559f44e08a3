"""Opening book latency and variety (prints figures; exits 1 if a budget is missed).

    python tools/bench_book.py [--runs N] [--engines N]

* first book move, fresh process: a new Python process sets up a board in a
  book position (kernels loaded, as after ``newgame``), then times
  ``hiveai.player.book.book_move``, which reads the book file and looks the position
  up. Budget: 50 ms, since the per-move bot bridge starts a fresh
  engine for every move.
* book move, book loaded: the same call once the book is cached, over every
  position on the book's own lines.
* UHP ``bestmove`` in a book position, over the pipe, and the first moves of
  ``--engines`` fresh engines (default ten): only once the engine has the
  ``UseBook`` option.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENGINE = [sys.executable, "-m", "hiveai"]
BUDGET = 0.050  # seconds: the limit for bestmove in a book position
BOOK_GAME = "Base+MLP;InProgress;White[2];wP;bP wP-"

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_uhp import start_engine  # noqa: E402  (the same minimal UHP client)

_FRESH = """
import sys, time
from hiveai.rules.board import Board
from hiveai.player import book
board = Board.parse(sys.argv[1])
board.legal_move_ints()
start = time.perf_counter()
move = book.book_move(board)
print(time.perf_counter() - start, move)
"""


def first_book_move(runs: int, game: str) -> list[float]:
    times = []
    for _ in range(runs + 1):  # the first run warms numba's cache and is dropped
        out = subprocess.run([sys.executable, "-c", _FRESH, game], cwd=REPO, capture_output=True, text=True,
                             check=True, timeout=600).stdout.split()
        assert out[1] != "None", f"not a book position: {game}"
        times.append(float(out[0]))
    return times[1:]


def cached_book_moves() -> list[float]:
    from hiveai.player import book
    from hiveai.rules.board import Board
    from hiveai.rules.bug import game_type_string

    times = []
    for gt in range(8):  # every game type
        shipped = book.load(gt)
        for entry in shipped.entries():
            board = Board(game_type_string(gt))
            for m in entry.line:
                board.play(m)
            board.legal_move_ints()
            start = time.perf_counter()
            book.book_move(board, rng=random.Random(1))
            times.append(time.perf_counter() - start)
    return times


def uhp_bestmove(runs: int, engines: int = 10) -> tuple[list[float], list[str]] | None:
    """bestmove round trips in book positions, and ``engines`` fresh engines' first moves; None without UseBook."""
    p = start_engine()
    if not any(line.lower().startswith("usebook;") for line in p.command("options")):
        p.close()
        return None
    times = []
    for _ in range(runs):
        p.command(f"newgame {BOOK_GAME}")
        start = time.perf_counter()
        p.command("bestmove time 00:00:05")
        times.append(time.perf_counter() - start)
    p.close()
    firsts = []
    for _ in range(engines):
        p = start_engine()
        p.command("newgame Base")
        firsts.append(p.command("bestmove time 00:00:05")[-1])
        p.close()
    return times, firsts


def show(name: str, times: list[float]) -> None:
    print(f"{name:<46} median {statistics.median(times) * 1000:7.2f} ms   max {max(times) * 1000:7.2f} ms   "
          f"(n={len(times)})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="fresh processes / UHP round trips")
    ap.add_argument("--engines", type=int, default=10, help="fresh engines whose first move is shown")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}; budget {BUDGET * 1000:.0f} ms")
    fresh = first_book_move(args.runs, BOOK_GAME)
    show("first book move, fresh process (load + lookup)", fresh)
    show("book move, book loaded (all book positions)", cached_book_moves())
    ok = statistics.median(fresh) < BUDGET
    uhp = uhp_bestmove(args.runs, args.engines)
    if uhp is None:
        print("UHP: the engine has no UseBook option yet; bestmove round trip not measured")
    else:
        times, firsts = uhp
        show("UHP bestmove time 00:00:05, book position", times)
        print(f"{f'first moves of {len(firsts)} fresh engines':<46} {' '.join(firsts)} ({len(set(firsts))} distinct)")
        ok = ok and statistics.median(times) < BUDGET and (len(firsts) < 2 or len(set(firsts)) > 1)
    print("within budget" if ok else "BUDGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
