"""A small UHP engine for tournament tests, with switchable misbehaviour.

It keeps the game with hiveai's Board and plays a legal move picked from the
position's Zobrist key, so it is deterministic but not always the same move.
From ply N on (plies already played when asked, opening included) it can:

  --crash-at N      exit with code 3 instead of answering bestmove
  --illegal-at N    answer bestmove with "pass" while other moves exist
  --hang-at N       never answer bestmove
  --garbage-at N    answer bestmove with a line that is no move
  --false-win-at N  claim "WhiteWins" in its GameString replies to play
  --draw-at N       claim "Draw" in its replies to play, true or not
  --err-at N        answer "err" to play (and pass) instead of a GameString
  --slow S          think S seconds before every bestmove answer
  --first           play the first legal move (a very weak engine)
  --whole-seconds   answer err to a "bestmove time" with a fraction of a second, as nokamute does
  --no-options      answer err to every "options set"

and independently of the ply:

  --hang-at-start   never print the start-up banner (and ignore all input)
  --hang-on CMD     never answer the command CMD (options, newgame, play, ...)
  --shuffle         move the piece it moved last back where it came from, when it can
                    (two shufflers repeat positions)
  --claim-repetition  declare "Draw" when its own count of the position reaches three,
                    as nokamute does
  --pid-file PATH   append its process id to PATH first (tests check it is gone later)

Usage: python fake_uhp.py [flags]; it speaks UHP on stdin/stdout like hiveai.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

NEVER = 10**9


def main() -> int:
    p = argparse.ArgumentParser()
    for flag in ("crash-at", "illegal-at", "hang-at", "garbage-at", "false-win-at", "draw-at", "err-at"):
        p.add_argument("--" + flag, type=int, default=NEVER)
    p.add_argument("--slow", type=float, default=0.0)
    for flag in ("first", "whole-seconds", "no-options", "hang-at-start", "shuffle", "claim-repetition"):
        p.add_argument("--" + flag, action="store_true")
    p.add_argument("--hang-on")
    p.add_argument("--pid-file")
    p.add_argument("--name", default="fake")
    a = p.parse_args()
    if a.pid_file:
        with open(a.pid_file, "a") as f:
            f.write(f"{os.getpid()}\n")
    if a.hang_at_start:
        time.sleep(3600)
        return 0

    board = None  # a hiveai.rules.board.Board once a game exists
    seen: Counter[int] = Counter()  # positions of this game, for --claim-repetition
    options: dict[str, str] = {}

    def out(*lines: str) -> None:
        for line in lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def game_string() -> str:
        gs = board.game_string().split(";")
        repeated = a.claim_repetition and seen[board.zobrist] >= 3
        if (board.ply >= a.draw_at or repeated) and not board.is_game_over():
            gs[1] = "Draw"
        elif board.ply >= a.false_win_at and not board.is_game_over():
            gs[1] = "WhiteWins"
        return ";".join(gs)

    out(f"id {a.name}", "Mosquito;Ladybug;Pillbug", "ok")  # at once, as hiveai does (before numba loads)
    from hiveai.rules.board import Board  # loads numba: the first reply after the banner waits for it

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, rest = words[0], line.strip()[len(words[0]):].strip()
        if cmd == "exit":
            return 0
        if cmd == a.hang_on:
            time.sleep(3600)
        if cmd == "info":
            out(f"id {a.name}", "Mosquito;Ladybug;Pillbug")
        elif cmd == "options":
            if a.no_options and len(words) > 1 and words[1] == "set":
                out(f"err Unknown option {words[2] if len(words) > 2 else ''}")
            elif len(words) == 4 and words[1] == "set":
                options[words[2]] = words[3]
                out(f"{words[2]};string;{words[3]};")
        elif cmd == "newgame":
            board = Board.parse(rest or "Base")
            replay = Board(board.game_type_string)
            seen.clear()
            seen[replay.zobrist] += 1
            for move in board.move_history:
                replay.play(move)
                seen[replay.zobrist] += 1
            out(board.game_string())
        elif cmd in ("play", "pass"):
            if board.ply >= a.err_at:
                out("err Something went wrong in the engine.")
                out("ok")
                continue
            try:
                board.play(rest if cmd == "play" else "pass")
                seen[board.zobrist] += 1
                out(game_string())
            except Exception as e:  # noqa: BLE001 - a test engine reports anything
                out(f"invalidmove {e}")
        elif cmd == "bestmove" and a.whole_seconds and rest.startswith("time") and "." in rest:
            out(f'err UnrecognizedCommand("{rest}")')  # nokamute's words
        elif cmd == "bestmove":
            ply = board.ply
            if ply >= a.crash_at:
                sys.stdout.write("wS1")  # half a line, then gone
                sys.stdout.flush()
                return 3
            if ply >= a.hang_at:
                time.sleep(3600)
            time.sleep(a.slow)
            moves = board.legal_moves
            if ply >= a.garbage_at:
                out("I think the bee should fly to the moon!")
            elif ply >= a.illegal_at and not moves[0].is_pass:
                out("pass")
            else:
                back = shuffle_back(board) if a.shuffle else None
                pick = 0 if a.first else (board.zobrist * 0x9E3779B97F4A7C15 >> 17) % len(moves)
                out(str(back if back is not None else moves[pick]))
        else:
            out("err unknown command")
        out("ok")
    return 0


def shuffle_back(board):
    """The move taking the piece this side moved last back to its cell before, or None."""
    from hiveai.rules.position import MOVE_PIECE_SHIFT, POS

    if board.ply < 2:
        return None
    theirs, mine = board.pop(), board.pop()
    piece = mine.code >> MOVE_PIECE_SHIFT
    cell = int(board.position_array[POS + piece])  # -1: it was placed, not moved
    board.push(mine)
    board.push(theirs)
    if mine.is_pass or cell < 0:
        return None
    return next((m for m in board.legal_moves if m.code == (piece << MOVE_PIECE_SHIFT) | cell), None)


if __name__ == "__main__":
    sys.exit(main())
