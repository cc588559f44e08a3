"""The text picture of a position (hiveai.analysis.render), checked against the position.

The picture is read back: every label's row and centre column give its place
on the hex grid, which must match the position piece for piece and
neighbour for neighbour, however the hive lies on the torus.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from hiveai.rules.board import Board
from hiveai.rules.bug import MAX_STACK, N_PIECES, PIECE_NAMES
from hiveai.records import read_game
from hiveai.rules.hex_grid import CELL_MASK, DIR_QR, GRID, N_CELLS, hive_coordinates, neighbour
from hiveai.rules.position import HEIGHT, POS, STACK, TOP
from hiveai.analysis.render import (
    ANSI_RESET,
    EMPTY_MARK,
    HALF_CELL,
    TERMINAL_WIDTH,
    hive_lines,
    render_board,
)

GAMES = sorted((Path(__file__).parent / "data" / "games").glob("*.pgn"))
LABEL_RE = re.compile(r"^([wb][QSBGAMLP]\d?)(?:\+(\d))?$")
ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


def game_boards(every: int = 1) -> list[Board]:
    """Positions along the shared reference games (every ``every``-th ply, and the last)."""
    boards = []
    for path in GAMES:
        record = read_game(path)
        board = Board(record.game_type)
        for i, move in enumerate(record.moves, 1):
            board.play(move)
            if i % every == 0 or i == len(record.moves):
                boards.append(board.copy())
    return boards


BOARDS = game_boards(every=3)


def parse_picture(lines: list[str]) -> tuple[dict[str, tuple[int, int, int]], set[tuple[int, int]]]:
    """Labels of a picture: {top piece: (row, centre column, height)}, and the dots' places."""
    pieces: dict[str, tuple[int, int, int]] = {}
    dots = set()
    for row, line in enumerate(lines):
        for m in re.finditer(r"\S+", line):
            centre = m.start() + len(m.group()) // 2
            if m.group() == EMPTY_MARK:
                dots.add((row, centre))
                continue
            label = LABEL_RE.match(m.group())
            assert label, f"unexpected label {m.group()!r}"
            name = label.group(1)
            assert name not in pieces, f"{name} drawn twice"
            pieces[name] = (row, centre, int(label.group(2) or 1))
    return pieces, dots


def expected_offset(d: int) -> tuple[int, int]:
    """(rows, columns) from a cell to its neighbour in direction d in the picture."""
    dq, dr = DIR_QR[d]
    return dr, (2 * dq + dr) * HALF_CELL


def check_picture(b: np.ndarray, lines: list[str]) -> set[int]:
    """Assert the picture shows position ``b`` exactly; returns the directions seen."""
    pieces, dots = parse_picture(lines)
    tops = {int(b[TOP + c]): c for c in range(N_CELLS) if b[HEIGHT + c] > 0}
    assert set(pieces) == {PIECE_NAMES[p] for p in tops}, "every top piece exactly once, nothing else"
    seen = set()
    for p, cell in tops.items():
        row, col, height = pieces[PIECE_NAMES[p]]
        assert height == b[HEIGHT + cell], f"{PIECE_NAMES[p]} stack height"
        for d in range(6):
            nb = neighbour(cell, d)
            drow, dcol = expected_offset(d)
            place = (row + drow, col + dcol)
            if b[HEIGHT + nb] > 0:
                assert pieces[PIECE_NAMES[int(b[TOP + nb])]][:2] == place, (PIECE_NAMES[p], d)
                seen.add(d)
            else:
                assert place in dots, f"empty cell next to {PIECE_NAMES[p]} (direction {d}) has no dot"
    # Nothing but the hive and its empty neighbours is drawn.
    assert len(dots) == len({neighbour(c, d) for c in tops.values() for d in range(6)} - set(tops.values()))
    return seen


def translate(b: np.ndarray, offset: int) -> np.ndarray:
    """Position ``b`` moved by ``offset`` cells on the torus (stacks kept)."""
    t = b.copy()
    t[HEIGHT:HEIGHT + N_CELLS] = 0
    t[TOP:TOP + N_CELLS] = -1
    t[STACK:STACK + N_CELLS * MAX_STACK] = -1
    for c in range(N_CELLS):
        h = int(b[HEIGHT + c])
        if h:
            n = (c + offset) & CELL_MASK
            t[HEIGHT + n] = h
            t[TOP + n] = b[TOP + c]
            t[STACK + n * MAX_STACK: STACK + n * MAX_STACK + h] = b[STACK + c * MAX_STACK: STACK + c * MAX_STACK + h]
    for p in range(N_PIECES):
        if b[POS + p] >= 0:
            t[POS + p] = (b[POS + p] + offset) & CELL_MASK
    return t


def test_the_reference_games_are_there():
    assert len(GAMES) == 3 and len(BOARDS) > 50


def test_pictures_match_the_positions_in_every_direction():
    seen = set()
    for board in BOARDS:
        seen |= check_picture(board.position_array, hive_lines(board.position_array))
    assert seen == set(range(6)), "all six directions were checked"


@pytest.mark.parametrize("move, d", [("bA1 wS1-", 2), ("bA1 wS1\\", 3), ("bA1 /wS1", 4),
                                     ("bA1 -wS1", 5), ("bA1 \\wS1", 0), ("bA1 wS1/", 1)])
def test_one_neighbour_per_direction(move, d):
    """The six UHP separators put the second piece where the docs draw it."""
    board = Board("Base")
    board.play("wS1")
    board.play(move)
    lines = hive_lines(board.position_array, empty=False)
    pieces, _ = parse_picture(lines)
    (r0, c0, _), (r1, c1, _) = pieces["wS1"], pieces["bA1"]
    assert (r1 - r0, c1 - c0) == expected_offset(d)
    check_picture(board.position_array, hive_lines(board.position_array))


def test_stacks_show_their_height_and_contents():
    record = read_game(next(p for p in GAMES if "Jewdoka" in p.name))
    board = record.to_board()
    pieces, _ = parse_picture(hive_lines(board.position_array))
    assert pieces["bB1"][2] == 3 and pieces["wM"][2] == 2
    text = " ".join(render_board(board).split())  # lines may wrap anywhere
    for stack in ("bB2+2 = bS2 bB2", "bB1+3 = bG2 wB2 bB1", "wB1+2 = bQ wB1", "wM+2 = bM wM"):
        assert stack in text
    # Covered pieces are not drawn: wB2 and bG2 lie under bB1.
    assert "wB2" not in "".join(hive_lines(board.position_array))


@pytest.mark.parametrize("shift", [(GRID // 2, 0), (0, GRID // 2), (GRID // 2, GRID // 2), (17, 15)])
def test_a_hive_across_the_torus_seam_draws_whole(shift):
    """Moved anywhere on the torus, even across its seam, the picture is the same."""
    offset = shift[0] + GRID * shift[1]
    straddled = 0
    for board in BOARDS[::4]:
        b = board.position_array
        t = translate(b, offset)
        qs = {int(t[POS + p]) % GRID for p in range(N_PIECES) if t[POS + p] >= 0}
        rs = {int(t[POS + p]) // GRID for p in range(N_PIECES) if t[POS + p] >= 0}
        straddled += (min(qs) == 0 and max(qs) == GRID - 1) or (min(rs) == 0 and max(rs) == GRID - 1)
        assert hive_lines(t) == hive_lines(b)
        check_picture(t, hive_lines(t))
    assert straddled, "some hive crossed the seam"


def test_hive_coordinates_are_relative_neighbour_steps():
    board = BOARDS[-1]
    b = board.position_array
    coords = hive_coordinates(b[POS : POS + N_PIECES])
    assert set(coords) == {int(b[POS + p]) for p in range(N_PIECES) if b[POS + p] >= 0}
    for cell, (q, r) in coords.items():
        for d, (dq, dr) in enumerate(DIR_QR):
            nb = neighbour(cell, d)
            if nb in coords:
                assert coords[nb] == (q + dq, r + dr)


def test_render_board_header_hands_and_state():
    board = Board.from_game_string("Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-")
    text = render_board(board)
    assert text.splitlines()[0] == "Base+MLP  ply 4  InProgress, White to move (turn 3)"
    assert "last move: bQ bM-" in text
    assert "White in hand: wS1 wS2 wB1 wB2 wG1 wG2 wG3 wA1 wA2 wA3 wM wL" in text
    assert "Black in hand: bS1 bS2 bB1 bB2 bG1 bG2 bG3 bA1 bA2 bA3 bL bP" in text
    empty = render_board(Board("Base"))
    assert "NotStarted, White to move" in empty and "(empty board)" in empty
    assert "bM" not in empty and "wP" not in empty, "no expansion pieces in a Base hand"


def test_finished_game_shows_the_result():
    board = game_boards(every=1000)[0]  # the first record ends WhiteWins
    assert board.is_game_over()
    assert "WhiteWins" in render_board(board).splitlines()[0]


def test_fits_80_columns_and_colour_only_decorates():
    for board in BOARDS:
        plain = render_board(board)
        assert max(len(line) for line in plain.splitlines()) <= TERMINAL_WIDTH
        coloured = render_board(board, color=True)
        if board.ply:
            assert ANSI_RESET in coloured
        assert ANSI_RE.sub("", coloured) == plain
    assert "\x1b" not in "".join(render_board(b) for b in BOARDS)


def test_wide_hive_drops_the_dots_first():
    """A hive too wide for the terminal with its empty ring is drawn without it."""
    board = Board("Base")
    for m in ["wA1", "bA1 wA1-", "wA2 -wA1", "bA2 bA1-", "wA3 -wA2", "bA3 bA2-", "wQ -wA3", "bQ bA3-"]:
        board.play(m)
    b = board.position_array
    dotted = max(map(len, hive_lines(b))) + 2  # render_board indents by 2
    assert render_board(board, width=dotted).split("\n\n")[1].count(EMPTY_MARK) > 0
    picture = render_board(board, width=dotted - 1).split("\n\n")[1]
    assert EMPTY_MARK not in picture
    assert [line.strip() for line in picture.splitlines()] == [line.strip() for line in hive_lines(b, empty=False)]
