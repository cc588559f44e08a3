"""How far the shipped books follow the named openings of ``openings/named.txt``.

For every named line and every game type that has the line's pieces (a Base
line applies to all eight), walks the line through that game type's book and
counts the pairs whose every move is a book move the engine plays (weight > 0).
A move matches a book move when both lead to the same position up to the
board's symmetries (the books store one orientation of each position). Prints
each pair that stops early, with the move it stops at, and the count:

    python tools/named_coverage.py                 # the shipped books
    python tools/named_coverage.py --dir NEWBOOKS  # another book folder

`hiveai book build` keeps a named move only while its depth-6 search scores it
within the margin of the best, so a line may stop where the search disagrees;
``hiveai book show GAMESTRING`` then shows the move with weight 0 and its score.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hiveai.rules.board import Board
from hiveai.player.book import Book, book_path, lookup
from hiveai.player.book import load as load_book
from hiveai.training.bookbuild import NAMED_FILE, child_key
from hiveai.rules.bug import STANDARD_GAME_TYPES, game_type_string, parse_game_type
from hiveai.records import read_games

NAMED = Path(__file__).resolve().parent.parent / "openings" / NAMED_FILE


def stop(game_type: int, moves: list[str], book: Book | None) -> tuple[int, str] | None:
    """Where the line leaves the book's played moves (ply, move), or None if it never does."""
    board = Board(game_type_string(game_type))
    for ply, text in enumerate(moves):
        move = board.parse_move(text).code
        target = child_key(board, move)
        played = [bm for bm in (lookup(board, book) or []) if bm.weight > 0]
        if not any(child_key(board, bm.move.code) == target for bm in played):
            return ply, text
        board.push(move)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="book folder (default: the shipped books)")
    args = parser.parse_args()
    records = list(read_games(NAMED))
    pairs = covered = 0
    for game_type in STANDARD_GAME_TYPES:
        name = game_type_string(game_type)
        if args.dir is None:
            book = load_book(game_type)
        else:
            path = book_path(game_type, args.dir)
            if not path.exists():
                print(f"{name}: no book in {args.dir}, skipped")
                continue
            book = Book.read(path)
        for record in records:
            if parse_game_type(record.game_type) & ~game_type:
                continue  # the line names a piece this game type lacks
            pairs += 1
            where = stop(game_type, list(record.moves), book)
            if where is None:
                covered += 1
            else:
                print(f"{name}: {';'.join(record.moves)} stops at ply {where[0] + 1}, {where[1]}")
    print(f"{covered} of {pairs} pairs of named line and game type are book moves to their last move")


if __name__ == "__main__":
    main()
