r"""Pictures of Hive positions as SVG, in the spirit of python-chess's ``chess.svg``.

:func:`board` draws a position: one hexagon per occupied cell (its top
piece), the pieces in hand in a row above (Black) and below (White), the
last move, arrows for moves (a placement's arrow starts at the piece in
hand), highlighted cells and, optionally, the cells where the side to move
may place. It returns SVG text with a ``viewBox`` and nothing outside the
file (no images, fonts or scripts), so it scales cleanly and can be inlined
in HTML. (The review page's evaluation graph is :func:`hiveai.analysis.pages.eval_graph`.)

The board is drawn pointy-top with horizontal rows, each shifted half a cell
from the one above, exactly as MzingaViewer and the text picture of
:mod:`hiveai.analysis.render` draw it, so the six UHP directions read as drawn::

      \R    R/          NW  NE
    -R    R    R-      W    R    E
      /R    R\          SW  SE

Each bug is a small drawing of our own in the colour its pieces have in the
current boxed edition (queen gold, spider brown, beetle purple, grasshopper
green, ant blue, mosquito grey, ladybug red, pillbug cyan), on a light tile
for White and a dark one for Black. Glyphs and colours are keyed by the
bug's letter (:data:`BUG_COLOURS`, :data:`GLYPHS`), so a new bug needs one
entry in each; the Critters variant's Dragonfly (``D``) has both already.

>>> from hiveai.rules.board import Board
>>> picture = board(Board.parse("Base;InProgress;Black[1];wG1"))
>>> picture.startswith("<svg") and 'viewBox="' in picture and 'data-piece="wG1"' in picture
True
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence
from xml.sax.saxutils import escape, quoteattr

from hiveai.rules.bug import (
    CRITTERS,
    DRAGONFLY_INDEX,
    KIND_LETTERS,
    N_PIECES,
    PIECES_PER_COLOUR,
    colour_of,
    kind_of,
    parse_piece,
    piece_in_game,
    piece_names,
)
from hiveai.rules.hex_grid import CELL_MASK, DIR_QR, hive_coordinates, neighbour
from hiveai.rules.position import GAME_TYPE, HEIGHT, MOVE_PIECE_SHIFT, PASS, POS, TOP, undo_source
from hiveai.analysis.render import stack_of

if TYPE_CHECKING:
    from hiveai.rules.board import Board, Move

__all__ = ["Arrow", "BUG_COLOURS", "DEFAULT_COLORS", "GLYPHS", "board", "cell_centres", "glyph_defs"]

# Hexagon size in viewBox units: centre to corner. Everything else scales from it.
R = 30.0
HEX_W = math.sqrt(3) * R  # a pointy-top hexagon is sqrt(3) R wide ...
ROW_H = 1.5 * R  # ... and rows are 3/4 of its 2 R height apart
# Pieces in hand are drawn at this share of a board cell, in a row per side.
HAND_SCALE = 0.6
MARGIN = 8.0
# The bug glyph's box, as a share of the hexagon's width (the rest is tile).
GLYPH_SHARE = 0.78
SVG_NS = "http://www.w3.org/2000/svg"
# ids of the glyph symbols are this plus the bug letter (``hiveai-bug-Q``).
GLYPH_ID = "hiveai-bug-"
# ids of the pieces' drawings are this plus the piece name (``hiveai-piece-wQ``), plus a colour scheme's suffix.
PIECE_ID = "hiveai-piece-"

# Bug colours of the current boxed edition of Hive (and its expansions), by letter.
# ``D``: the Critters variant's Dragonfly, for when hiveai.rules.bug gains it.
BUG_COLOURS = {
    "Q": "#e0a800",  # queen bee: gold
    "S": "#8b5a2b",  # spider: brown
    "B": "#7d3ca8",  # beetle: purple
    "G": "#3c9a3c",  # grasshopper: green
    "A": "#2a6fdb",  # soldier ant: blue
    "M": "#8c8c8c",  # mosquito: grey
    "L": "#d62828",  # ladybug: red
    "P": "#1fb5c9",  # pillbug: cyan
    "D": "#3949ab",  # dragonfly: indigo
}

# Everything else the picture paints; ``board(colors=...)`` overrides any of these.
DEFAULT_COLORS = {
    "background": "#fbfaf6",
    "white": "#f3eee0",  # White's tiles
    "white_edge": "#8d8471",
    "white_text": "#3b362c",
    "black": "#2f2c29",  # Black's tiles
    "black_edge": "#0b0a09",
    "black_text": "#ece6d6",
    "empty": "#ddd8cb",  # outline of the empty cells next to the hive
    "lastmove": "#f08c00",
    "arrow": "#1e6fd9",  # arrows given without a colour
    "highlight": "#ffd43b",
    "placement": "#2f9e44",
    "badge": "#c92a2a",  # a stack's height
}


def _ellipse(cx: float, cy: float, rx: float, ry: float, fill: str, extra: str = "") -> str:
    return f'<ellipse cx="{cx:g}" cy="{cy:g}" rx="{rx:g}" ry="{ry:g}" fill="{fill}"{extra}/>'


def _circle(cx: float, cy: float, r: float, fill: str, extra: str = "") -> str:
    return f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{fill}"{extra}/>'


def _legs(pairs: Sequence[str], colour: str, width: float) -> str:
    """Paths for the right-hand legs, mirrored to the left (x -> -x)."""
    mirrored = []
    for d in pairs:
        parts = d.split()
        mirrored.append(" ".join(p if p[0].isalpha() else _mirror(p) for p in parts))
    d = " ".join([*pairs, *mirrored])
    return (f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width:g}" '
            'stroke-linecap="round" stroke-linejoin="round"/>')


def _mirror(point: str) -> str:
    x, y = point.split(",")
    return f"{-float(x):g},{y}"


def _glyphs() -> dict[str, str]:
    """Each bug drawn in a -50..50 box, head up, in its own colour.

    Simple shapes on purpose: they must read at 30 px on light and dark tiles.
    A thin dark outline keeps the gold and cyan apart from the light tile.
    """
    c = BUG_COLOURS
    ink = "#1f1b16"
    line = ' stroke="#1f1b16" stroke-width="1.5" stroke-opacity=".6"'
    wing = ' fill-opacity=".75" stroke="#1f1b16" stroke-width="1.2" stroke-opacity=".5"'
    return {
        # A bee: wings, a striped body and a dark head.
        "Q": (_ellipse(-15, -6, 14, 8, "#ffffff", wing + ' transform="rotate(-25 -15 -6)"')
              + _ellipse(15, -6, 14, 8, "#ffffff", wing + ' transform="rotate(25 15 -6)"')
              + _ellipse(0, 8, 14, 22, c["Q"], line)
              + f'<path d="M-13 2h26M-12.5 13h25M-9 23h18" stroke="{ink}" stroke-width="4.5"/>'
              + _circle(0, -20, 8, ink)),
        # Eight bent legs round a round body and a small head.
        "S": (_legs(["M4,0 L22,-16 L30,-6", "M5,4 L26,-2 L34,8", "M5,8 L24,16 L30,28", "M3,12 L16,26 L18,40"],
                    c["S"], 4.5)
              + _circle(0, 10, 14, c["S"], line) + _circle(0, -12, 9, c["S"], line)),
        # A domed shell split down the middle, a head and six short legs.
        "B": (_legs(["M10,-6 L26,-14", "M12,6 L28,6", "M10,18 L24,30"], c["B"], 5)
              + _ellipse(0, 8, 19, 24, c["B"], line) + f'<path d="M0 -14V31" stroke="{ink}" stroke-width="3"/>'
              + _circle(0, -19, 9, c["B"], line)),
        # A long body, the big folded hind legs and long antennae.
        "G": (_legs(["M-1,-26 L10,-42", "M6,-2 L20,-22 L24,34", "M5,-12 L18,-8"], c["G"], 5)
              + _ellipse(0, 6, 9, 28, c["G"], line) + _circle(0, -24, 7, c["G"], line)),
        # Head, thorax and abdomen, six legs and antennae.
        "A": (_legs(["M2,-28 L10,-40", "M4,-10 L22,-22", "M5,-6 L26,-4", "M4,-2 L22,14"], c["A"], 4)
              + _circle(0, -24, 8, c["A"], line) + _ellipse(0, -6, 6, 11, c["A"], line)
              + _ellipse(0, 20, 12, 16, c["A"], line)),
        # Thin body and legs, two long wings and the proboscis.
        "M": (_legs(["M3,-6 L24,-24 L30,-30", "M3,0 L28,4 L38,10", "M3,6 L20,26 L24,40"], c["M"], 2.5)
              + _ellipse(-13, 10, 7, 24, "#f1f1f1", wing + ' transform="rotate(30 -13 10)"')
              + _ellipse(13, 10, 7, 24, "#f1f1f1", wing + ' transform="rotate(-30 13 10)"')
              + _ellipse(0, 8, 6, 22, c["M"], line) + _circle(0, -18, 7, c["M"], line)
              + f'<path d="M0 -24V-44" stroke="{c["M"]}" stroke-width="2.5" stroke-linecap="round"/>'),
        # A round red shell with black spots and a black head.
        "L": (_circle(0, -21, 10, ink) + _circle(0, 4, 24, c["L"], line)
              + f'<path d="M0 -20V28" stroke="{ink}" stroke-width="2.5"/>'
              + "".join(_circle(x, y, r, ink) for x, y, r in
                        ((-11, -5, 5), (11, -5, 5), (-14, 11, 4.5), (14, 11, 4.5), (-7, 22, 4), (7, 22, 4)))),
        # An oval of overlapping plates, with short antennae.
        "P": (_legs(["M6,-26 L14,-38"], c["P"], 3.5) + _ellipse(0, 4, 20, 29, c["P"], line)
              + f'<path d="M-16 -14Q0 -8 16 -14M-19.5 -2Q0 4 19.5 -2M-19 10Q0 16 19 10M-15 22Q0 28 15 22" '
                f'fill="none" stroke="{ink}" stroke-width="2.5" stroke-opacity=".7"/>'),
        # Four long wings across a long thin body.
        "D": (_ellipse(-22, -12, 22, 6, "#e9ecf8", wing + ' transform="rotate(-10 -22 -12)"')
              + _ellipse(22, -12, 22, 6, "#e9ecf8", wing + ' transform="rotate(10 22 -12)"')
              + _ellipse(-20, 2, 20, 5.5, "#e9ecf8", wing + ' transform="rotate(15 -20 2)"')
              + _ellipse(20, 2, 20, 5.5, "#e9ecf8", wing + ' transform="rotate(-15 20 2)"')
              + _ellipse(0, 12, 4.5, 30, c["D"], line) + _circle(0, -24, 7.5, c["D"], line)),
    }


GLYPHS = _glyphs()
"""SVG of each bug (by letter), head up in a -50..50 box; see :func:`glyph_defs`."""


def _scheme(colors: dict[str, str]) -> str:
    """Suffix of the piece ids for a colour scheme: "" for the default one, else a short hash,
    so boards in different colours can share one HTML page without their ids clashing."""
    tiles = tuple(colors[k] for k in _TILE_KEYS)
    if tiles == tuple(DEFAULT_COLORS[k] for k in _TILE_KEYS):
        return ""
    return "-" + hashlib.sha1(repr(tiles).encode()).hexdigest()[:6]


_TILE_KEYS = ("white", "white_edge", "white_text", "black", "black_edge", "black_text")


def glyph_defs(pieces: Iterable[int] = range(N_PIECES), colors: dict[str, str] | None = None,
               game_type: int | None = None) -> str:
    """``<defs>``: a ``<symbol>`` per bug drawn, and a ``<g>`` per piece (tile, glyph, name) that boards ``<use>``.

    A page showing many boards puts this once in the document and draws its
    boards with ``board(..., defs=False)`` (and the same ``colors``), so ids
    are unique in the page. ``game_type`` None: the pieces of every game type
    (Critters' Dragonfly too, which shares the Mosquito's piece id).
    """
    colors = {**DEFAULT_COLORS, **(colors or {})}
    pieces = list(pieces)
    if game_type is None:
        drawn = [(p, 0) for p in pieces] + [(p, CRITTERS) for p in pieces if p % PIECES_PER_COLOUR == DRAGONFLY_INDEX]
    else:
        drawn = [(p, game_type) for p in pieces]
    letters = sorted({_letter(p, gt) for p, gt in drawn})
    symbols = "".join(f'<symbol id="{GLYPH_ID}{k}" viewBox="-50 -50 100 100">{GLYPHS[k]}</symbol>'
                      for k in letters)
    return f"<defs>{symbols}{''.join(_piece_def(p, colors, gt) for p, gt in drawn)}</defs>"


def _piece_def(piece: int, colors: dict[str, str], game_type: int = 0) -> str:
    """One piece centred on (0, 0): its tile in its side's colours, its bug's glyph and its short name."""
    side = "white" if colour_of(piece) == 0 else "black"
    name = piece_names(game_type)[piece]
    size = HEX_W * GLYPH_SHARE
    return (f'<g id="{PIECE_ID}{name}{_scheme(colors)}" stroke-width="1.5" stroke-linejoin="round" '
            'font-family="sans-serif" font-size="9" text-anchor="middle">'
            f'<path d="{_hex_path(0, 0, _TILE_RADIUS, _hex_steps(_TILE_RADIUS))}" fill="{colors[side]}" '
            f'stroke="{colors[side + "_edge"]}"/>'
            f'<use href="#{GLYPH_ID}{_letter(piece, game_type)}" x="{-size / 2:.1f}" y="{-size / 2 - 3:.1f}" '
            f'width="{size:.1f}" height="{size:.1f}"/>'
            f'<text x="{R * 0.42:.1f}" y="{R * 0.7:.1f}" fill="{colors[side + "_text"]}">{name[1:]}</text></g>')


@dataclass(frozen=True)
class Arrow:
    """A move to draw as an arrow, in a colour (python-chess's ``chess.svg.Arrow``).

    ``move``: a :class:`~hiveai.rules.board.Move` or a MoveString legal on the board
    drawn. A placement's arrow starts at the piece in its hand row.
    """

    move: Move | str
    color: str = DEFAULT_COLORS["arrow"]


def _letter(piece: int, game_type: int = 0) -> str:
    return KIND_LETTERS[kind_of(piece, game_type)]


def _xy(qr: tuple[int, int]) -> tuple[float, float]:
    """Centre of axial cell ``qr``: east is +x, rows go down (+y) by half a cell's shift."""
    q, r = qr
    return HEX_W * (q + r / 2), ROW_H * r


_HEX = [(math.cos(math.radians(60 * i - 30)), math.sin(math.radians(60 * i - 30))) for i in range(6)]


def _hex_points(x: float, y: float, radius: float) -> str:
    return " ".join(f"{x + radius * cx:.1f},{y + radius * cy:.1f}" for cx, cy in _HEX)


def _hex_steps(radius: float) -> str:
    """Relative path steps round a hexagon from its first corner (short text for many cells)."""
    pts = [(radius * cx, radius * cy) for cx, cy in _HEX]
    steps = [(bx - ax, by - ay) for (ax, ay), (bx, by) in zip(pts, pts[1:])]  # five edges; "z" draws the sixth
    return "".join(f"v{dy:.1f}" if abs(dx) < 0.05 else f"l{dx:.1f},{dy:.1f}" for dx, dy in steps) + "z"


def _hex_path(x: float, y: float, radius: float, steps: str) -> str:
    """Path data of one hexagon of ``radius`` centred on (x, y); ``steps`` from :func:`_hex_steps`."""
    cx, cy = _HEX[0]
    return f"M{x + radius * cx:.1f},{y + radius * cy:.1f}{steps}"


_TILE_RADIUS = R - 1.2  # a piece's tile, a hair smaller than its cell so neighbours' edges do not touch
_RING_RADIUS = R - 1.5
_RING_STEPS = _hex_steps(_RING_RADIUS)


class _Layout:
    """Where every cell and piece in hand goes in the picture."""

    def __init__(self, board: Board, hands: bool) -> None:
        self.b = b = board.position_array
        self.coords = hive_coordinates(b[POS : POS + N_PIECES])
        self.ring: set[tuple[int, int]] = set()
        for q, r in self.coords.values():
            self.ring.update((q + dq, r + dr) for dq, dr in DIR_QR)
        self.ring.difference_update(self.coords.values())
        self.hands = {c: [p for p in range(c * PIECES_PER_COLOUR, (c + 1) * PIECES_PER_COLOUR)
                          if piece_in_game(p, board.game_type) and int(b[POS + p]) < 0] for c in (0, 1)}
        cells = [*self.coords.values(), *self.ring] or [(0, 0)]
        xs = [_xy(qr)[0] for qr in cells]
        ys = [_xy(qr)[1] for qr in cells]
        board_w = max(xs) - min(xs) + HEX_W
        hand_step = HEX_W * HAND_SCALE
        hand_h = 2 * R * HAND_SCALE + MARGIN if hands else 0.0
        hand_w = max(len(h) for h in self.hands.values()) * hand_step if hands else 0.0
        self.width = max(board_w, hand_w) + 2 * MARGIN
        self.height = max(ys) - min(ys) + 2 * R + 2 * hand_h + 2 * MARGIN
        # Shift so the board is centred and its top row sits below Black's hand row.
        self.dx = MARGIN + (self.width - 2 * MARGIN - board_w) / 2 - min(xs) + HEX_W / 2
        self.dy = MARGIN + hand_h + R - min(ys)
        self.hand_xy: dict[int, tuple[float, float]] = {}
        if hands:
            rows = {1: MARGIN + R * HAND_SCALE, 0: self.height - MARGIN - R * HAND_SCALE}
            for colour, pieces in self.hands.items():
                for i, p in enumerate(pieces):
                    self.hand_xy[p] = (MARGIN + hand_step * (i + 0.5), rows[colour])

    def cell_qr(self, cell: int) -> tuple[int, int]:
        """Axial coordinates of any cell on or next to the hive (the empty board: its centre)."""
        if cell in self.coords:
            return self.coords[cell]
        for d, (dq, dr) in enumerate(DIR_QR):
            nb = neighbour(cell, d)
            if nb in self.coords:
                q, r = self.coords[nb]
                return q - dq, r - dr
        if not self.coords:
            return 0, 0
        raise ValueError(f"cell {cell} is not on or next to the hive")

    def cell_xy(self, cell: int) -> tuple[float, float]:
        x, y = _xy(self.cell_qr(cell))
        return x + self.dx, y + self.dy

    def qr_xy(self, qr: tuple[int, int]) -> tuple[float, float]:
        x, y = _xy(qr)
        return x + self.dx, y + self.dy


def _piece(piece: int, x: float, y: float, scale: float, colors: dict[str, str], title: str,
           height: int = 1, extra: str = "", game_type: int = 0) -> str:
    """One piece: its drawing from the defs, the stack height badge, a tooltip."""
    name = piece_names(game_type)[piece]
    place = f'x="{x:.1f}" y="{y:.1f}"' if scale == 1 else f'transform="translate({x:.1f} {y:.1f}) scale({scale:g})"'
    out = [f'<g class="piece" data-piece="{name}" data-x="{x:.1f}" data-y="{y:.1f}"{extra}>',
           f"<title>{escape(title)}</title>",
           f'<use href="#{PIECE_ID}{name}{_scheme(colors)}" {place}/>']
    if height > 1:
        bx, by = x + R * 0.55, y - R * 0.55
        out.append(_circle(round(bx, 1), round(by, 1), 8, colors["badge"], ' stroke="#fff" stroke-width="1.5"'))
        out.append(f'<text class="height" x="{bx:.1f}" y="{by + 3.5:.1f}" font-size="10" font-weight="bold" '
                   f'font-family="sans-serif" text-anchor="middle" fill="#fff">{height}</text>')
    out.append("</g>")
    return "".join(out)


def _stack_title(b, cell: int) -> str:
    stack = [piece_names(int(b[GAME_TYPE]))[p] for p in stack_of(b, cell)]
    if len(stack) == 1:
        return stack[0]
    return (f"{stack[-1]} on top of a stack of {len(stack)}; underneath, from the top: "
            f"{', '.join(reversed(stack[:-1]))}")


def _arrow(x1: float, y1: float, x2: float, y2: float, color: str, move: str) -> str:
    """An arrow from (x1, y1) to just short of (x2, y2), with a filled head (no marker ids needed)."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    tip_x, tip_y = x2 - ux * R * 0.3, y2 - uy * R * 0.3
    base_x, base_y = tip_x - ux * 14, tip_y - uy * 14
    px, py = -uy * 8, ux * 8
    return (f'<g class="arrow" data-move={quoteattr(move)} opacity=".85"><title>{escape(move)}</title>'
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{base_x:.1f}" y2="{base_y:.1f}" stroke="{color}" '
            'stroke-width="6" stroke-linecap="round"/>'
            f'<polygon points="{tip_x:.1f},{tip_y:.1f} {base_x + px:.1f},{base_y + py:.1f} '
            f'{base_x - px:.1f},{base_y - py:.1f}" fill="{color}"/></g>')


def _move_code(board: Board, move: Move | str) -> tuple[int, str]:
    if isinstance(move, str):
        move = board.parse_move(move)
    return move.code, str(move)


def _cells(board: Board, b, items: Iterable[int | str]) -> list[int]:
    """Cells named by cell index or by the name of a piece on the board."""
    cells = []
    for item in items:
        if isinstance(item, str):
            piece = parse_piece(item, board.game_type)
            if piece is None or not piece_in_game(piece, board.game_type) or int(b[POS + piece]) < 0:
                raise ValueError(f"{item!r} is not a piece on the board")
            cells.append(int(b[POS + piece]))
        else:
            cells.append(int(item) & CELL_MASK)
    return cells


def board(
    board: Board,
    *,
    size: int | None = None,
    lastmove: bool = True,
    arrows: Iterable[Arrow | Move | str] = (),
    highlight: Iterable[int | str] = (),
    placements: bool = False,
    coordinates: bool = False,
    hands: bool = True,
    colors: dict[str, str] | None = None,
    defs: bool = True,
) -> str:
    """An SVG picture of ``board``.

    ``size``: width in pixels (height follows), else one pixel per unit of the
    viewBox (a cell is about 52 wide). ``lastmove`` marks the last move's
    cell (and the cell it came from, dashed). ``arrows``: moves legal on
    ``board`` (:class:`Arrow`, :class:`~hiveai.rules.board.Move` or MoveString) drawn
    as arrows, a placement from its piece in the hand rows. ``highlight``:
    cells to tint, named by a piece on them (``"wQ"``) or a cell index.
    ``placements`` rings the empty cells where the side to move may place;
    ``coordinates`` names every empty cell next to the hive as a MoveString
    position (``wQ-``). ``hands``: draw the pieces in hand (Black above,
    White below). ``colors`` overrides :data:`DEFAULT_COLORS` entries
    (the bugs keep their :data:`BUG_COLOURS`). ``defs=False`` leaves the glyph symbols out
    for pages that hold them once (:func:`glyph_defs`).
    """
    colors = {**DEFAULT_COLORS, **(colors or {})}
    layout = _Layout(board, hands)
    b = layout.b
    out = []
    if colors.get("background"):
        out.append(f'<rect width="100%" height="100%" fill="{colors["background"]}"/>')
    if layout.ring:  # the empty cells next to the hive, as one path
        d = "".join(_hex_path(*layout.qr_xy(qr), _RING_RADIUS, _RING_STEPS) for qr in sorted(layout.ring))
        out.append(f'<path class="empty" d="{d}" fill="none" stroke="{colors["empty"]}" stroke-width="1.2"/>')
    for cell in _cells(board, b, highlight):
        x, y = layout.cell_xy(cell)
        out.append(f'<polygon class="highlight" points="{_hex_points(x, y, R + 1)}" fill="{colors["highlight"]}" '
                   'fill-opacity=".55"/>')
    history = board.move_history_ints()
    if lastmove and history and history[-1][0] != PASS:
        move, token = history[-1]
        src = undo_source(token)
        if src >= 0:
            x, y = layout.cell_xy(src)
            out.append(f'<polygon class="lastmove-from" points="{_hex_points(x, y, R - 3)}" fill="none" '
                       f'stroke="{colors["lastmove"]}" stroke-width="3" stroke-dasharray="6 4"/>')
    for cell, qr in layout.coords.items():
        x, y = layout.qr_xy(qr)
        top = int(b[TOP + cell])
        out.append(_piece(top, x, y, 1, colors, _stack_title(b, cell), int(b[HEIGHT + cell]),
                          f' data-cell="{cell}" data-height="{int(b[HEIGHT + cell])}"', board.game_type))
    if lastmove and history and history[-1][0] != PASS:
        x, y = layout.cell_xy(history[-1][0] & CELL_MASK)
        out.append(f'<polygon class="lastmove" points="{_hex_points(x, y, R - 2.5)}" fill="none" '
                   f'stroke="{colors["lastmove"]}" stroke-width="4" stroke-linejoin="round"/>')
    if placements or coordinates:
        out += _empty_marks(board, layout, colors, placements, coordinates)
    for colour, pieces in layout.hands.items():
        for p in pieces:
            if p in layout.hand_xy:
                x, y = layout.hand_xy[p]
                out.append(_piece(p, x, y, HAND_SCALE, colors, f"{piece_names(board.game_type)[p]} in hand",
                                  extra=' data-hand="1"', game_type=board.game_type))
    for arrow in arrows:
        out.append(_draw_arrow(board, layout, arrow, colors))
    width = layout.width if size is None else size
    height = layout.height * width / layout.width
    used = [p for p in range(N_PIECES) if piece_in_game(p, board.game_type)]
    return (f'<svg xmlns="{SVG_NS}" viewBox="0 0 {layout.width:.1f} {layout.height:.1f}" '
            f'width="{width:.0f}" height="{height:.0f}" class="hive-board" role="img">'
            f"<title>{escape(_board_title(board))}</title>"
            + (glyph_defs(used, colors, board.game_type) if defs else "") + "".join(out) + "</svg>")


def cell_centres(board: Board, cells: Iterable[int], *, hands: bool = True) -> dict[int, tuple[float, float]]:
    """Where :func:`board` (with the same ``hands``) draws the centre of each of ``cells``,
    in viewBox units: cells on or next to the hive, as every move's destination is.

    An interactive board uses it to mark a piece's destinations over the picture.

    >>> from hiveai.rules.board import Board
    >>> b = Board.parse("Base;InProgress;Black[1];wG1")
    >>> centre = cell_centres(b, [m.code & CELL_MASK for m in b.legal_moves])
    >>> len(centre) == 6 and all(len(xy) == 2 for xy in centre.values())
    True
    """
    layout = _Layout(board, hands)
    return {cell: tuple(round(v, 1) for v in layout.cell_xy(cell)) for cell in cells}


def _board_title(board: Board) -> str:
    """What the picture shows, in words: game type, ply, state and the last move."""
    last = f", last move {board.move_history[-1]}" if board.move_history else ""
    return f"{board.game_type_string} after {board.ply} plies: {board.state}, {board.turn_string}{last}"


def _empty_marks(board: Board, layout: _Layout, colors: dict[str, str], placements: bool,
                 coordinates: bool) -> list[str]:
    """Rings on the cells where the side to move can place; MoveString positions on empty cells."""
    from hiveai.rules.notation import move_to_string

    b = layout.b
    out = []
    if placements:
        cells = {m.code & CELL_MASK for m in board.legal_moves
                 if not m.is_pass and int(b[POS + (m.code >> MOVE_PIECE_SHIFT)]) < 0}
        for cell in sorted(cells):
            x, y = layout.cell_xy(cell)
            out.append(f'<circle class="placement" cx="{x:.1f}" cy="{y:.1f}" r="{R * 0.3:.1f}" fill="none" '
                       f'stroke="{colors["placement"]}" stroke-width="3"/>')
    spare = next((p for p in range(N_PIECES) if int(b[POS + p]) < 0), None)
    if coordinates and spare is not None and layout.coords:
        # The MoveString of a placement there names the cell as UHP would: "wA2 wQ-" -> "wQ-".
        for cell, qr in sorted(_ring_cells(layout), key=lambda item: item[1]):
            name = move_to_string(b, (spare << MOVE_PIECE_SHIFT) | cell).split(" ", 1)[-1]
            x, y = layout.qr_xy(qr)
            out.append(f'<text class="coordinate" x="{x:.1f}" y="{y + 3:.1f}" font-size="8" '
                       f'font-family="sans-serif" fill="#8a8372" text-anchor="middle">{escape(name)}</text>')
    return out


def _ring_cells(layout: _Layout) -> list[tuple[int, tuple[int, int]]]:
    """(cell index, axial) of the empty cells next to the hive."""
    seen: dict[tuple[int, int], int] = {}
    for cell, (q, r) in layout.coords.items():
        for d, (dq, dr) in enumerate(DIR_QR):
            qr = (q + dq, r + dr)
            if qr in layout.ring:
                seen.setdefault(qr, neighbour(cell, d))
    return [(c, qr) for qr, c in seen.items()]


def _draw_arrow(board: Board, layout: _Layout, arrow: Arrow | Move | str, colors: dict[str, str]) -> str:
    if not isinstance(arrow, Arrow):
        arrow = Arrow(arrow, colors["arrow"])
    code, text = _move_code(board, arrow.move)
    if code == PASS:
        return ""
    piece, dest = code >> MOVE_PIECE_SHIFT, code & CELL_MASK
    x2, y2 = layout.cell_xy(dest)
    src = int(layout.b[POS + piece])
    if src >= 0:
        x1, y1 = layout.cell_xy(src)
    elif piece in layout.hand_xy:
        x1, y1 = layout.hand_xy[piece]
    else:  # no hand rows: the piece stands faintly where it will go
        return (f'<g class="arrow" data-move={quoteattr(text)} opacity=".5">'
                + _piece(piece, x2, y2, 1, colors, text, game_type=board.game_type) + "</g>")
    return _arrow(x1, y1, x2, y2, arrow.color, text)
