"""Tactics for the alpha-beta search (hiveai.search), in all eight game types.

Wins in 1 and forced wins in 2 are played, the opponent's win in 1 is blocked,
the queen is never left to be surrounded next turn when a move avoids it,
pillbug (and mosquito-as-pillbug) throws that win or save are found, and the
old "first legal move, score -500000" Pillbug bug stays fixed, and so does a
later one: a move back into a position seen earlier in the game scored as a
draw even when the opponent could then surround our queen at once.
The danger positions searched deeper are marked slow.

Positions come from ``tests/data/search/tactics.tsv``, written by
``tools/find_tactics.py`` (seeded random play biased towards the queens, then
the predicates below). The file only says which category a position was
picked for: every test re-derives the property it relies on by brute force
over the rules kernels (``movegen.legal_moves``, ``do_move``/``undo_move``,
``game_result``) before asking the search, so a stale or wrong file fails a
test instead of passing it vacuously.

Brute-force shortcut (``ending_moves``): a move changes how many occupied
cells surround a queen only at its source (at most -1) and its destination
(at most +1), unless it moves that queen itself. So only a move of a queen,
or a move that lands next to a queen with five neighbours, can end the game;
the other moves need not be played. ``test_ending_moves_shortcut_is_exact``
checks this against playing every move.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from hiveai.board import Board
from hiveai.bug import EXP_PILLBUG, KIND_FIRST, MOSQUITO, PIECES_PER_COLOUR, PILLBUG, kind_of
from hiveai.score import WIN
from hiveai.hex_grid import CELL_MASK, DIR_OFFSET
from hiveai.movegen import MAX_MOVES, legal_moves, new_workspace
from hiveai.position import (
    BLACK_WINS,
    GAME_TYPE,
    HEIGHT,
    IN_PROGRESS,
    LAST_MOVED,
    MOVE_PIECE_SHIFT,
    PASS,
    PLY,
    POS,
    TOP,
    WHITE_WINS,
    do_move,
    game_result,
    occupied_neighbours,
    undo_move,
)
from hiveai import search as search_module
from hiveai.search import format_score, is_win_score, search



@pytest.fixture(autouse=True, params=[1, 2], ids=["1thread", "2threads"])
def threads(request, monkeypatch):
    """Every tactic is checked with one search thread and with two (Lazy SMP,
    one shared table): the answer comes from the main thread, so it must be
    just as right however the helper's entries interleave with its own."""
    real = search_module.search
    monkeypatch.setitem(globals(), "search", lambda board, **kw: real(board, threads=request.param, **kw))
    return request.param


GAME_TYPES = ["Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP", "Critters"]
P_TYPES = [g for g in GAME_TYPES if "P" in g]
DATA = Path(__file__).parent / "data" / "search" / "tactics.tsv"

# --- Brute force over the kernels ---------------------------------------------

_WS = new_workspace()
_BUF = np.empty(MAX_MOVES, dtype=np.int32)


def moves_of(b: np.ndarray) -> list[int]:
    """Legal moves of the side to move (``[PASS]`` when stuck); the game must be on."""
    n = legal_moves(b, _WS, _BUF, 0)
    return [int(m) for m in _BUF[:n]]


def side_to_move(b: np.ndarray) -> int:
    return int(b[PLY]) & 1


def win_code(side: int) -> int:
    return WHITE_WINS if side == 0 else BLACK_WINS


def queen_cell(b: np.ndarray, side: int) -> int:
    return int(b[POS + side * PIECES_PER_COLOUR])


def ring(cell: int) -> set[int]:
    return {(cell + o) & CELL_MASK for o in DIR_OFFSET}


def crowd(b: np.ndarray, side: int) -> int:
    """Occupied cells around ``side``'s queen (-1 while it is in hand)."""
    q = queen_cell(b, side)
    return -1 if q < 0 else int(occupied_neighbours(b, q))


def piece_of(mv: int) -> int:
    return mv >> MOVE_PIECE_SHIFT


def result_after(b: np.ndarray, mv: int) -> int:
    token = do_move(b, mv)
    r = int(game_result(b))
    undo_move(b, mv, token)
    return r


def ending_moves(b: np.ndarray, moves: list[int] | None = None, exhaustive: bool = False) -> dict[int, int]:
    """Moves that end the game at once, each with its result (``game_result``).

    Without ``exhaustive`` only the candidates of the module docstring's
    shortcut are played: moves of a queen, and moves landing next to a queen
    that has five neighbours.
    """
    if int(game_result(b)) != IN_PROGRESS:
        return {}
    if moves is None:
        moves = moves_of(b)
    if not exhaustive:
        crowded = [q for q in (queen_cell(b, 0), queen_cell(b, 1)) if q >= 0 and occupied_neighbours(b, q) == 5]
        around = set().union(*(ring(q) for q in crowded))
        moves = [m for m in moves if m != PASS
                 and (piece_of(m) % PIECES_PER_COLOUR == 0 or (m & CELL_MASK) in around)]
    out = {}
    for m in moves:
        r = result_after(b, m)
        if r != IN_PROGRESS:
            out[m] = r
    return out


def winning_moves(b: np.ndarray, moves: list[int] | None = None, exhaustive: bool = False) -> list[int]:
    """Moves that surround the enemy queen (and not ours) at once."""
    me = side_to_move(b)
    return [m for m, r in ending_moves(b, moves, exhaustive).items() if r == win_code(me)]


def loses_after(b: np.ndarray, mv: int) -> bool:
    """After our ``mv``: have we lost, or can the opponent surround our queen at once?

    A move that ends the game in a draw (both queens surrounded) does not lose.
    """
    me = side_to_move(b)
    token = do_move(b, mv)
    try:
        r = int(game_result(b))
        if r != IN_PROGRESS:
            return r == win_code(1 - me)
        return bool(winning_moves(b))
    finally:
        undo_move(b, mv, token)


def safe_and_losing(b: np.ndarray, moves: list[int] | None = None) -> tuple[list[int], list[int]]:
    moves = moves_of(b) if moves is None else moves
    safe, losing = [], []
    for m in moves:
        (losing if loses_after(b, m) else safe).append(m)
    return safe, losing


def forces_win_in_2(b: np.ndarray, mv: int) -> bool:
    """Our ``mv`` leaves the game on, and after every reply we win (or have won) at once."""
    me = side_to_move(b)
    token = do_move(b, mv)
    try:
        if int(game_result(b)) != IN_PROGRESS:
            return False
        for reply in moves_of(b):
            t2 = do_move(b, reply)
            r = int(game_result(b))
            ok = r == win_code(me) or (r == IN_PROGRESS and bool(winning_moves(b)))
            undo_move(b, reply, t2)
            if not ok:
                return False
        return True
    finally:
        undo_move(b, mv, token)


def threatened(b: np.ndarray) -> bool:
    """Could the opponent surround our queen at once if we passed?"""
    c = b.copy()
    do_move(c, PASS)
    return bool(winning_moves(c))


def throw_only(b: np.ndarray, moves: list[int]) -> set[int]:
    """Moves of pieces on the board that only a pillbug power makes legal.

    Compared with the moves generated with the game type's pillbug bit
    cleared: movegen then finds no throwers, and nothing else it generates
    for pieces already on the board depends on that bit (a pillbug still
    walks, a mosquito next to one still copies its walk).
    """
    c = b.copy()
    c[GAME_TYPE] &= ~EXP_PILLBUG
    plain = set(moves_of(c))
    return {m for m in moves if m != PASS and b[POS + piece_of(m)] >= 0 and m not in plain}


def throwers(b: np.ndarray, mv: int) -> set[str]:
    """Which of our pieces could throw ``mv`` (independent check of ``throw_only``).

    ``"P"``: our pillbug, ``"M"``: our mosquito touching a pillbug; either must be
    uncovered, not moved last ply, and next to both the thrown piece and its
    destination (docs/protocol-notes.md, "Movement").
    """
    me = side_to_move(b)
    src, dst = int(b[POS + piece_of(mv)]), mv & CELL_MASK
    out = set()
    for kind, letter in ((PILLBUG, "P"), (MOSQUITO, "M")):
        p = me * PIECES_PER_COLOUR + KIND_FIRST[kind]
        c = int(b[POS + p])
        if c < 0 or int(b[HEIGHT + c]) != 1 or int(b[LAST_MOVED]) == p:
            continue
        if kind == MOSQUITO and not any(int(b[TOP + n]) >= 0 and kind_of(int(b[TOP + n])) == PILLBUG
                                        for n in ring(c)):
            continue
        if src in ring(c) and dst in ring(c):
            out.add(letter)
    return out


def position_key(b: np.ndarray) -> bytes:
    """What makes two positions the same: every stack, the side to move and,
    with pillbugs in play, the stunned piece (it changes the legal moves)."""
    stunned = int(b[LAST_MOVED]) if int(b[GAME_TYPE]) & EXP_PILLBUG else -1
    return b[HEIGHT:POS].tobytes() + bytes([int(b[PLY]) & 1, stunned + 1])


def earlier_positions(board: Board) -> set[bytes]:
    """Keys of the game's positions since the last placement (none can recur before it)."""
    b = board.position_array.copy()
    keys = {position_key(b)}
    for mv, token in reversed(board.move_history_ints()):
        undo_move(b, mv, token)
        if mv != PASS and b[POS + piece_of(mv)] < 0:
            break
        keys.add(position_key(b))
    return keys


def repeating(board: Board, b: np.ndarray, moves: list[int]) -> list[int]:
    """The ``moves`` that lead back to a position played earlier in the game."""
    keys = earlier_positions(board)
    out = []
    for m in moves:
        t = do_move(b, m)
        if position_key(b) in keys:
            out.append(m)
        undo_move(b, m, t)
    return out


# --- Data ---------------------------------------------------------------------


def load() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(category, game type) -> [(note, GameString)]."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    if not DATA.exists():  # tools/find_tactics.py imports this module before writing it
        return out
    for line in DATA.read_text().splitlines():
        if line and not line.startswith("#"):
            cat, gt, note, gs = line.split("\t")
            assert gs.split(";")[0] == gt, line
            out[cat, gt].append((note, gs))
    return out


POSITIONS = load()


def cases(category: str, types: list[str] = GAME_TYPES) -> list:
    return [pytest.param(gs, id=f"{gt}-{i}") for gt in types
            for i, (_, gs) in enumerate(POSITIONS[category, gt])]


def position(gs: str) -> tuple[Board, np.ndarray]:
    board = Board.from_game_string(gs)
    assert board.state == "InProgress", gs
    return board, board.position_array.copy()


def names(board: Board, moves) -> list[str]:
    return sorted(board.move_to_string(m) for m in moves)


# --- Coverage of the data file ------------------------------------------------

# Positions per game type the generator is asked for (tools/find_tactics.py QUOTAS).
MIN_PER_TYPE = {"win1": 4, "win2": 4, "block": 4, "danger": 30, "five": 2}
MIN_PER_P_TYPE = {"throw_win": 3, "throw_save": 3}
MIN_REPEAT = 6  # in all game types together: they are rare in random play


def test_every_category_is_covered():
    for cat, n in MIN_PER_TYPE.items():
        for gt in GAME_TYPES:
            assert len(POSITIONS[cat, gt]) >= n, (cat, gt)
    for cat, n in MIN_PER_P_TYPE.items():
        for gt in P_TYPES:
            assert len(POSITIONS[cat, gt]) >= n, (cat, gt)
    assert sum(len(POSITIONS["repeat", gt]) for gt in GAME_TYPES) >= MIN_REPEAT


def test_ending_moves_shortcut_is_exact():
    """The shortcut finds exactly the game-ending moves that playing every move finds."""
    checked = ends = 0
    for (cat, _), rows in sorted(POSITIONS.items()):
        for _, gs in rows:
            _, b = position(gs)
            for mv in moves_of(b)[:: 5 if cat == "danger" else 1]:
                t = do_move(b, mv)
                if int(game_result(b)) == IN_PROGRESS:
                    exact = ending_moves(b, exhaustive=True)
                    assert ending_moves(b) == exact, gs
                    checked += 1
                    ends += bool(exact)
                undo_move(b, mv, t)
            assert ending_moves(b) == ending_moves(b, exhaustive=True), gs
    assert checked > 1000 and ends > 100, (checked, ends)


def test_mosquito_throws_are_covered():
    """In Mosquito+Pillbug types some throw positions need the mosquito as the thrower."""
    for gt in ("Base+MP", "Base+MLP"):
        by_mosquito = 0
        for cat in ("throw_win", "throw_save"):
            for _, gs in POSITIONS[cat, gt]:
                _, b = position(gs)
                key = winning_moves(b) if cat == "throw_win" else safe_and_losing(b)[0]
                by_mosquito += all(throwers(b, m) == {"M"} for m in key)
        assert by_mosquito >= 1, gt


# --- Wins ---------------------------------------------------------------------


def check_wins_in_one(gs: str, depths=(1, 2, 3)) -> None:
    board, b = position(gs)
    wins = winning_moves(b)
    assert wins, "the position should offer a win in 1"
    for depth in depths:
        res = search(board, depth=depth)
        assert res.move.code in wins, f"depth {depth} played {res.move_string}; wins: {names(board, wins)}"
        assert is_win_score(res.score) and res.score > 0, (depth, res.score)
        assert format_score(res.score) == "win in 1", (depth, res.score)
    assert board.game_string() == gs  # the search leaves the board alone


@pytest.mark.parametrize("gs", cases("win1"))
def test_wins_in_one(gs):
    check_wins_in_one(gs)


@pytest.mark.parametrize("gs", cases("win2"))
def test_forced_win_in_two(gs):
    board, b = position(gs)
    assert not winning_moves(b), "the position should offer no win in 1"
    for depth in (3, 4):
        res = search(board, depth=depth)
        if not forces_win_in_2(b, res.move.code):
            forcing = [m for m in moves_of(b) if forces_win_in_2(b, m)]
            pytest.fail(f"depth {depth} played {res.move_string} ({format_score(res.score)}), which does not "
                        f"force a win; moves that do: {names(board, forcing)}")
        assert is_win_score(res.score) and res.score > 0, (depth, res.score)
        assert format_score(res.score) == "win in 2", (depth, res.score)


# --- Defence ------------------------------------------------------------------


def not_lost_at_once(score: int) -> bool:
    """The score of a safe move: no loss before the opponent's second move.

    A safe move can still lose by force later (the threat extension lets
    depth 2 and 3 see the opponent's second move), so "loss in 2" is allowed.
    """
    return score > -(WIN - 3)



def check_saves(gs: str, depths=(2, 3)) -> tuple[Board, np.ndarray, list[int]]:
    """A threatened position with safe and losing moves: the search plays a safe one."""
    board, b = position(gs)
    assert not winning_moves(b), "the position should offer no win in 1"
    assert threatened(b), "the opponent should threaten a win in 1"
    safe, losing = safe_and_losing(b)
    assert safe and losing, (len(safe), len(losing))
    for depth in depths:
        res = search(board, depth=depth)
        assert res.move.code in safe, (f"depth {depth} played {res.move_string}, after which the opponent "
                                  f"wins at once; safe: {names(board, safe)}")
        assert not_lost_at_once(res.score), (depth, format_score(res.score))
    return board, b, safe


@pytest.mark.parametrize("gs", cases("block"))
def test_blocks_a_win_in_one(gs):
    check_saves(gs)


@pytest.mark.parametrize("gt", GAME_TYPES)
def test_queen_not_left_to_be_surrounded(gt):
    """Random positions, our queen with 4-5 neighbours and some move losing at
    once: depth 2 never picks a losing move while a safe one exists."""
    rows = POSITIONS["danger", gt]
    failures = []
    for _, gs in rows:
        board, b = position(gs)
        assert crowd(b, side_to_move(b)) in (4, 5), gs
        assert not winning_moves(b), gs
        res = search(board, depth=2)
        if loses_after(b, res.move.code):
            safe, losing = safe_and_losing(b)
            assert losing
            if safe:
                failures.append(f"{gs}: played {res.move_string} ({format_score(res.score)}); "
                                f"safe: {names(board, safe)[:10]}")
            elif not (is_win_score(res.score) and res.score < 0):
                failures.append(f"{gs}: every move loses, but the score is {format_score(res.score)}")
        elif not not_lost_at_once(res.score):
            failures.append(f"{gs}: played safe {res.move_string} but scored {format_score(res.score)}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("gs", cases("repeat"))
def test_repeat_positions_are_traps(gs):
    """Positions where a move back into an earlier position of the game lets the
    opponent win at once, and other moves are safe (for the next test)."""
    board, b = position(gs)
    assert not winning_moves(b)
    safe, losing = safe_and_losing(b)
    assert safe and repeating(board, b, losing)


def test_no_repetition_into_a_lost_position():
    """Hive has no repetition rule: going back to an earlier position where the
    opponent (who did not take it then) can surround our queen is no draw."""
    failures = []
    for gt in GAME_TYPES:
        for _, gs in POSITIONS["repeat", gt]:
            board, b = position(gs)
            safe, _ = safe_and_losing(b)
            for depth in (2, 3):
                res = search(board, depth=depth)
                if res.move.code not in safe:
                    failures.append(f"{gs}: depth {depth} played {res.move_string} ({format_score(res.score)}); "
                                    f"safe: {names(board, safe)[:6]}")
    assert not failures, "\n".join(failures)


# --- Pillbug throws -----------------------------------------------------------


@pytest.mark.parametrize("gs", cases("throw_win", P_TYPES))
def test_throw_that_wins(gs):
    """Every winning move is a throw (trapping the queen); the search finds one."""
    board, b = position(gs)
    moves = moves_of(b)
    wins = winning_moves(b, moves)
    assert wins and set(wins) <= throw_only(b, moves), names(board, wins)
    assert all(throwers(b, m) for m in wins)
    check_wins_in_one(gs)


@pytest.mark.parametrize("gs", cases("throw_save", P_TYPES))
def test_throw_that_saves(gs):
    """Every move that stops the opponent's win in 1 is a throw (rescuing the queen)."""
    board, b = position(gs)
    safe, _ = safe_and_losing(b)
    assert set(safe) <= throw_only(b, moves_of(b)), names(board, safe)
    assert all(throwers(b, m) for m in safe)
    check_saves(gs)


# --- Regression: "bestmove answers validmoves[0], score -500000" ---------------


def quiet(b: np.ndarray) -> bool:
    """Depth 2 can see no result here.

    No move ends the game, and no move and reply leave a queen with five or
    more neighbours (a finished game, or a leaf where the search's threat
    extension would look further). A reply that does not move a queen adds at
    most one neighbour to each queen, so replies are played only when a queen
    moves or already has four.
    """
    for m in moves_of(b):
        t = do_move(b, m)
        try:
            if int(game_result(b)) != IN_PROGRESS:
                return False
            replies = moves_of(b)
            if max(crowd(b, 0), crowd(b, 1)) >= 4 or any(
                    r != PASS and piece_of(r) % PIECES_PER_COLOUR == 0 for r in replies):
                for r in replies:
                    t2 = do_move(b, r)
                    crowded = max(crowd(b, 0), crowd(b, 1)) >= 5
                    undo_move(b, r, t2)
                    if crowded:
                        return False
        finally:
            undo_move(b, m, t)
    return True


SELF_PLAY_PLIES = 12


@pytest.mark.parametrize("gt", P_TYPES)
def test_pillbug_self_play_is_not_first_move(gt):
    """The old one-ply search treated every unfinished game as lost when pillbugs
    were in play: 11 of 12 self-play moves were validmoves[0], all scored -500000."""
    board = Board(gt)
    firsts, quiet_plies, log = 0, 0, []
    for _ in range(SELF_PLAY_PLIES):
        b = board.position_array.copy()
        moves = moves_of(b)
        res = search(board, depth=2)
        assert res.move.code in moves
        firsts += res.move.code == moves[0]
        log.append(f"{res.move_string} {format_score(res.score)}")
        if quiet(b):
            quiet_plies += 1
            assert not is_win_score(res.score), f"{board.game_string()}: {format_score(res.score)}"
        board.push(res.move)
    assert quiet_plies >= SELF_PLAY_PLIES // 2, log
    assert firsts <= SELF_PLAY_PLIES // 2, log


@pytest.mark.parametrize("gs", cases("five"))
def test_queen_with_five_neighbours(gs):
    """Our queen has five neighbours and the first legal move loses: a safe move is played."""
    board, b = position(gs)
    assert crowd(b, side_to_move(b)) == 5
    moves = moves_of(b)
    safe, losing = safe_and_losing(b, moves)
    assert moves[0] in losing and safe
    for depth in (2, 3):
        res = search(board, depth=depth)
        assert res.move.code in safe, f"depth {depth} played {res.move_string}; safe: {names(board, safe)}"
        assert not_lost_at_once(res.score), format_score(res.score)


@pytest.mark.slow
@pytest.mark.parametrize("gt", GAME_TYPES)
def test_queen_not_left_to_be_surrounded_deeper(gt):
    """The danger positions again at depths 3 and 4 (about 40 s in all)."""
    failures = []
    for _, gs in POSITIONS["danger", gt]:
        board, b = position(gs)
        for depth in (3, 4):
            res = search(board, depth=depth)
            if loses_after(b, res.move.code):
                safe, _ = safe_and_losing(b)
                if safe:
                    failures.append(f"{gs}: depth {depth} played {res.move_string} "
                                    f"({format_score(res.score)}); safe: {names(board, safe)[:10]}")
    assert not failures, "\n".join(failures)
