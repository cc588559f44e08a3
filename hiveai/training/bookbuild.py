"""``hiveai book build``: grow opening books by deep search, merge game records.

The build walks the book tree breadth first from the empty board, one ply
at a time, for any set of game types at once:

* Every position on the frontier that the book has not searched yet is
  searched (``search`` with ``multipv``), in parallel through
  :mod:`hiveai.backend` (local threads or a Ray cluster). Each finished search becomes a
  book entry that is appended to the book file at once, so stopping the build
  at any moment (Ctrl-C, a kill) loses at most the searches still running,
  and running the same command again resumes: finished positions are skipped.
* A searched move is a *book move* (weight > 0, the engine may play it) when
  it scores within ``margin`` of the best and is among the ``width`` best
  distinct moves, or when it is *wanted*: on a named opening line
  (``openings/named.txt``) or played at least ``min_count`` times in the
  merged game records. Wanted moves that the multipv search did not rank are
  scored by searching the position after them one ply shallower; a wanted
  line stops where the search disagrees with it by more than the margin.
* The next frontier is every position after a book move, up to ``plies``
  (plus the wanted lines, as far as they go). So every line the engine can
  play from the book is covered to ``plies``.

Moves that are the same up to a symmetry of the position (the six first
replies of Black, for one) are counted once: the multipv count is raised by
the number of such duplicates so that ``multipv`` distinct moves are ranked.

At the end of a completed build the file is rewritten sorted by key, so the
same command on the same code produces the same file.

One build at a time writes a folder: a second one started on it stops at once,
naming the first one's process (:class:`hiveai.durable.DirectoryLock`), so two
builds never interleave their appends.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from hiveai.rules.board import Board
from hiveai.backend import make_backend
from hiveai.player.book import BOOK_ENCODING, Book, BookFormatError, Entry, StoredMove, book_path, entry_moves, to_stored
from hiveai.rules.bug import STANDARD_GAME_TYPES, game_type_string, parse_game_type
from hiveai.durable import DirectoryLock, LineAppender, replace_atomically, trim_partial_line
from hiveai.records import read_games
from hiveai.rules.notation import FINISHED
from hiveai.rules.outcome import points
from hiveai.rules.position import PASS, do_move
from hiveai.rules.symmetry import frame_of

__all__ = [
    "ALL_GAME_TYPES",
    "BuildSettings",
    "BuildReport",
    "BookWriter",
    "Job",
    "build",
    "merge_records",
    "search_job",
    "weight_for",
]

ALL_GAME_TYPES = tuple(game_type_string(gt) for gt in STANDARD_GAME_TYPES)  # every subset of M, L, P
# Named opening lines shipped with the books (a GameString file, see hiveai.records.read_games).
NAMED_FILE = "named.txt"

# Defaults of `hiveai book build` (the shipped books' commands are in openings/README.md).
DEFAULT_PLIES = 8  # cover the first 8 plies (4 moves each) of every line the engine plays
DEFAULT_DEPTH = 6  # plies; even, because odd depths end on our own move and flatter it
DEFAULT_MULTIPV = 3
# Score margin (search units: 100 = one piece next to a queen) within which a
# move still counts as good: half a queen cell. Opening scores swing by 50-100
# between odd and even depths, so finer distinctions would be noise.
DEFAULT_MARGIN = 50
# Book moves kept per position, by ply (the last value repeats): three first
# moves and replies, two on turn 2 (36 distinct starts, so games vary), then
# the best one, which keeps a ply-8 tree to a few hundred positions (two per
# ply to the end would be ~1000, too many searches for a 2-core build).
DEFAULT_WIDTH = (3, 3, 2, 2, 1)
DEFAULT_MIN_COUNT = 2
# Weight of the best move; a move `margin` worse gets 1 (linear in between).
WEIGHT_BEST = 100


def weight_for(gap: int, margin: int) -> int:
    """Weight of a book move scoring ``gap`` below the best (0 <= gap <= margin)."""
    if margin <= 0:
        return WEIGHT_BEST
    return max(1, round(WEIGHT_BEST - (WEIGHT_BEST - 1) * gap / margin))


@dataclass
class BuildSettings:
    """Everything that decides what a build writes (recorded in the book header)."""

    plies: int = DEFAULT_PLIES
    depth: int | None = DEFAULT_DEPTH
    time: float | None = None  # seconds per search instead of a depth (not reproducible)
    multipv: int = DEFAULT_MULTIPV
    margin: int = DEFAULT_MARGIN
    width: tuple[int, ...] = DEFAULT_WIDTH
    named: bool = True
    min_count: int = DEFAULT_MIN_COUNT

    def width_at(self, ply: int) -> int:
        return self.width[min(ply, len(self.width) - 1)]

    def header(self) -> dict[str, str]:
        search = f"depth:{self.depth}" if self.time is None else f"time:{self.time:g}"
        if self.time is not None and self.depth is not None:
            search += f",depth:{self.depth}"
        return {"search": search, "multipv": str(self.multipv), "margin": str(self.margin),
                "width": ",".join(map(str, self.width)), "plies": str(self.plies)}


# --- the search job (runs in a worker) ----------------------------------------


@dataclass(frozen=True)
class Job:
    """One position to search: the game type, the line reaching it, the limits."""

    game_type: str
    line: tuple[str, ...]
    depth: int | None
    time: float | None
    multipv: int
    extras: tuple[str, ...] = ()  # further moves to score (wanted, not necessarily ranked)


@dataclass
class Scored:
    move_string: str
    score: int
    depth: int


@dataclass
class JobResult:
    job: Job
    lines: list[Scored]
    extras: list[Scored]
    nodes: int
    seconds: float


def _board(game_type: str, line: Iterable[str]) -> Board:
    board = Board(game_type)
    for m in line:
        board.play(m)
    return board


def child_key(board: Board, move: int) -> str:
    """Book key of the position after ``move``."""
    b = board.position_array.copy()
    do_move(b, move)
    return frame_of(b).key


def search_job(job: Job) -> JobResult:
    """Search one book position (a top-level function, so Ray can ship it to its workers)."""
    from hiveai.player import think
    from hiveai.search.score import int_score
    from hiveai.search.timeman import Limit

    start = time.monotonic()
    board = _board(job.game_type, job.line)
    legal = board.legal_move_ints()
    duplicates = len(legal) - len({child_key(board, m) for m in legal})
    res = think(board, Limit(time=job.time, depth=job.depth), multipv=min(len(legal), job.multipv + duplicates))
    nodes = res.nodes
    lines = [Scored(line.move_string, int_score(line.score), res.depth) for line in res.lines]
    ranked = {line.move.code for line in res.lines}
    extras = []
    for text in job.extras:
        move = board.parse_move(text).code
        if move in ranked:
            continue
        board.push(move)
        if not board.is_game_over() and board.legal_move_ints() != [PASS]:
            sub = think(board, Limit(time=job.time, depth=None if job.depth is None else max(1, job.depth - 1)))
            if sub.score is not None:
                extras.append(Scored(text, -int_score(sub.score), sub.depth + 1))
            nodes += sub.nodes
        board.pop()
    return JobResult(job, lines, extras, nodes, time.monotonic() - start)


# --- book files: durable appends (hiveai.durable) ------------------------------


class BookWriter:
    """Appends entries to a book file so that a stop at any moment loses nothing finished.

    Each entry is one durable line (:mod:`hiveai.durable`); a last line cut
    short by a kill is dropped on open.
    """

    def __init__(self, path: Path, book: Book) -> None:
        self.path = path
        self.game_type = book.game_type
        if not path.exists():
            replace_atomically(path, book.text(), BOOK_ENCODING)
        else:
            trim_partial_line(path)
        self._out = LineAppender(path, BOOK_ENCODING)

    def append(self, entry: Entry) -> None:
        self._out.append(entry.to_line(self.game_type))

    def close(self) -> None:
        self._out.close()


def open_book(path: Path, game_type: int, settings: BuildSettings | None = None, fresh: bool = False) -> Book:
    """The book at ``path`` (empty if missing or ``fresh``), its header updated to ``settings``."""
    book = None
    if path.exists() and not fresh:
        book = Book.read(path)
        if book.game_type != game_type:
            raise BookFormatError(f"{path}: a {game_type_string(book.game_type)} book, expected "
                                  f"{game_type_string(game_type)}")
    if book is None:
        book = Book(game_type)
        if path.exists():
            path.unlink()
    if settings is not None:
        book.header.update(settings.header())
    return book


# --- merging game records -----------------------------------------------------

@dataclass
class _Played:
    count: int = 0
    points: float = 0.0


def record_stats(records: Iterable, game_type: int, plies: int) -> tuple[dict, dict]:
    """How often and how well each move was played in ``records`` of one game type.

    Returns ``(stats, lines)``: stats[key][child key] -> _Played, and a line
    reaching each position key. Only records with a result (win or draw) count.
    """
    stats: dict[str, dict[str, _Played]] = defaultdict(lambda: defaultdict(_Played))
    lines: dict[str, list[str]] = {}
    for record in records:
        if parse_game_type(record.game_type) != game_type or record.result not in FINISHED:
            continue
        board = Board(record.game_type)
        for text in record.moves[:plies]:
            key = frame_of(board.position_array).key
            lines.setdefault(key, list(board.move_history))
            move = board.parse_move(text).code
            played = stats[key][child_key(board, move)]
            played.count += 1
            played.points += points(record.result, board.turn)  # for the side that made the move
            board.push(move)
    return stats, lines


def merge_records(book: Book, stats: dict, lines: dict) -> int:
    """Add record counts (from :func:`record_stats`) to ``book`` in memory.

    A move already in the entry (or equivalent to one by symmetry) gets its
    count and points raised; a new move is added with weight 0 (the search
    decides whether it becomes a book move). Counts add up: merge each record
    file once. Returns the number of moves counted.
    """
    counted = 0
    for key, moves in stats.items():
        board = _board(game_type_string(book.game_type), lines[key])
        frame = frame_of(board.position_array)
        entry = book.get(key) or Entry(key, board.ply, [], lines[key])
        by_child = {child_key(board, mv): m for mv, m in entry_moves(board, entry, frame)}
        legal_by_child: dict[str, int] = {}
        for mv in board.legal_move_ints():
            legal_by_child.setdefault(child_key(board, mv), mv)
        for ck, played in moves.items():
            m = by_child.get(ck)
            if m is None:
                m = by_child[ck] = StoredMove(*to_stored(frame, legal_by_child[ck]))
                entry.moves.append(m)
            m.count += played.count
            m.points += played.points
            counted += played.count
        book.put(entry)
    return counted


def read_named(directory: Path) -> list[list[str]]:
    """The named opening lines in ``directory`` (none if the file is missing)."""
    path = directory / NAMED_FILE
    return [record.moves for record in read_games(path)] if path.is_file() else []


def wanted_moves(game_type: int, named_lines: list[list[str]], stats: dict, min_count: int) -> dict[str, set[str]]:
    """Moves to score and keep if the search agrees: wanted[key] = child keys.

    From the named lines, as far as each is legal in this game type (a line
    naming a piece the game type lacks stops there), and from record moves
    played at least ``min_count`` times.
    """
    wanted: dict[str, set[str]] = defaultdict(set)
    for line in named_lines:
        board = Board(game_type_string(game_type))
        for text in line:
            try:
                move = board.parse_move(text).code
            except ValueError:
                break
            wanted[frame_of(board.position_array).key].add(child_key(board, move))
            board.push(move)
    for key, moves in stats.items():
        for ck, played in moves.items():
            if played.count >= min_count:
                wanted[key].add(ck)
    return wanted


def make_entry(board: Board, old: Entry | None, result: JobResult, wanted: set[str],
               settings: BuildSettings) -> Entry:
    """The book entry of a searched position: moves, scores and weights.

    Equivalent moves (the same position after them, up to symmetry) are
    merged, keeping the best score; the old entry's record counts are kept.
    """
    frame = frame_of(board.position_array)
    ranked_moves = {board.parse_move(s.move_string).code for s in result.lines}
    scored: dict[str, tuple[int, Scored]] = {}
    for s in result.lines + result.extras:
        move = board.parse_move(s.move_string).code
        ck = child_key(board, move)
        if ck not in scored or s.score > scored[ck][1].score:
            scored[ck] = (move, s)
    order = sorted(scored, key=lambda ck: -scored[ck][1].score)  # stable: search order on ties
    best = scored[order[0]][1].score
    width = settings.width_at(board.ply)
    by_child: dict[str, StoredMove] = {}
    rank = 0
    for ck in order:
        move, s = scored[ck]
        gap = best - s.score
        ranked = move in ranked_moves
        keep = gap <= settings.margin and ((ranked and rank < width) or ck in wanted)
        rank += ranked
        weight = weight_for(gap, settings.margin) if keep else 0
        by_child[ck] = StoredMove(*to_stored(frame, move), weight, s.score, s.depth)
    moves = list(by_child.values())
    if old is not None:  # keep what game records said
        for mv, m in entry_moves(board, old, frame):
            if m.count or m.points:
                target = by_child.get(child_key(board, mv))
                if target is None:
                    moves.append(StoredMove(m.piece, m.q, m.r, 0, None, 0, m.count, m.points))
                else:
                    target.count, target.points = m.count, m.points
    line = old.line if old is not None and old.line else list(board.move_history)
    return Entry(frame.key, board.ply, moves, line)


# --- the build ----------------------------------------------------------------


@dataclass
class BuildReport:
    """What a build did."""

    searched: dict[str, int] = field(default_factory=dict)  # searches per game type
    search_seconds: dict[str, float] = field(default_factory=dict)  # their total time per game type
    positions: dict[str, int] = field(default_factory=dict)  # book size per game type
    seconds: float = 0.0
    stopped: bool = False


@dataclass
class _TypeBuild:
    """One game type's book during a build."""

    game_type: str
    path: Path
    book: Book
    wanted: dict[str, set[str]]
    writer: BookWriter | None = None
    searched: int = 0
    seconds: float = 0.0


@dataclass
class _Node:
    """A frontier position: its game type, key and a line reaching it."""

    build: _TypeBuild
    key: str
    line: list[str]


def _missing_scores(node: _Node, board: Board) -> list[str]:
    """Wanted moves of ``node`` that its entry has not scored (all of them if unsearched)."""
    wanted = node.build.wanted.get(node.key)
    if not wanted:
        return []
    entry = node.build.book.get(node.key)
    scored = set()
    if entry is not None:
        scored = {child_key(board, mv) for mv, m in entry_moves(board, entry) if m.depth > 0}
    missing, seen = [], set()
    for mv in board.legal_move_ints():
        ck = child_key(board, mv)
        if ck in wanted and ck not in scored and ck not in seen:
            seen.add(ck)
            missing.append(board.move_to_string(mv))
    return missing


def _next_frontier(frontier: list[_Node], plies: int) -> list[_Node]:
    """Positions after the book moves of ``frontier``: all up to ``plies``, wanted ones beyond."""
    out, seen = [], set()
    for node in frontier:
        entry = node.build.book.get(node.key)
        if entry is None:
            continue
        board = _board(node.build.game_type, node.line)
        wanted = node.build.wanted.get(node.key, set())
        for mv, m in entry_moves(board, entry):
            if m.weight <= 0:
                continue
            board.push(mv)
            key = frame_of(board.position_array).key
            deep_wanted = key in wanted and key in node.build.wanted
            if ((board.ply < plies or deep_wanted) and not board.is_game_over()
                    and board.legal_move_ints() != [PASS] and (node.build.game_type, key) not in seen):
                seen.add((node.build.game_type, key))
                out.append(_Node(node.build, key, list(board.move_history)))
            board.pop()
    return out


def build(game_types: Iterable[str], out_dir: str | os.PathLike, settings: BuildSettings, *,
          records: Iterable = (), named_dir: str | os.PathLike | None = None, concurrency: int = 1,
          cluster: str | None = None, fresh: bool = False,
          progress: Callable[[str, int, int], None] | None = None,
          on_entry: Callable[[Entry], None] | None = None) -> BuildReport:
    """Grow (or resume) the books of ``game_types`` in ``out_dir``; see the module docstring.

    ``records`` are GameRecords to merge first (their counts are added once
    per call). ``named_dir`` holds ``named.txt`` (default ``out_dir``).
    ``progress(label, done, total)`` is called as each ply's searches start
    (``done`` 0) and after each one (the CLI draws a bar with it).
    ``on_entry`` is called after each entry is safely on disk. Ctrl-C (or an
    exception from ``on_entry``, as the tests do) stops the build; the
    report says so, and the same call resumes it. ``out_dir`` is locked
    meanwhile: :class:`hiveai.durable.LockedError` if another build holds it.
    """
    with DirectoryLock(out_dir):
        return _build(game_types, Path(out_dir), settings, records, named_dir, concurrency, cluster, fresh,
                      progress, on_entry)


def _build(game_types: Iterable[str], out_dir: Path, settings: BuildSettings, records: Iterable,
           named_dir: str | os.PathLike | None, concurrency: int, cluster: str | None, fresh: bool,
           progress: Callable[[str, int, int], None] | None,
           on_entry: Callable[[Entry], None] | None) -> BuildReport:
    """:func:`build` in a folder this process has locked."""
    start = time.monotonic()
    named = read_named(Path(named_dir) if named_dir is not None else out_dir) if settings.named else []
    records = list(records)
    builds: list[_TypeBuild] = []
    for gts in game_types:
        gt = parse_game_type(gts)
        if gt is None:
            raise ValueError(f"unknown game type {gts!r}")
        gts = game_type_string(gt)
        path = book_path(gt, out_dir)
        book = open_book(path, gt, settings, fresh)
        stats, lines = record_stats(records, gt, settings.plies)
        if stats:
            merge_records(book, stats, lines)
            replace_atomically(path, book.text(), BOOK_ENCODING)
        builds.append(_TypeBuild(gts, path, book, wanted_moves(gt, named, stats, settings.min_count)))

    report = BuildReport()
    backend = None
    frontier = [_Node(b, frame_of(Board(b.game_type).position_array).key, []) for b in builds]
    try:
        for b in builds:
            b.writer = BookWriter(b.path, b.book)
        backend = make_backend(concurrency, cluster)
        while frontier:
            jobs, nodes = [], {}
            for node in frontier:
                board = _board(node.build.game_type, node.line)
                entry = node.build.book.get(node.key)
                extras = _missing_scores(node, board)
                if entry is not None and entry.searched and not extras:
                    continue
                job = Job(node.build.game_type, tuple(node.line), settings.depth, settings.time,
                          settings.multipv, tuple(extras))
                jobs.append(job)
                nodes[job] = node
            label = f"ply {len(frontier[0].line)}"
            if progress is not None and jobs:
                progress(label, 0, len(jobs))
            for done, result in enumerate(backend.imap_unordered(search_job, jobs), 1):
                node = nodes[result.job]
                board = _board(node.build.game_type, node.line)
                old = node.build.book.get(node.key)
                entry = make_entry(board, old, result, node.build.wanted.get(node.key, set()), settings)
                node.build.book.put(entry)
                node.build.writer.append(entry)
                node.build.searched += 1
                node.build.seconds += result.seconds
                if progress is not None:
                    progress(label, done, len(jobs))
                if on_entry is not None:
                    on_entry(entry)
            frontier = _next_frontier(frontier, settings.plies)
    except KeyboardInterrupt:
        report.stopped = True
    finally:
        if backend is not None:
            backend.close()
        for b in builds:
            if b.writer is not None:
                b.writer.close()
    for b in builds:
        if not report.stopped:
            replace_atomically(b.path, b.book.text(), BOOK_ENCODING)  # sorted, one line per key
        report.searched[b.game_type] = b.searched
        report.search_seconds[b.game_type] = b.seconds
        report.positions[b.game_type] = len(b.book)
    report.seconds = time.monotonic() - start
    return report
