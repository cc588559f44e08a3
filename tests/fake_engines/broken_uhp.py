"""A UHP engine that breaks one thing, for the tests of ``hiveai uhp-check``.

It keeps the game with hiveai's Board, answers like hiveai (first legal move
for bestmove) and, with ``--break WHAT``, does one thing wrong:

  crash           exits with code 3 when it gets ``undo``
  hang-bestmove   never answers ``bestmove``
  illegal-move    answers ``bestmove`` with a move that is not legal (a piece onto itself)
  extra-line      prints a progress line before its ``bestmove`` answer
  no-ok           forgets the ``ok`` after ``options``
  accept-illegal  answers any ``play`` with a GameString, legal or not (illegal moves are not played)
  miss-spider     leaves one move of a spider on the board out of ``validmoves`` when there are four or more
  ignore-undo     answers ``undo`` with the GameString but undoes nothing
  late-time       answers ``bestmove time T`` two seconds after T
  no-exit         spins when its input ends instead of exiting (as MzingaCpp does)
  drop-ok         leaves out the ``ok`` after every third ``validmoves`` (counted from its start)
  refuse-mlp      answers ``invalidmove`` to a ``newgame`` with a Base+MLP GameString (as an engine
                  whose rules disagree with a move of the game would)

and, with ``--busy S``, spends S seconds of CPU before each ``validmoves`` answer
(a slow engine, correct unless it also breaks something).

Usage: python broken_uhp.py [--break WHAT] [--busy S]
"""

from __future__ import annotations

import argparse
import re
import sys
import time

BREAKS = ("crash", "hang-bestmove", "illegal-move", "extra-line", "no-ok", "accept-illegal", "miss-spider",
          "ignore-undo", "late-time", "no-exit", "drop-ok", "refuse-mlp", "none")


def out(*lines: str) -> None:
    for line in lines:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()


def seconds_of(timespan: str) -> float:
    h, m, s = timespan.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--break", dest="broken", choices=BREAKS, default="none")
    p.add_argument("--busy", type=float, default=0.0)
    args = p.parse_args()
    broken = args.broken
    out("id broken-" + broken, "Mosquito;Ladybug;Pillbug", "ok")
    from hiveai.rules.board import Board  # after the banner: loads numba

    board = None
    validmoves_asked = 0
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if not cmd:
            continue
        validmoves_asked += cmd == "validmoves"
        drop_ok = broken == "drop-ok" and cmd == "validmoves" and validmoves_asked % 3 == 0
        if cmd == "exit":
            return 0
        try:
            if cmd == "info":
                out("id broken-" + broken, "Mosquito;Ladybug;Pillbug")
            elif cmd == "options":
                if broken == "no-ok":
                    continue
            elif cmd == "newgame":
                if broken == "refuse-mlp" and rest.startswith("Base+MLP;"):
                    out("invalidmove That is not a valid move")
                    out("ok")
                    continue
                board = Board.parse(rest or "Base")
                out(board.game_string())
            elif board is None:
                out("err No game in progress.")
            elif cmd in ("play", "pass"):
                move = rest if cmd == "play" else "pass"
                if broken == "accept-illegal" and not board.is_legal(move):
                    out(board.game_string() + ";" + move)
                else:
                    board.play(move)
                    out(board.game_string())
            elif cmd == "validmoves":
                spent = time.process_time() + args.busy
                while time.process_time() < spent:
                    pass
                moves = [str(m) for m in board.legal_moves]
                spider = [m for m in moves if m.startswith(("wS", "bS")) and board.cell_of(m.split()[0])]
                if broken == "miss-spider" and len(spider) >= 4:
                    moves.remove(spider[-1])
                out(";".join(moves) if moves else board.valid_moves_string())
            elif cmd == "undo":
                if broken == "crash":
                    return 3
                n = int(rest) if rest else 1
                if broken != "ignore-undo":
                    board.undo(n)
                out(board.game_string())
            elif cmd == "bestmove":
                if not re.fullmatch(r"(time \d+:\d\d:\d\d(\.\d+)?|depth \d+)", rest):
                    raise ValueError(f"bad bestmove {rest!r}")
                if board.is_game_over():
                    raise ValueError("The game is over.")
                if broken == "hang-bestmove":
                    time.sleep(3600)
                if broken == "late-time" and rest.startswith("time"):
                    time.sleep(seconds_of(rest.split()[1]) + 2.0)
                if broken == "extra-line":
                    out("thinking about depth 1...")
                move = board.legal_moves[0]
                if broken == "illegal-move" and not move.is_pass:
                    out(f"{move.piece} {move.piece}")
                else:
                    out(str(move))
            else:
                out(f"err Invalid command {cmd!r}.")
        except Exception as e:  # noqa: BLE001 - a test engine reports anything
            text = str(e).replace("\n", " ")
            out(("invalidmove " if cmd in ("play", "pass") else "err ") + text)
        if not drop_ok:
            out("ok")
    if broken == "no-exit":
        while True:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
