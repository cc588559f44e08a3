"""hiveai.svg: board pictures (geometry, stacks, bugs, arrows, marks) and the evaluation graph."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest
from html_check import parse_svg

from hiveai import rules, svg
from hiveai.rules.board import Board
from hiveai.rules.bug import KIND_LETTERS, N_PIECES, PIECE_NAMES, game_type_string, piece_in_game
from hiveai.rules.hex_grid import CELL_MASK
from hiveai.analysis.render import hive_lines

NS = "{http://www.w3.org/2000/svg}"
W, H = svg.HEX_W, svg.ROW_H
# Coordinates are written with one decimal (each off by up to 0.05), so the distance of two
# points is off by up to 0.1 ...
ROUNDING = 0.11
# ... the centre of a drawn hexagon (the mean of six rounded corners) against a rounded piece
# position by a little more, and a corner reached by a path's relative steps (each rounded) by 0.3.
CENTRE_ROUNDING = 0.2
STEPS_ROUNDING = 0.3
# docs/analysis.md's mid-game example: 17 pieces on 16 cells, wM on top of bL.
MIDGAME = ("Base+MLP;InProgress;White[13];wB1;bL /wB1;wQ wB1-;bQ -bL;wA1 \\wB1;bM bQ\\;wA1 bM\\;bA1 /bQ;"
           "wA2 wA1-;bA1 wA2\\;wM \\wQ;bP /bQ;wA3 -wM;bA2 -bP;wA3 -bA2;bA3 bA2\\;wM wB1;bB1 -bQ;wM bL;"
           "bS1 /bA1;wP wQ\\;bS1 bP\\;wB2 wB1\\;bQ bB1/")


def pieces(root) -> dict[str, tuple[float, float, dict]]:
    """Board pieces (not those in hand) by name: centre and attributes."""
    out = {}
    for g in root.iter(NS + "g"):
        if g.get("class") == "piece" and not g.get("data-hand"):
            out[g.get("data-piece")] = (float(g.get("data-x")), float(g.get("data-y")), g.attrib)
    return out


def hand(root) -> dict[str, tuple[float, float]]:
    return {g.get("data-piece"): (float(g.get("data-x")), float(g.get("data-y")))
            for g in root.iter(NS + "g") if g.get("data-hand")}


# The six UHP directions as MoveString positions around wS1, and where the
# neighbour lies in the picture: (half cells right, rows down).
DIRECTIONS = {"wS1-": (2, 0), "-wS1": (-2, 0), "wS1/": (1, -1), "/wS1": (-1, 1), "wS1\\": (1, 1), "\\wS1": (-1, -1)}


@pytest.mark.parametrize("position", DIRECTIONS)
def test_each_uhp_direction_lands_on_its_neighbour_in_the_picture(position):
    board = Board.parse(f"Base;InProgress;White[2];wS1;bS1 {position}")
    root = parse_svg(svg.board(board))
    (x0, y0, _), (x1, y1, _) = pieces(root)["wS1"], pieces(root)["bS1"]
    half, rows = DIRECTIONS[position]
    assert (x1 - x0, y1 - y0) == pytest.approx((half * W / 2, rows * H), abs=ROUNDING)
    # The text picture of hiveai analyse agrees: the same row and side.
    lines = hive_lines(board.position_array, empty=False)
    where = {name: (row, line.index(name)) for row, line in enumerate(lines) for name in ("wS1", "bS1")
             if name in line}
    drow, dcol = where["bS1"][0] - where["wS1"][0], where["bS1"][1] - where["wS1"][1]
    assert drow == rows and math.copysign(1, dcol) == math.copysign(1, half)


def test_midgame_layout_matches_the_text_picture_cell_by_cell():
    board = Board.parse(MIDGAME)
    root = parse_svg(svg.board(board))
    drawn = pieces(root)
    assert len(drawn) == 16  # 17 pieces, bL under wM
    ys = sorted({round(y, 1) for _, y, _ in drawn.values()})
    text = hive_lines(board.position_array, empty=False)
    for name, (x, y, _) in drawn.items():
        row = ys.index(round(y, 1))
        assert name in [label.split("+")[0] for label in text[row].split()], (name, text[row])
    # Left to right within a row, as in the text.
    for row, line in enumerate(text):
        in_row = sorted((x, n) for n, (x, y, _) in drawn.items() if ys.index(round(y, 1)) == row)
        assert [n for _, n in in_row] == [label.split("+")[0] for label in line.split()]


def test_stack_shows_height_and_what_is_underneath():
    root = parse_svg(svg.board(Board.parse(MIDGAME)))
    _, _, attrs = pieces(root)["wM"]
    assert attrs["data-height"] == "2"
    g = next(g for g in root.iter(NS + "g") if g.get("data-piece") == "wM" and not g.get("data-hand"))
    assert "underneath" in g.find(NS + "title").text and "bL" in g.find(NS + "title").text
    assert [t.text for t in g.iter(NS + "text") if t.get("class") == "height"] == ["2"]
    assert "bL" not in pieces(root)  # covered: only the top piece is drawn
    others = [a for _, _, a in pieces(root).values() if a["data-piece"] != "wM"]
    assert all(a["data-height"] == "1" for a in others)


@pytest.mark.parametrize("game_type", range(8))
def test_every_bug_of_every_expansion_has_its_glyph_and_colour(game_type):
    board = Board(game_type_string(game_type))
    text = svg.board(board)
    root = parse_svg(text)
    in_game = {PIECE_NAMES[p] for p in range(N_PIECES) if piece_in_game(p, game_type)}
    assert set(hand(root)) == in_game
    symbols = {s.get("id"): s for s in root.iter(NS + "symbol")}
    letters = {name[1] for name in in_game}
    assert set(symbols) == {svg.GLYPH_ID + k for k in letters}
    for k in letters:
        assert svg.BUG_COLOURS[k] in ET_tostring(symbols[svg.GLYPH_ID + k])
    # Each piece is drawn once in the defs, with its bug's glyph; the pieces in hand use those drawings.
    drawings = {g.get("id"): g for g in root.iter(NS + "g") if g.get("id")}
    assert set(drawings) == {svg.PIECE_ID + name for name in in_game}
    for name in in_game:
        assert drawings[svg.PIECE_ID + name].find(NS + "use").get("href") == "#" + svg.GLYPH_ID + name[1]
    for g in root.iter(NS + "g"):
        if g.get("data-hand"):
            assert g.find(NS + "use").get("href") == "#" + svg.PIECE_ID + g.get("data-piece")


def ET_tostring(element) -> str:
    import xml.etree.ElementTree as ET

    return ET.tostring(element, encoding="unicode")


def test_glyphs_and_colours_cover_every_bug_and_the_dragonfly_hook():
    for letter in KIND_LETTERS + "D":
        assert letter in svg.GLYPHS and letter in svg.BUG_COLOURS
        assert svg.BUG_COLOURS[letter] in svg.GLYPHS[letter]
    assert len(set(svg.GLYPHS.values())) == len(svg.GLYPHS)
    assert len(set(svg.BUG_COLOURS.values())) == len(svg.BUG_COLOURS)
    parse_svg(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">{svg.glyph_defs()}</svg>')


def test_bugs_on_the_board_use_their_glyphs():
    board = Board.parse(MIDGAME)
    root = parse_svg(svg.board(board))
    for g in root.iter(NS + "g"):
        if g.get("class") == "piece":
            assert g.find(NS + "use").get("href") == "#" + svg.PIECE_ID + g.get("data-piece")


def test_jupyter_hook_is_the_board_picture():
    """``_repr_svg_`` is IPython's name for a picture: the drawer ``import hiveai`` registers with
    the rules layer, which imports no front end (None without a drawer: Jupyter shows the repr)."""
    board = Board.parse(MIDGAME)
    assert board._repr_svg_() == svg.board(board)
    parse_svg(board._repr_svg_())
    try:
        rules.set_board_drawer(None)
        assert board._repr_svg_() is None
        rules.set_board_drawer(lambda b: f"<svg>{b.ply}</svg>")
        assert board._repr_svg_() == f"<svg>{board.ply}</svg>"
    finally:
        rules.set_board_drawer(svg.board)


@pytest.mark.integration  # a fresh interpreter
def test_a_board_is_a_picture_after_any_import_of_hiveai_and_loads_the_pictures_at_the_first():
    code = ("import sys; from hiveai.rules.board import Board; b = Board('Base'); "
            "print('hiveai.svg' in sys.modules, b._repr_svg_()[:4], 'hiveai.svg' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "<svg", "True"], out.stderr


def arrow_of(root, move: str):
    g = next(g for g in root.iter(NS + "g") if g.get("class") == "arrow" and g.get("data-move") == move)
    line = g.find(NS + "line")
    tip = g.find(NS + "polygon").get("points").split()[0].split(",")
    return (float(line.get("x1")), float(line.get("y1"))), (float(tip[0]), float(tip[1])), line.get("stroke")


def test_placement_arrow_starts_at_the_piece_in_hand():
    board = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
    move = board.parse_move("wQ -wS1")
    root = parse_svg(svg.board(board, arrows=[svg.Arrow(move, "#123456")]))
    tail, tip, colour = arrow_of(root, "wQ -wS1")
    assert tail == pytest.approx(hand(root)["wQ"], abs=ROUNDING)
    x, y, _ = pieces(root)["wS1"]
    assert math.dist(tip, (x - W, y)) < svg.R / 2  # ends on the cell west of wS1
    assert colour == "#123456"
    # Black's hand is above the board, White's below.
    assert hand(root)["wQ"][1] > y > hand(root)["bQ"][1]


def test_move_arrow_goes_from_cell_to_cell_and_accepts_movestrings():
    board = Board.parse("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    assert board.parse_move("wQ \\wS1") in board.legal_moves
    root = parse_svg(svg.board(board, arrows=["wQ \\wS1"]))
    tail, tip, colour = arrow_of(root, "wQ \\wS1")
    drawn = pieces(root)
    assert tail == pytest.approx(drawn["wQ"][:2], abs=ROUNDING)
    x, y, _ = drawn["wS1"]
    assert math.dist(tip, (x - W / 2, y - H)) < svg.R / 2
    assert colour == svg.DEFAULT_COLORS["arrow"]
    with pytest.raises(Exception, match="wQ"):
        svg.board(board, arrows=["wQ bQ-"])  # not legal: the queen cannot get there


def test_pass_draws_no_arrow_and_no_hands_draws_a_ghost():
    board = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
    root = parse_svg(svg.board(board, arrows=["wG1 -wS1"], hands=False))
    assert not hand(root)
    ghost = next(g for g in root.iter(NS + "g") if g.get("class") == "arrow")
    assert ghost.find(NS + "g").get("data-piece") == "wG1"


def test_last_move_marks_destination_and_origin():
    board = Board.parse("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wQ \\wS1")
    root = parse_svg(svg.board(board))
    marks = {p.get("class"): p for p in root.iter(NS + "polygon") if p.get("class", "").startswith("lastmove")}
    assert set(marks) == {"lastmove", "lastmove-from"}

    def centre(polygon) -> tuple[float, float]:
        pts = [tuple(map(float, p.split(","))) for p in polygon.get("points").split()]
        return sum(x for x, _ in pts) / 6, sum(y for _, y in pts) / 6

    x, y, _ = pieces(root)["wS1"]
    assert centre(marks["lastmove"]) == pytest.approx(pieces(root)["wQ"][:2], abs=CENTRE_ROUNDING)
    assert centre(marks["lastmove-from"]) == pytest.approx((x - W, y), abs=CENTRE_ROUNDING)
    placed = parse_svg(svg.board(Board.parse("Base;InProgress;Black[1];wS1")))
    assert [p.get("class") for p in placed.iter(NS + "polygon") if p.get("class")] == ["lastmove"]
    assert not [p for p in parse_svg(svg.board(board, lastmove=False)).iter(NS + "polygon") if p.get("class")]


def test_highlight_placements_and_coordinates():
    board = Board.parse(MIDGAME)
    root = parse_svg(svg.board(board, highlight=["wQ", "bA1"], placements=True, coordinates=True))
    assert len([p for p in root.iter(NS + "polygon") if p.get("class") == "highlight"]) == 2
    spots = [c for c in root.iter(NS + "circle") if c.get("class") == "placement"]
    cells = {m.code & CELL_MASK for m in board.legal_moves if m.piece == "wS1"}
    assert len(spots) == len(cells) > 0  # wS1 is in hand: its placements are all the placement cells
    # Each empty cell is named as a MoveString position; placing there by that name lands on that spot.
    drawn = pieces(root)
    labels = [(t.text, float(t.get("x")), float(t.get("y")) - 3) for t in root.iter(NS + "text")
              if t.get("class") == "coordinate"]
    assert len(labels) > 10
    for label, x, y in labels:
        ref = re.sub(r"[-/\\]", "", label)
        rx, ry, _ = drawn[ref]
        half, rows = {"-": (2, 0), "/": (1, -1), "\\": (1, 1)}[label[-1]] if label[-1] in "-/\\" else \
            {"-": (-2, 0), "/": (-1, 1), "\\": (-1, -1)}[label[0]]
        assert (x - rx, y - ry) == pytest.approx((half * W / 2, rows * H), abs=ROUNDING), label
    with pytest.raises(ValueError, match="not a piece on the board"):
        svg.board(board, highlight=["wS2"])


def test_empty_board_size_and_colors():
    text = svg.board(Board("Base"), size=300, colors={"white": "#abcdef", "background": ""})
    root = parse_svg(text)
    assert root.get("width") == "300" and "#abcdef" in text
    assert not [r for r in root.iter(NS + "rect")]
    first = parse_svg(svg.board(Board("Base"), arrows=["wG1"]))
    _, tip, _ = arrow_of(first, "wG1")
    assert tip[1] < hand(first)["wG1"][1]  # up from White's hand onto the empty board


def test_board_without_defs_refers_to_page_symbols():
    text = svg.board(Board.parse(MIDGAME), defs=False)
    assert "<symbol" not in text and "<defs" not in text and "#" + svg.PIECE_ID + "wQ" in text
    # Another colour scheme gets its own ids, so both can share a page.
    other = svg.board(Board.parse(MIDGAME), colors={"black": "#400000"})
    ids = {g.get("id") for g in parse_svg(other).iter(NS + "g") if g.get("id")}
    assert svg.PIECE_ID + "wQ" not in ids and len(ids) == N_PIECES and all(i.startswith(svg.PIECE_ID) for i in ids)


def path_vertices(d: str) -> list[tuple[float, float]]:
    """Corners of a path made of M, l, v and z commands (what the hexagons use)."""
    points: list[tuple[float, float]] = []
    for cmd, args in re.findall(r"([MlvzZ])([^MlvzZ]*)", d):
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", args)]
        if cmd == "M":
            points.append((nums[0], nums[1]))
        elif cmd == "l":
            points.append((points[-1][0] + nums[0], points[-1][1] + nums[1]))
        elif cmd == "v":
            points.append((points[-1][0], points[-1][1] + nums[0]))
    return points


def test_tiles_and_empty_cells_are_regular_hexagons():
    root = parse_svg(svg.board(Board.parse(MIDGAME)))
    tile = next(g for g in root.iter(NS + "g") if g.get("id") == svg.PIECE_ID + "wQ").find(NS + "path")
    corners = path_vertices(tile.get("d"))
    assert len(corners) == 6
    for (x, y), angle in zip(corners, range(-30, 330, 60)):  # pointy top: corners at -30, 30, ... degrees
        assert (x, y) == pytest.approx(((svg.R - 1.2) * math.cos(math.radians(angle)),
                                        (svg.R - 1.2) * math.sin(math.radians(angle))), abs=STEPS_ROUNDING)
    ring = next(p for p in root.iter(NS + "path") if p.get("class") == "empty").get("d")
    cells = ring.split("M")[1:]
    assert cells and all(len(path_vertices("M" + c)) == 6 for c in cells)
