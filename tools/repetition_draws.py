"""Who stood better in a tournament's repetition draws: hiveai's own search of each repeated position.

Reads a ``hiveai tournament`` folder's games.jsonl and, for every game that
ended on a repeated position (a threefold repetition, adjudicated or declared
by an engine, and a forfeit that followed a draw claim on a position seen
only twice), replays the game to the first occurrence of its last position
and searches it at a fixed depth with the default settings (no contempt), so
the repetition history plays no part in the score. Prints one line a game
and a summary from the hiveai side's point of view (the engine not named
``--opponent``):

    python tools/repetition_draws.py /work/runs/trial --opponent nokamute --depth 5

A score of at least ``--margin`` (default 50: half an enemy piece next to a
queen) counts as standing better, at most ``-margin`` as worse.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from hiveai.rules.board import Board
from hiveai.search.score import format_score
from hiveai.search.searcher import search


def repeated_position(game_string: str) -> tuple[Board, int]:
    """The game replayed to the first occurrence of its final position, and how often that position occurred."""
    board = Board.from_game_string(game_string)
    seen = board.position_hashes()
    first = seen.index(seen[-1])
    if first < board.ply:
        board.undo(board.ply - first)
    return board, seen.count(seen[-1])


def is_repetition(game: dict) -> bool:
    """Whether the game ended on a repeated position (a draw by repetition, or a forfeit after a draw claim)."""
    if game["result"] == "Draw":
        return "repetition" in game["detail"] or game["reason"] == "threefold repetition"
    return game.get("forfeit") is not None and any("declared a draw" in f for f in game["flags"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--opponent", default="nokamute", help="the engine that is not hiveai")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--margin", type=int, default=50)
    args = parser.parse_args()
    tally: dict[tuple[str, str], list[int]] = {}
    for line in (args.folder / "games.jsonl").read_text().splitlines():
        game = json.loads(line)
        if not is_repetition(game):
            continue
        board, count = repeated_position(game["game_string"])
        hiveai = game["black"] if game["white"] == args.opponent else game["white"]
        score = search(board, depth=args.depth).score or 0
        ours = score if (board.turn == 0) == (game["white"] == hiveai) else -score
        verdict = "better" if ours >= args.margin else "worse" if ours <= -args.margin else "level"
        kind = "draw" if game["result"] == "Draw" else "forfeit"
        tally.setdefault((hiveai, kind), []).append(ours)
        print(f"{game['id']} {hiveai:>6} {kind:<7} plies {game['plies']:>3} seen {count}x first at ply {board.ply:>3}: "
              f"{hiveai} {format_score(ours):>8} ({verdict})")
    for (name, kind), scores in sorted(tally.items()):
        better = sum(s >= args.margin for s in scores)
        worse = sum(s <= -args.margin for s in scores)
        print(f"{name} {kind}: {len(scores)} games, hiveai better in {better}, level in "
              f"{len(scores) - better - worse}, worse in {worse}; median {format_score(int(statistics.median(scores)))}")


if __name__ == "__main__":
    main()
