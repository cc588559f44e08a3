"""How long the pictures take: ``hiveai.svg.board`` on full middle games, and a review page's assembly.

    python tools/bench_svg.py [--positions 20] [--repeat 50] [--depth 1]

Board: seeded random games of Base+MLP, played until 22 to 28 pieces are on
the board (placements favoured so they get there), each drawn ``--repeat``
times with the default options plus an arrow; prints the median time per
call of each position and the worst of those medians. Review page: a
66-move test game reviewed at ``--depth`` (the searches, timed apart), then
``hiveai.analysis.pages.review_page`` timed on its own: that is all the HTML adds to
the review.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from hiveai.rules.board import Board
from hiveai.rules.bug import N_PIECES
from hiveai.rules.position import POS

REPO = Path(__file__).resolve().parent.parent
GAME = REPO / "tests" / "data" / "games" / "HV-Jewdoka-Quodlibet-2020-12-08-2330.pgn"


def on_board(board: Board) -> int:
    b = board.position_array
    return sum(int(b[POS + p]) >= 0 for p in range(N_PIECES))


def midgames(count: int, seed: int = 1) -> list[Board]:
    """``count`` Base+MLP positions with 22 to 28 pieces on the board, from seeded random play."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = Board("Base+MLP")
        target = rng.randint(22, 28)
        while not board.is_game_over() and on_board(board) < target:
            moves = board.legal_moves
            b = board.position_array
            placements = [m for m in moves if not m.is_pass and int(b[POS + (m.code >> 10)]) < 0]
            board.push(rng.choice(placements if placements and rng.random() < 0.8 else moves))
        if not board.is_game_over() and 22 <= on_board(board) <= 28:
            out.append(board)
    return out


def main() -> None:
    from hiveai.svg import board as board_svg

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=20)
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--depth", type=int, default=1, help="search depth of the review")
    a = p.parse_args()
    boards = midgames(a.positions)
    board_svg(boards[0])  # first call: imports, caches
    medians = []
    for board in boards:
        arrow = [board.legal_moves[0]]
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            board_svg(board, arrows=arrow)
            times.append(time.perf_counter() - t)
        medians.append(statistics.median(times))
    pieces = [on_board(b) for b in boards]
    print(f"svg.board: {len(boards)} Base+MLP positions with {min(pieces)}-{max(pieces)} pieces on the board, "
          f"{a.repeat} calls each: median {1000 * statistics.median(medians):.2f} ms, "
          f"worst position {1000 * max(medians):.2f} ms per call")

    from hiveai.analysis.analyse import analyse_game
    from hiveai.records import read_game
    from hiveai.analysis.pages import review_page

    record = read_game(GAME)
    t = time.perf_counter()
    review = analyse_game(record, lambda line: None, depth=a.depth)
    searches = time.perf_counter() - t
    t = time.perf_counter()
    page = review_page(review, name=GAME.name)
    assembly = time.perf_counter() - t
    print(f"review of {len(record.moves)} moves at depth {a.depth}: searches {searches:.2f} s, "
          f"HTML page {assembly:.3f} s ({len(page) / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
