"""Find the tactical positions of tests/test_search_tactics.py (tests/data/search/tactics.tsv).

Seeded random play in each game type, biased towards the queens so that
queens get crowded and games end (as in tests/test_uhp_random_games.py). Before
every move the position is classified with the tests' own brute-force
predicates (tests/tactics.py), and kept while its category still needs positions (at most one
per category per game, so the positions come from different games, and one
category per position):

* ``win1``: the side to move can surround the enemy queen at once.
* ``win2``: no win in 1, but a move after which every reply still leaves a
  win in 1 (or loses at once). The note says how many moves force it.
* ``block``: no win in 1; if we passed, the opponent would win at once; some
  moves stop that and some do not.
* ``danger``: our queen has 4 or 5 neighbours, no win in 1, and at least one
  move lets the opponent win next (or loses outright).
* ``five``: our queen has 5 neighbours, the first legal move loses, some move
  is safe (the old "answer validmoves[0]" bug would lose here).
* ``repeat`` (taken when met, not played for): a move back into a position
  seen earlier in the game (since the last placement) loses at once, and
  some move is safe.
* ``throw_win`` / ``throw_save`` (Pillbug types): every winning move, or every
  saving move of a ``block`` position, is a pillbug power (a throw). In
  Mosquito+Pillbug types some are asked to be mosquito throws (``note``
  says ``by M``).

The output is reproducible: same seed, same code, same file. The tests do
not trust it: they re-derive every property by brute force.

Usage: python tools/find_tactics.py [--seed N] [--out PATH]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import tactics as T  # noqa: E402  (the predicates the tests use)

from hiveai.rules.board import Board  # noqa: E402
from hiveai.rules.hex_grid import CELL_MASK  # noqa: E402
from hiveai.rules.position import PASS  # noqa: E402

SEED = 20261129
MAX_GAMES = 800
MAX_PLIES = 300
QUOTAS = {"win1": 4, "win2": 4, "block": 4, "danger": 30, "five": 2}
# Taken while the games last, but not played for: they are rare.
OPTIONAL = {"repeat": 2}
P_QUOTAS = {"throw_win": 3, "throw_save": 3}
# Mosquito+Pillbug types: this many throw positions must be mosquito throws.
MOSQUITO_THROWS = 2
PRIORITY = ["repeat", "throw_win", "throw_save", "five", "win2", "block", "win1", "danger"]
DANGER_PER_GAME = 2  # danger positions are plentiful: take a few per game, spaced out
DANGER_SPACING = 6  # plies


def towards_queens(ply: int) -> float:
    """Probability of a move landing next to a queen: low early, rising so games end."""
    return min(0.9, 0.2 + ply / 100)


def choose(rng: random.Random, b, moves: list[int]) -> int:
    queens = [T.queen_cell(b, s) for s in (0, 1)]
    around = set().union(*(T.ring(q) for q in queens if q >= 0))
    near = [m for m in moves if m != PASS and (m & CELL_MASK) in around]
    ply = int(b[T.PLY])
    return rng.choice(near) if near and rng.random() < towards_queens(ply) else rng.choice(moves)


def _all_throws(b, moves, targets) -> str | None:
    """The note suffix ``by <throwers>`` when every one of ``targets`` is a pillbug throw, else None."""
    throws = T.throw_only(b, moves)
    if not all(m in throws for m in targets):
        return None
    return " by " + "".join(sorted(set().union(*(T.throwers(b, m) for m in targets))))


def classify(board: Board, want: set[str]) -> dict[str, str]:
    """Categories (among ``want``) this position belongs to, each with a note."""
    b = board.position_array.copy()
    moves = T.moves_of(b)
    if moves == [PASS]:
        return {}
    me = T.side_to_move(b)
    pillbug = "P" in board.game_type_string
    out: dict[str, str] = {}
    wins = T.winning_moves(b, moves)
    if wins:
        note = "wins: " + " ".join(T.names(board, wins))
        out["win1"] = note
        if pillbug and "throw_win" in want:
            by = _all_throws(b, moves, wins)
            if by is not None:
                out["throw_win"] = note + by
        return out
    mine, theirs = T.crowd(b, me), T.crowd(b, 1 - me)
    if mine >= 3 and want & {"block", "danger", "five", "throw_save", "repeat"}:
        safe, losing = T.safe_and_losing(b, moves)
        if losing and mine in (4, 5):
            out["danger"] = f"queen neighbours {mine}; {len(safe)} safe, {len(losing)} losing"
        if losing and safe:
            note = "safe: " + " ".join(T.names(board, safe)[:8]) + (" ..." if len(safe) > 8 else "")
            if mine == 5 and moves[0] in losing:
                out["five"] = f"first move {board.move_to_string(moves[0])} loses; " + note
            if "repeat" in want and T.repeating(board, b, losing):
                out["repeat"] = "back to an earlier position and lose: " + " ".join(
                    T.names(board, T.repeating(board, b, losing))) + "; " + note
            if T.threatened(b):
                out["block"] = note
                if pillbug and "throw_save" in want:
                    by = _all_throws(b, moves, safe)
                    if by is not None:
                        out["throw_save"] = note + by
    if theirs >= 4 and "win2" in want:
        forcing = [m for m in moves if T.forces_win_in_2(b, m)]
        if forcing:
            out["win2"] = f"{len(forcing)} of {len(moves)} force it: " + " ".join(T.names(board, forcing)[:6])
    return out


def find(game_type: str, seed: int) -> list[tuple[str, str, str]]:
    quotas = dict(QUOTAS) | dict(OPTIONAL) | (dict(P_QUOTAS) if "P" in game_type else {})
    mosquito_throws = MOSQUITO_THROWS if "M" in game_type and "P" in game_type else 0
    rng = random.Random(f"{seed}:{game_type}")
    found: list[tuple[str, str, str]] = []
    have: Counter = Counter()
    have_m = 0
    for game in range(MAX_GAMES):
        want = {c for c, n in quotas.items() if have[c] < n and c not in OPTIONAL}
        if not want and have_m >= mosquito_throws:
            break
        board = Board(game_type)
        taken: Counter = Counter()
        last_danger = -DANGER_SPACING
        while board.state in ("NotStarted", "InProgress") and board.ply < MAX_PLIES:
            want = {c for c, n in quotas.items() if have[c] < n and taken[c] == 0}
            if have_m < mosquito_throws:
                want |= {"throw_win", "throw_save"} - {c for c in taken}
            if have["danger"] < quotas["danger"] and taken["danger"] < DANGER_PER_GAME \
                    and board.ply - last_danger >= DANGER_SPACING:
                want.add("danger")
            if want:
                # One category per position (the rarest first), so categories don't share positions.
                got = classify(board, want)
                for cat in PRIORITY:
                    note = got.get(cat)
                    if cat not in want or note is None:
                        continue
                    is_m = cat.startswith("throw") and note.endswith(" by M")
                    if have[cat] >= quotas[cat] and not (is_m and have_m < mosquito_throws):
                        continue
                    found.append((cat, note, board.game_string()))
                    have[cat] += 1
                    have_m += is_m
                    taken[cat] += 1
                    if cat == "danger":
                        last_danger = board.ply
                    break
            b = board.position_array
            board.push(choose(rng, b, board.legal_move_ints()))
    missing = {c: n - have[c] for c, n in quotas.items() if have[c] < n and c not in OPTIONAL}
    print(f"{game_type}: {game + 1} games, {dict(have)}, mosquito throws {have_m}"
          + (f", MISSING {missing}" if missing or have_m < mosquito_throws else ""), file=sys.stderr)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=T.DATA)
    ap.add_argument("--types", default=",".join(T.GAME_TYPES))
    args = ap.parse_args()
    start = time.monotonic()
    lines = [
        "# Positions for tests/test_search_tactics.py: category<TAB>game type<TAB>note<TAB>GameString.",
        f"# Written by tools/find_tactics.py --seed {args.seed} (seeded random play biased towards the",
        "# queens, classified with the brute-force predicates of tests/tactics.py). The notes are for people;",
        "# the tests re-derive every property from the rules and do not read them.",
    ]
    order = ["win1", "win2", "block", "five", "throw_win", "throw_save", "repeat", "danger"]  # file order
    for gt in args.types.split(","):
        found = find(gt, args.seed)
        found.sort(key=lambda r: order.index(r[0]))  # stable: keeps discovery order inside a category
        lines += [f"{cat}\t{gt}\t{note}\t{gs}" for cat, note, gs in found]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out} in {time.monotonic() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
