r"""boardspace.net's Hive SGF, read in every dialect its archives use, and written.

boardspace.net keeps each Hive game as an SGF-like file (``GM[27]``): a header
(``SU`` the variant, ``DT`` the date, ``GN`` the game's name, ``RE`` the
result in words, ``P0[id "name"]`` / ``P1[id "name"]`` the players) and then
one node per command, ``; P0[12 dropb wQ O 13 wS1-]``. The notation is
boardspace's own (boardspace.net/english/about_hive_notation.html): a drop
names the piece, the cell (column letter, row number) and a reference like a
UHP MoveString's (``.`` for the first piece or a climb).

The commands (any letter case): ``Start P0``; ``pick W 4 wS1`` (from the
reserve), ``pickb N 14 wA1`` (from the board) and ``dropb wA1 J 10 /bQ``;
``move W wS1 N 13 .`` (a pick and drop in one, as robots write it; the
colour is the piece's) and ``movedone`` (a move and its ``done``);
``pmove`` / ``pdropb`` (a piece thrown by a pillbug); ``done`` (ends the
turn: only the last drop before it counts, and a turn with none is a pass);
``pass``; ``resign``; ``WinOnTime`` (the other side's time ran out);
``offerdraw`` / ``declinedraw`` / ``acceptdraw``; ``reset`` and a drop back
into the ``rack`` (the turn's pick taken back); ``edit``, ``playwhite``,
``playblack``, ``time`` and ``ranking`` change nothing here.

Dialects handled: lower-case or capitalised commands; pieces without a
colour in old archives (``dropb b1 N 12 wG1\\``: the colour comes from the
reserve picked from, or the piece on the cell); forced passes written,
implied by an empty turn, or left out altogether; the variant spelled
``hive``, ``Hive-PLM``, ``hive-plm 2 0 101`` ...; ``RE`` in the player's
language (the winner is the player whose name it holds); backslashes
escaped (``\\wQ`` is ``\wQ``); ``pick wr 2`` (a reserve and a slot, no piece) in
the oldest. UHP's White moves first: when boardspace's first player has the
black pieces, the colours are swapped and that player is White.

The cell decides where a piece goes (the reference is only checked when the
cell does not give a legal move, as it would if a board were re-centred).
Single pieces are numbered here (``wL1``, ``wM1``, ``wP1``) and not in UHP
(``wL``); both are read.

The writer emits the form boardspace's robots use (``Move``/``PMove`` then
``Done`` for each ply, ``Pass`` and ``Done`` for a pass), with the first
piece on N 13 as boardspace places it.
"""

from __future__ import annotations

import bisect
import datetime
import re
from dataclasses import dataclass

from hiveai.rules.board import Board
from hiveai.rules.bug import COLOUR_LETTERS, colour_of, parse_piece, piece_names
from hiveai.errors import HiveError, IllegalMoveError
from hiveai.rules.hex_grid import CELL_MASK, GRID, GRID_BITS, torus_offset
from hiveai.rules.outcome import Termination
from hiveai.rules.position import MOVE_PIECE_SHIFT, PASS
from hiveai.records.record import GameRecord, GameRecordError

__all__ = ["parse_sgf", "to_sgf"]

HIVE_GM = "27"  # SGF's game number for Hive
SITE = "boardspace.net"
# Where boardspace puts the first piece (every archive game starts there).
FIRST_CELL = ("N", 13)
QUEEN_FIRST = "You can't play your Queen Bee on your first turn."
QUEEN_FIRST_NOTE = ("boardspace allows the queen on the first turn; hiveai follows the tournament rule "
                    "(no queen on either side's first turn)")

_PROP_RE = re.compile(r"([A-Z]{1,2}[0-9]?)\[((?:\\.|[^\]\\])*)\]", re.DOTALL)
_UNESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)
# A piece as boardspace writes it: with a colour (wS1, bq, wL1) or without (S1, q, b1 = beetle 1).
_COLOURED_RE = re.compile(r"^([wb])([qsbgamlp])(\d?)$", re.IGNORECASE)
_BARE_RE = re.compile(r"^([qsbgamlp])(\d?)$", re.IGNORECASE)
_REF_RE = re.compile(r"^([-/\\]?)([A-Za-z]+\d?)([-/\\]?)$")
_DATE_FORMATS = ("%d %B %Y", "%B %d, %Y", "%a %b %d %H:%M:%S %Y", "%d. %B %Y")
_GN_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})-\d{4}$")
_SINGLES = {"q", "m", "l", "p"}
# Commands and the fewest arguments each takes; commands that change nothing here.
_ARITY = {"pick": 1, "pickb": 3, "dropb": 3, "pdropb": 3, "move": 4, "pmove": 4, "movedone": 4, "pmovedone": 4}
_IGNORED = {"time", "ranking", "edit", "playwhite", "playblack"}
# Endings an SGF states without RE: by a command, or on the board.
_STATED = {Termination.RESIGNATION, Termination.AGREED_DRAW, Termination.QUEEN_SURROUNDED,
           Termination.BOTH_SURROUNDED}


@dataclass
class _Drop:
    """One drop (or a pass) waiting for its player's ``done``."""

    player: int
    token: str  # the piece as written
    colour: int | None  # its colour, when the command or the pick says
    cell: tuple[str, int] | None  # None: a pass
    ref: str
    line: int
    written: str


def _unescape(value: str) -> str:
    return _UNESCAPE_RE.sub(r"\1", value) if "\\" in value else value


def _game_type(variant: str) -> str:
    """UHP GameTypeString of boardspace's ``SU`` (``hive``, ``Hive-PLM``, ``hive-plm 2 0 101``)."""
    word = variant.strip().split()[0].lower() if variant.strip() else "hive"
    base, _, letters = word.partition("-")
    if base != "hive" or not set(letters) <= set("mlp"):
        raise HiveError(f"boardspace variant {variant.strip()!r} is not one UHP plays (Hive with M, L, P)")
    return "Base+" + "".join(x for x in "MLP" if x.lower() in letters) if letters else "Base"


def _date(raw: str, game_name: str) -> str:
    """PGN date (``YYYY.MM.DD``) of ``DT``, else of the date in the game's name, else ""."""
    text = re.sub(r"(\d\d:\d\d:\d\d) \S+ (\d{4})$", r"\1 \2", raw.strip())  # drop the time zone
    for fmt in _DATE_FORMATS:
        try:
            return datetime.datetime.strptime(text, fmt).strftime("%Y.%m.%d")
        except ValueError:
            pass
    m = _GN_DATE_RE.search(game_name)
    return ".".join(m.groups()) if m else ""


class _Game:
    """One SGF game tree being replayed."""

    def __init__(self, name: str, text: str, offset: int, newlines: list[int]) -> None:
        self.name, self.text, self.offset, self.newlines = name, text, offset, newlines
        self.props: dict[str, str] = {}
        self.ids = ["", ""]
        self.first = 0  # the player who moves first: White
        self.board: Board | None = None
        self.swap = 0  # 1 when the first player's pieces are black: colours are swapped
        self.anchor: tuple[int, int, int] | None = None  # (column, row, hiveai cell) of one cell
        self.stacks: dict[int, list[int]] = {}  # hiveai cell -> pieces, bottom first
        self.pending: _Drop | None = None
        self.picked: tuple[int, int | None] | None = None  # (player, colour) of the last pick
        # (winner: the player, None for a draw; Termination word) when a command ended the game.
        self.ended: tuple[int | None, str] | None = None
        self.talked = False  # the last command spoke to the other player instead of moving
        self.lines: list[int] = []

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.newlines, self.offset + pos) + 1

    def fail(self, drop: _Drop | None, message: str, line: int | None = None) -> GameRecordError:
        if drop is None:
            return GameRecordError(f"{self.name}:{line}: {message}")
        ply = self.board.ply + 1 if self.board is not None else 1
        return GameRecordError(f"{self.name}:{drop.line}: move {ply} (P{drop.player} '{drop.written}'): {message}")

    # --- reading --------------------------------------------------------

    def read(self) -> GameRecord:
        events = []
        for m in _PROP_RE.finditer(self.text):
            key, value = m.group(1), _unescape(m.group(2))
            if key in ("P0", "P1"):
                events.append((int(key[1]), value.strip(), self.line_of(m.start())))
            elif key not in self.props:
                self.props[key] = value
        gm = self.props.get("GM", HIVE_GM).strip()
        if gm != HIVE_GM:
            raise GameRecordError(f"{self.name}: not a Hive game (GM[{gm}]; Hive is GM[{HIVE_GM}])")
        try:
            game_type = _game_type(self.props.get("SU", "hive"))
        except HiveError as e:
            raise GameRecordError(f"{self.name}: {e}") from None
        self.board = Board(game_type)
        for player, value, line in events:
            self.command(player, value, line)
        if self.pending is not None:  # a last move with no "done" (the game ended on it)
            self.apply(self.pending)
        return self.record()

    def command(self, player: int, value: str, line: int) -> None:
        words = value.split()
        if words and words[0].isdigit():
            words = words[1:]
        if not words:
            return
        cmd, args = words[0].lower(), words[1:]
        written = " ".join(words)
        arity = _ARITY.get(cmd)
        if arity is not None and len(args) < arity:
            raise GameRecordError(f"{self.name}:{line}: {written!r} (P{player}): '{words[0]}' takes {arity} "
                                  "arguments")
        if cmd == "id":
            self.ids[player] = value.split(None, 1)[1].strip().strip('"') if len(value.split()) > 1 else ""
        elif cmd in _IGNORED:
            pass
        elif cmd == "start":
            self.first = 1 if args and args[0].upper() == "P1" else 0
        elif "rack" in (a.lower() for a in args):  # a piece put back in the reserve: no move
            self.pending = self.picked = None
        elif cmd == "pick":  # pick W 4 wS1, or in old archives pick wr 2
            self.picked = (player, self.colour_letter(args[0][0]))
        elif cmd == "pickb":
            self.picked = (player, self.colour_on(args[0], args[1]))
        elif cmd in ("dropb", "pdropb"):
            colour = self.picked[1] if self.picked and self.picked[0] == player else None
            self.pending = _Drop(player, args[0], colour, self.cell_of(args[1], args[2], line, written),
                                 args[3] if len(args) > 3 else ".", line, written)
        elif cmd in ("move", "pmove", "movedone", "pmovedone"):
            self.pending = _Drop(player, args[1], self.colour_letter(args[0]),
                                 self.cell_of(args[2], args[3], line, written),
                                 args[4] if len(args) > 4 else ".", line, written)
            if cmd.endswith("done"):
                self.done(player, line, written)
        elif cmd == "pass":
            self.pending = _Drop(player, "pass", None, None, "", line, written)
        elif cmd == "done":
            if self.talked:  # the turn was a draw offer, an answer to one, or a resignation: no pass
                self.talked = False
            else:
                self.done(player, line, written)
        elif cmd == "reset":
            self.pending = self.picked = None
        elif cmd in ("offerdraw", "declinedraw", "acceptdraw", "resign", "winontime"):
            self.talked = True
            if cmd == "resign":
                self.ended = (1 - player, "resignation")
            elif cmd == "winontime":
                self.ended = (player, "time forfeit")
            elif cmd == "acceptdraw":
                self.ended = (None, "agreed draw")
        else:
            raise GameRecordError(f"{self.name}:{line}: unknown boardspace command {written!r} (P{player})")

    def done(self, player: int, line: int, written: str) -> None:
        drop = self.pending or _Drop(player, "pass", None, None, "", line, written)
        self.pending = self.picked = None
        self.apply(drop)

    def colour_letter(self, letter: str) -> int | None:
        c = letter.lower()
        return None if c not in ("w", "b") else "wb".index(c) ^ self.swap

    def cell_of(self, column: str, row: str, line: int, written: str) -> tuple[str, int]:
        if len(column) != 1 or not column.isalpha() or not row.isdigit():
            raise GameRecordError(f"{self.name}:{line}: {written!r}: {column} {row} is not a boardspace cell "
                                  "(a column letter and a row number)")
        return column.upper(), int(row)

    def colour_on(self, column: str, row: str) -> int | None:
        if self.anchor is None or not (column.isalpha() and row.isdigit()):
            return None
        stack = self.stacks.get(self.hive_cell((column.upper(), int(row))))
        return colour_of(stack[-1]) if stack else None

    def hive_cell(self, cell: tuple[str, int]) -> int:
        """hiveai's cell of boardspace's: its columns run east, its rows north-west
        (axial q is the column, r minus the row)."""
        col, row, base = self.anchor
        q = (base & (GRID - 1)) + ord(cell[0]) - col
        r = (base >> GRID_BITS) - (cell[1] - row)
        return (q + GRID * r) & CELL_MASK

    def piece(self, drop: _Drop, token: str | None = None, colour: int | None = None) -> int:
        """hiveai's piece for a token as written (``wS1``, ``S1``, ``b1``, ``wL1``, ``bP``)."""
        token = token or drop.token
        m = _COLOURED_RE.match(token)
        if m:
            colour = "wb".index(m.group(1).lower()) ^ self.swap
            kind, number = m.group(2), m.group(3)
        else:
            m = _BARE_RE.match(token)
            if not m:
                raise self.fail(drop, f"{token!r} is not a piece")
            kind, number = m.group(1), m.group(2)
            if colour is None:
                raise self.fail(drop, f"{token!r} has no colour, and none can be told from the record")
        name = COLOUR_LETTERS[colour] + kind.upper() + ("" if kind.lower() in _SINGLES else number)
        piece = parse_piece(name, self.board.game_type)
        if piece is None:
            raise self.fail(drop, f"{token!r} is not a piece")
        return piece

    def apply(self, drop: _Drop) -> None:
        board = self.board
        if board.is_game_over():
            raise self.fail(drop, "the game is already over")
        mover = drop.player ^ self.first
        if board.turn != mover:
            # Old archives leave forced passes out: the other side had to pass.
            if board.legal_move_ints() == [PASS]:
                board.push(PASS)
                self.lines.append(drop.line)
            else:
                raise self.fail(drop, f"P{drop.player} moves out of turn")
        if drop.cell is None:
            self.push(drop, PASS)
            return
        if board.ply == 0:
            coloured = _COLOURED_RE.match(drop.token)
            self.swap = int(coloured.group(1).lower() == "b" if coloured else drop.colour == 1)
            piece = self.piece(drop, colour=0)
            try:
                move = board.play(piece_names(board.game_type)[piece])
            except HiveError as e:
                raise self.fail(drop, self.explain(e)) from None
            self.anchor = (ord(drop.cell[0]), drop.cell[1], move.code & CELL_MASK)
            self.track(move.code)
            self.lines.append(drop.line)
            return
        colour = drop.colour if drop.colour is not None else mover
        piece = self.piece(drop, colour=colour)
        self.push(drop, (piece << MOVE_PIECE_SHIFT) | self.hive_cell(drop.cell))

    def push(self, drop: _Drop, code: int) -> None:
        try:
            self.board.push(code)
        except IllegalMoveError as e:
            code = self.by_reference(drop, code)
            if code is None:
                raise self.fail(drop, self.explain(e)) from None
        except HiveError as e:
            raise self.fail(drop, str(e)) from None
        self.track(code)
        self.lines.append(drop.line)

    def by_reference(self, drop: _Drop, code: int) -> int | None:
        """The move the reference names, if the cell gave none and it does (re-anchoring the cells)."""
        m = _REF_RE.match(drop.ref) if code != PASS else None
        if not m or not (m.group(1) or m.group(3)):
            return None
        try:
            ref = self.piece(drop, m.group(2))
            names = piece_names(self.board.game_type)
            move = self.board.push(f"{names[code >> MOVE_PIECE_SHIFT]} {m.group(1)}{names[ref]}{m.group(3)}")
        except HiveError:
            return None
        dest = move.code & CELL_MASK
        dq, dr = torus_offset(self.hive_cell(drop.cell), dest)
        col, row, base = self.anchor
        self.anchor = (col, row, (base + dq + GRID * dr) & CELL_MASK)
        return move.code

    def explain(self, e: HiveError) -> str:
        return QUEEN_FIRST_NOTE if str(e) == QUEEN_FIRST else str(e)

    def track(self, code: int) -> None:
        if code == PASS:
            return
        piece, dest = code >> MOVE_PIECE_SHIFT, code & CELL_MASK
        for stack in self.stacks.values():
            if stack and stack[-1] == piece:
                stack.pop()
                break
        self.stacks.setdefault(dest, []).append(piece)

    def record(self) -> GameRecord:
        board = self.board
        white, black = self.ids[self.first], self.ids[1 - self.first]
        raw_result = self.props.get("RE", "").strip()
        tags = {"Date": _date(self.props.get("DT", ""), self.props.get("GN", "")),
                "Event": self.props.get("EV", "").strip(), "Site": self.props.get("PC", "").strip() or SITE,
                "Round": self.props.get("RO", "").strip(), "White": white, "Black": black}
        for key, tag in (("DT", "SgfDate"), ("GN", "SgfGameName"), ("RE", "SgfResult")):
            if self.props.get(key, "").strip():
                tags[tag] = self.props[key].strip()
        if self.ended is not None:
            winner, how = self.ended
            result = "Draw" if winner is None else ("WhiteWins", "BlackWins")[winner ^ self.first]
            tags["Termination"] = how
        else:
            result = _winner(raw_result, white, black) or board.state
        record = GameRecord(board.game_type_string, board.move_history, result, tags, lines=self.lines,
                            source=self.name, format="sgf", _final=board.state)
        return record


def _winner(text: str, white: str, black: str) -> str | None:
    """The BoardState ``RE`` states: the player whose name it holds won (in any language), or a draw."""
    named = [(len(n), state) for n, state in ((white, "WhiteWins"), (black, "BlackWins")) if n and n in text]
    if named:
        return max(named)[1]
    return "Draw" if "draw" in text.lower() else None


def parse_sgf(text: str, name: str) -> list[GameRecord | GameRecordError]:
    """Every game tree in boardspace SGF ``text``: a record, or the error that refuses it."""
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    out: list[GameRecord | GameRecordError] = []
    starts = [m.start() for m in re.finditer(r"\(\s*;", text)]
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        game = _Game(name if len(starts) == 1 else f"{name}#{i + 1}", text[start:end], start, newlines)
        try:
            record = game.read()
        except GameRecordError as e:
            out.append(e)
            continue
        if record not in out:  # boardspace sometimes saves a game's tree twice in one file
            out.append(record)
    if not starts:
        out.append(GameRecordError(f"{name}: no SGF game tree ('(;') in the file"))
    return out


# --- writing ------------------------------------------------------------------


def _bs_piece(name: str) -> str:
    """boardspace's name of a UHP piece: single pieces numbered (``wL`` -> ``wL1``), not the queen."""
    return name + "1" if len(name) == 2 and name[1] in "MLP" else name


def _bs_ref(where: str) -> str:
    """boardspace's reference of a UHP MoveString's second part (``""`` or a climb: ``.``)."""
    m = _REF_RE.match(where)
    if not m or not (m.group(1) or m.group(3)):
        return "."
    return m.group(1) + _bs_piece(m.group(2)) + m.group(3)


def to_sgf(record: GameRecord) -> str:
    """The record as a boardspace SGF file (boardspace's robots' form, backslashes escaped).

    Raises GameRecordError if a move is illegal or the hive leaves boardspace's
    columns (A to Z).
    """
    board = Board(record.game_type)
    variant = "Hive" + ("-" + record.game_type.split("+")[1][::-1] if "+" in record.game_type else "")
    # RE in boardspace's words when the record had them, or when nothing else in the
    # file says the result (a resignation and an agreed draw are commands, a surrounded
    # queen is on the board).
    outcome = record.outcome
    said = record.tags.get("SgfResult", "")
    result = None
    if said and _winner(said, record.white, record.black) == record.result:
        result = said
    elif outcome is not None and outcome.termination not in _STATED:
        result = {"WhiteWins": f"Game won by {record.white or 'White'}",
                  "BlackWins": f"Game won by {record.black or 'Black'}"}.get(record.result, "The game is a draw")
    head = ["(;", f"GM[{HIVE_GM}]VV[1]", f"SU[{variant}]"]
    for key, value in (("DT", record.tags.get("SgfDate") or _sgf_date(record.date)),
                       ("GN", record.tags.get("SgfGameName")),
                       ("EV", record.event), ("RO", record.tags.get("Round")),
                       ("PC", record.site if record.site != SITE else ""), ("RE", result)):
        if value:
            head.append(f"{key}[{_sgf_escape(value)}]")
    head += [f'P0[id "{_sgf_escape(record.white)}"]', f'P1[id "{_sgf_escape(record.black)}"]', "; P0[0 Start P0]"]
    nodes, n, first = [], 1, None
    for i, text in enumerate(record.moves):
        player = f"P{i & 1}"
        try:
            move = board.play(text)
        except HiveError as e:
            raise GameRecordError(f"{record.source or '<record>'}: move {i + 1} ({text!r}): {e}") from None
        if move.is_pass:
            nodes += [f"; {player}[{n} Pass]", f"; {player}[{n + 1} Done]"]
            n += 2
            continue
        piece, dest = move.code >> MOVE_PIECE_SHIFT, move.code & CELL_MASK
        if first is None:
            first = dest
        dq, dr = torus_offset(first, dest)
        column, row = ord(FIRST_CELL[0]) + dq, FIRST_CELL[1] - dr
        if not (ord("A") <= column <= ord("Z")) or row < 1:
            raise GameRecordError(f"{record.source or '<record>'}: move {i + 1} ({text!r}): the hive reaches past "
                                  "boardspace's board (columns A to Z)")
        name = piece_names(board.game_type)[piece]
        command = "Move" if colour_of(piece) == (i & 1) else "PMove"
        where = str(move).partition(" ")[2]
        nodes.append(f"; {player}[{n} {command} {'WB'[colour_of(piece)]} {_bs_piece(name)} {chr(column)} {row} "
                     f"{_sgf_escape(_bs_ref(where))}]")
        nodes.append(f"; {player}[{n + 1} Done]")
        n += 2
    tail = []
    if outcome is not None and outcome.termination == Termination.RESIGNATION and outcome.winner is not None:
        tail.append(f"; P{1 - outcome.winner}[{n} Resign]")
    elif outcome is not None and outcome.termination == Termination.AGREED_DRAW:
        offers = len(record.moves) & 1
        tail += [f"; P{offers}[{n} OfferDraw]", f"; P{offers}[{n + 1} Done]",
                 f"; P{1 - offers}[{n + 2} AcceptDraw]", f"; P{1 - offers}[{n + 3} Done]"]
    return "\n".join(head + nodes + tail + [")"]) + "\n"


def _sgf_date(date: str) -> str:
    """boardspace's ``DT`` (``28 October 2018``) of a PGN date, "" if it is not one."""
    try:
        return datetime.datetime.strptime(date, "%Y.%m.%d").strftime("%d %B %Y").lstrip("0")
    except ValueError:
        return ""


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")

