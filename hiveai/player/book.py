"""The opening book: file format, loader, and the moves ``bestmove`` plays from it.

One book file per game type (``openings/Base+MLP.tsv`` ...). Positions are keyed
by their canonical frame (:mod:`hiveai.rules.symmetry`), so a position and all its
translations, rotations and mirror images share one entry, and every move is
stored in that frame so it maps back to the matching move on the real board.
``openings/README.md`` documents the format; :mod:`hiveai.training.bookbuild` writes it.

API for the engine (loaded lazily, one file per game type, cached):

* :func:`book_move` -- a :class:`~hiveai.rules.board.Move` to play now, or None when out of book.
* :func:`lookup` -- every book move of a position, for ``analyse`` and
  ``hiveai book show``.

Loading reads the whole file but parses an entry only when it is looked up,
so the first lookup costs a few milliseconds (budget: 50 ms, see
``tools/bench_book.py``) and nothing is read before a book is needed.
"""

from __future__ import annotations

import logging
import os
import random
from importlib import resources
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hiveai.rules.bug import N_GAME_TYPES, game_type_string, parse_game_type, parse_piece, piece_names
from hiveai.durable import complete_lines
from hiveai.rules.hex_grid import CELL_MASK
from hiveai.rules.position import MOVE_PIECE_SHIFT, PASS
from hiveai.rules.symmetry import Frame, frame_of

if TYPE_CHECKING:
    from hiveai.rules.board import Board, Move

__all__ = [
    "BOOK_DIR_ENV",
    "FORMAT",
    "VERSION",
    "Book",
    "BookFormatError",
    "BookMove",
    "BookStats",
    "Entry",
    "StoredMove",
    "book_dir",
    "book_move",
    "book_path",
    "book_stats",
    "clear_cache",
    "load",
    "lookup",
]

log = logging.getLogger("hiveai.book")

FORMAT = "hiveai-book"
# Bump when a reader of the old version would misread the file (openings/README.md).
VERSION = 1
SUFFIX = ".tsv"
# Book files are ASCII with "\n" line ends (keys, piece names and MoveStrings are ASCII).
BOOK_ENCODING = "ascii"
COLUMNS = ("key", "ply", "moves", "line")
# A directory holding book files, searched before the shipped books (tests, custom books).
BOOK_DIR_ENV = "HIVEAI_BOOK_DIR"
# The shipped books: package data of hiveai (pyproject.toml [tool.setuptools.package-data];
# in the source tree hiveai/openings is a symlink to the top-level openings/ folder).
PACKAGE_BOOKS = "openings"


class BookFormatError(ValueError):
    """A book file that is not a readable hiveai book of this version."""


@dataclass
class StoredMove:
    """One book move as stored: the piece and its destination in the canonical frame.

    ``piece`` is a piece id, or -1 for ``pass``. ``weight`` > 0 marks a move
    the engine may play (chosen with probability proportional to weight);
    weight 0 moves are kept for information (searched but not good enough, or
    seen only in game records). ``score`` is the search score for the side to
    move (None if never searched), ``depth`` the plies searched, ``count`` how
    often it was played in merged game records and ``points`` what it scored
    there for the side that played it (win 1, draw 0.5).
    """

    piece: int
    q: int
    r: int
    weight: int = 0
    score: int | None = None
    depth: int = 0
    count: int = 0
    points: float = 0.0

    @property
    def where(self) -> tuple[int, int, int]:
        """What identifies the move: (piece, q, r)."""
        return self.piece, self.q, self.r

    def to_text(self, game_type: int = 0) -> str:
        name = "pass" if self.piece < 0 else piece_names(game_type)[self.piece]
        score = "" if self.score is None else str(self.score)
        return f"{name},{self.q},{self.r},{self.weight},{score},{self.depth},{self.count},{self.points:g}"

    @classmethod
    def from_text(cls, text: str, game_type: int = 0) -> StoredMove:
        name, q, r, weight, score, depth, count, points = text.split(",")
        piece = -1 if name == "pass" else parse_piece(name, game_type)
        if piece is None:
            raise ValueError(f"unknown piece {name!r}")
        return cls(piece, int(q), int(r), int(weight), int(score) if score else None, int(depth),
                   int(count), float(points))


@dataclass
class Entry:
    """A book position: its key, the ply it was first reached at, its moves.

    ``line`` is one sequence of MoveStrings from the empty board that reaches
    the position (as the builder found it; for people and for rebuilding).
    """

    key: str
    ply: int
    moves: list[StoredMove] = field(default_factory=list)
    line: list[str] = field(default_factory=list)

    @property
    def searched(self) -> bool:
        """Whether a search scored this position (not only game records)."""
        return any(m.depth > 0 for m in self.moves)

    def move(self, where: tuple[int, int, int]) -> StoredMove | None:
        for m in self.moves:
            if m.where == where:
                return m
        return None

    def to_line(self, game_type: int = 0) -> str:
        moves = ";".join(m.to_text(game_type) for m in self.moves)
        return "\t".join((self.key, str(self.ply), moves, ";".join(self.line)))


def _parse_entry(key: str, rest: str, game_type: int = 0) -> Entry:
    ply, moves, line = rest.split("\t")
    return Entry(key, int(ply), [StoredMove.from_text(t, game_type) for t in moves.split(";") if t],
                 line.split(";") if line else [])


@dataclass
class BookMove:
    """A book move of a real position, as :func:`lookup` reports it."""

    move: Move  # on the board it was looked up for
    weight: int
    score: int | None
    depth: int
    count: int
    points: float

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``)."""
        return str(self.move)


class Book:
    """One game type's book, read from its file.

    Entries are kept as raw text and parsed on first access; a key written
    twice keeps the later line (the builder appends updates).
    """

    def __init__(self, game_type: int, header: dict[str, str] | None = None) -> None:
        self.game_type = game_type
        self.header = dict(header or {})
        self._raw: dict[str, str] = {}
        self._parsed: dict[str, Entry] = {}

    @classmethod
    def read(cls, path: str | os.PathLike) -> Book:
        """Read a book file; raises BookFormatError if it is not one of this version."""
        path = Path(path)
        with open(path, encoding=BOOK_ENCODING, newline="\n") as f:
            text = f.read().replace("\r\n", "\n")  # a checkout may have turned \n into \r\n
        header = _parse_header(text.split("\n", 1)[0], path)
        book = cls(parse_game_type(header["game_type"]), header)
        raw = book._raw
        for line in complete_lines(text)[1:]:  # a last line cut short by a stopped build is no entry
            if not line or line[0] == "#":
                continue
            key, _, rest = line.partition("\t")
            raw[key] = rest
        return book

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, key: str) -> bool:
        return key in self._raw

    def keys(self) -> list[str]:
        return list(self._raw)

    def get(self, key: str) -> Entry | None:
        entry = self._parsed.get(key)
        if entry is None:
            rest = self._raw.get(key)
            if rest is None:
                return None
            try:
                entry = _parse_entry(key, rest, self.game_type)
            except ValueError as e:
                raise BookFormatError(f"book entry {key}: {e}") from None
            self._parsed[key] = entry
        return entry

    def put(self, entry: Entry) -> None:
        """Add or replace an entry (in memory; see :class:`hiveai.training.bookbuild.BookWriter`)."""
        self._raw[entry.key] = entry.to_line(self.game_type).partition("\t")[2]
        self._parsed[entry.key] = entry

    def entries(self) -> list[Entry]:
        return [self.get(k) for k in self._raw]

    def header_line(self) -> str:
        fields = {"version": str(VERSION), "game_type": game_type_string(self.game_type)}
        fields.update({k: v for k, v in self.header.items() if k not in fields})
        return "\t".join(["#" + FORMAT] + [f"{k}={v}" for k, v in fields.items()])

    def text(self) -> str:
        """The whole file: header, column line, one line per entry in key order."""
        out = [self.header_line(), "#" + "\t".join(COLUMNS)]
        out += [self.get(k).to_line(self.game_type) for k in sorted(self._raw)]
        return "\n".join(out) + "\n"


def _parse_header(line: str, path: Path) -> dict[str, str]:
    fields = line.rstrip("\n").split("\t")
    if not fields or fields[0] != "#" + FORMAT:
        raise BookFormatError(f"{path}: not a {FORMAT} file (first line {line[:40]!r})")
    header = dict(f.split("=", 1) for f in fields[1:] if "=" in f)
    if header.get("version") != str(VERSION):
        raise BookFormatError(f"{path}: book version {header.get('version')!r}, this hiveai reads {VERSION}")
    if parse_game_type(header.get("game_type", "")) is None:
        raise BookFormatError(f"{path}: bad game_type {header.get('game_type')!r}")
    return header


# --- finding and caching the books --------------------------------------------


def shipped_books() -> Path:
    """The folder of the shipped books, found with :mod:`importlib.resources`, so it is
    right for every way of installing (a wheel, ``pip install --target`` or
    ``--prefix``, an editable install or a source checkout)."""
    return Path(str(resources.files("hiveai").joinpath(PACKAGE_BOOKS)))


def book_dirs() -> list[Path]:
    """Directories searched for book files, in order: $HIVEAI_BOOK_DIR, then the shipped books."""
    dirs = []
    env = os.environ.get(BOOK_DIR_ENV)
    if env:
        dirs.append(Path(env))
    dirs.append(shipped_books())
    return dirs


def book_dir() -> Path | None:
    """The first directory in :func:`book_dirs` that holds any book file."""
    for d in book_dirs():
        if d.is_dir() and any(d.glob("*" + SUFFIX)):
            return d
    return None


def book_path(game_type: int | str, directory: str | os.PathLike | None = None) -> Path:
    """Path of a game type's book file in ``directory`` (default: :func:`book_dir`)."""
    gt = parse_game_type(game_type) if isinstance(game_type, str) else game_type
    if gt is None:
        raise ValueError(f"unknown game type {game_type!r}")
    if directory is None:
        directory = book_dir() or shipped_books()
    return Path(directory) / (game_type_string(gt) + SUFFIX)


_cache: dict[int, Book | None] = {}


def load(game_type: int) -> Book | None:
    """The book of a game type, read on first use and cached; None if there is none.

    A missing or unreadable book is logged once and treated as no book, so
    ``bestmove`` never fails because of it.
    """
    if game_type in _cache:
        return _cache[game_type]
    book = None
    path = book_path(game_type)
    if path.is_file():
        try:
            book = Book.read(path)
        except (OSError, ValueError) as e:
            log.warning("opening book not used: %s", e)
    _cache[game_type] = book
    return book


def clear_cache() -> None:
    """Forget loaded books (after the book directory or files changed)."""
    _cache.clear()


# --- positions and moves ------------------------------------------------------


def to_stored(frame: Frame, move: int) -> tuple[int, int, int]:
    """(piece, q, r) of a real move int in the canonical frame; pass is (-1, 0, 0)."""
    if move == PASS:
        return -1, 0, 0
    q, r = frame.to_canonical(move & CELL_MASK)
    return move >> MOVE_PIECE_SHIFT, q, r


def to_move(frame: Frame, where: tuple[int, int, int]) -> int:
    """The real move int of a stored (piece, q, r)."""
    piece, q, r = where
    if piece < 0:
        return PASS
    return (piece << MOVE_PIECE_SHIFT) | frame.to_cell(q, r)


def entry_moves(board: Board, entry: Entry, frame: Frame | None = None) -> list[tuple[int, StoredMove]]:
    """The entry's moves as legal move ints on ``board``, with their stored data.

    A stored move that does not map to a legal move (only possible with a
    corrupt file or a key collision) is dropped.
    """
    frame = frame or frame_of(board.position_array)
    legal = set(board.legal_move_ints())
    out = []
    for m in entry.moves:
        move = to_move(frame, m.where)
        if move in legal:
            out.append((move, m))
    return out


def _entry(board: Board, book: Book | None) -> tuple[Entry, Frame] | None:
    book = book if book is not None else load(board.game_type)
    if book is None or book.game_type != board.game_type or board.is_game_over():
        return None
    frame = frame_of(board.position_array)
    try:
        entry = book.get(frame.key)
    except BookFormatError as e:  # a damaged line: play on without the book
        log.warning("opening book entry not used: %s", e)
        return None
    return None if entry is None else (entry, frame)


def lookup(board: Board, book: Book | None = None) -> list[BookMove] | None:
    """The book moves of ``board``'s position, best first; None if not in the book.

    Includes weight-0 moves (known but not played by the engine), so that
    ``analyse`` can mark every book move. Order: weight, then score.
    ``book`` defaults to the shipped book of the board's game type.
    """
    found = _entry(board, book)
    if found is None:
        return None
    entry, frame = found
    out = [BookMove(_move(board, mv), m.weight, m.score, m.depth, m.count, m.points)
           for mv, m in entry_moves(board, entry, frame)]
    out.sort(key=lambda bm: (-bm.weight, -(bm.score if bm.score is not None else -10**9)))
    return out


_rng = random.Random()  # seeded from the OS: fresh engines vary their openings


def book_move(board: Board, *, best_only: bool = False, rng: random.Random | None = None,
              book: Book | None = None) -> Move | None:
    """The move to play from the book in ``board``, or None when out of book.

    Chooses among the moves with weight > 0, with probability proportional to
    weight, so that games vary; ``best_only`` plays the best-scored of them.
    None when there is no book for the game type, the position is not in it,
    or it has no playable move. ``book`` defaults to the shipped book.
    """
    found = _entry(board, book)
    if found is None:
        return None
    entry, frame = found
    playable = [(mv, m) for mv, m in entry_moves(board, entry, frame) if m.weight > 0]
    if not playable:
        return None
    if best_only:
        mv = max(playable, key=lambda x: (x[1].score if x[1].score is not None else -10**9, x[1].weight))[0]
    else:
        mv = (rng or _rng).choices([mv for mv, _ in playable], weights=[m.weight for _, m in playable])[0]
    return _move(board, mv)


def _move(board: Board, code: int) -> Move:
    """The :class:`Move` of move int ``code`` on ``board``."""
    from hiveai.rules.board import Move

    return Move(code, board.move_to_string(code))


@dataclass
class BookStats:
    """Summary of one book file (``hiveai book stats``)."""

    game_type: str
    positions: int
    max_ply: int  # deepest position with an entry
    book_moves: int  # moves with weight > 0, over all positions
    depth: int  # deepest search behind an entry
    games: int  # game records merged (moves counted at the empty board)
    size: int  # bytes


def book_stats(directory: str | os.PathLike) -> list[BookStats]:
    """Stats of every book file in ``directory``, in the canonical game type order."""
    out = []
    for gt in range(N_GAME_TYPES):
        path = book_path(gt, directory)
        if not path.is_file():
            continue
        book = Book.read(path)
        entries = book.entries()
        root = min(entries, key=lambda e: e.ply, default=None)
        out.append(BookStats(
            game_type_string(gt),
            len(entries),
            max((e.ply for e in entries), default=0),
            sum(1 for e in entries for m in e.moves if m.weight > 0),
            max((m.depth for e in entries for m in e.moves), default=0),
            sum(m.count for m in root.moves) if root is not None and root.ply == 0 else 0,
            path.stat().st_size,
        ))
    return out
