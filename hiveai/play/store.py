"""Every game played on the board, and the player's puzzles, kept in a SQLite file in the user's data directory.

Each change (a move, an undo, a resignation, a puzzle move and the ratings it
moves) is one transaction, committed
before the server answers, so closing the tab or killing the server loses
nothing: SQLite's journal rolls an interrupted write back to the last
commit on the next open (write-ahead log, ``synchronous=FULL``: a committed
game survives even a power cut, https://www.sqlite.org/wal.html).

>>> store = GameStore(":memory:")
>>> game = store.create("Base+MLP;NotStarted;White[1]", {"white": "human", "black": "engine"})
>>> store.update(game, "Base+MLP;InProgress;White[2];wA1;bG1 wA1-")
>>> store.get(game).game_string
'Base+MLP;InProgress;White[2];wA1;bG1 wA1-'
>>> [g.id for g in store.recent()] == [game]
True

The puzzles (:mod:`hiveai.play.puzzle_mode` decides what goes in): each attempt
at a puzzle, and the player's and the puzzles' ratings its end moved.

>>> attempt = store.start_attempt("62cb05b5ddf16a39", rated=True)
>>> attempt.played.append("wA2 bS1-"); attempt.status, attempt.score = "failed", 0.0
>>> store.save_attempt(attempt, player=(1400.0, 300.0, 0.06), puzzle=(950.0, 280.0, 0.06))
>>> [(a.puzzle, a.status, a.played) for a in store.attempts()]
[('62cb05b5ddf16a39', 'failed', ['wA2 bS1-'])]
>>> store.puzzle_player().rating, store.puzzle_ratings()["62cb05b5ddf16a39"]
(1400.0, (950.0, 280.0, 0.06))
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

__all__ = ["DB_NAME", "GameStore", "PuzzleAttempt", "PuzzlePlayer", "StoredGame", "data_dir", "default_path"]

DB_NAME = "games.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    game_string TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    outcome TEXT NOT NULL DEFAULT ''
)
"""
# The puzzles: one player (the person at this computer), the puzzles' ratings as attempts moved
# them (a puzzle not in the table still has its file's rating), and every attempt.
_PUZZLE_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS puzzle_player (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        volatility REAL NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}'
    )""",
    """CREATE TABLE IF NOT EXISTS puzzle_ratings (
        puzzle TEXT PRIMARY KEY,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        volatility REAL NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS puzzle_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        puzzle TEXT NOT NULL,
        started REAL NOT NULL,
        updated REAL NOT NULL,
        played TEXT NOT NULL DEFAULT '[]',
        status TEXT NOT NULL DEFAULT 'playing',
        rated INTEGER NOT NULL DEFAULT 0,
        hinted TEXT NOT NULL DEFAULT '',
        wrong TEXT NOT NULL DEFAULT '',
        refutation TEXT NOT NULL DEFAULT '[]',
        score REAL,
        player_before REAL,
        player_after REAL,
        puzzle_before REAL,
        puzzle_after REAL
    )""",
)
_ATTEMPT_COLUMNS = ("id, puzzle, started, updated, played, status, rated, hinted, wrong, refutation, score, "
                    "player_before, player_after, puzzle_before, puzzle_after")


def data_dir() -> Path:
    """hiveai's folder in the user's data directory: ``$XDG_DATA_HOME/hiveai``
    (the XDG Base Directory specification), else ``~/.local/share/hiveai``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "hiveai"


def default_path() -> Path:
    """Where the board keeps its games unless told otherwise."""
    return data_dir() / DB_NAME


@dataclass
class StoredGame:
    """One row: the game as a GameString, how it is played, and its end if it ended off the board."""

    id: int
    created: float
    updated: float
    game_string: str
    settings: dict = field(default_factory=dict)
    outcome: str = ""  # a resignation or an agreed draw: "WhiteWins resignation" (BoardState, Termination value)


@dataclass
class PuzzleAttempt:
    """One attempt at a puzzle.

    ``played``: the moves since the puzzle position (the player's and the replies);
    ``status``: ``playing``, ``solved``, ``failed`` (a wrong move, ``wrong``, with its
    ``refutation``) or ``skipped`` (left before the end); ``rated``: whether its end moves
    the ratings (a puzzle's first attempt); ``hinted``: the last hint, ``PIECE@PLY`` (the piece
    lit, and the moves played when it was asked), or empty if none was;
    ``score``: 1 or 0 once the ratings moved (None before), with the ratings before and after.
    """

    id: int
    puzzle: str
    started: float = 0.0
    updated: float = 0.0
    played: list[str] = field(default_factory=list)
    status: str = "playing"
    rated: bool = False
    hinted: str = ""
    wrong: str = ""
    refutation: list[str] = field(default_factory=list)
    score: float | None = None
    player_before: float | None = None
    player_after: float | None = None
    puzzle_before: float | None = None
    puzzle_after: float | None = None


@dataclass
class PuzzlePlayer:
    """The player's puzzle rating (Glicko-2: rating, deviation, volatility) and chosen filters."""

    rating: float
    rd: float
    volatility: float
    settings: dict = field(default_factory=dict)


class GameStore:
    """The games database. Safe to share between threads (one connection, one lock)."""

    def __init__(self, path: str | os.PathLike) -> None:
        """Open (or create) the database at ``path`` (``":memory:"`` for a throw-away one)."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(_SCHEMA)
        for table in _PUZZLE_SCHEMA:
            self._db.execute(table)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back if it raises."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _write(self, sql: str, args: tuple) -> sqlite3.Cursor:
        with self._transaction() as db:
            return db.execute(sql, args)

    def create(self, game_string: str, settings: dict) -> int:
        """A new game; its id."""
        now = time.time()
        cur = self._write("INSERT INTO games (created, updated, game_string, settings) VALUES (?, ?, ?, ?)",
                          (now, now, game_string, json.dumps(settings)))
        return int(cur.lastrowid)

    def update(self, game_id: int, game_string: str, outcome: str = "", settings: dict | None = None) -> None:
        """Record ``game_id``'s new position (and end, and settings if given)."""
        if settings is None:
            self._write("UPDATE games SET updated = ?, game_string = ?, outcome = ? WHERE id = ?",
                        (time.time(), game_string, outcome, game_id))
        else:
            self._write("UPDATE games SET updated = ?, game_string = ?, outcome = ?, settings = ? WHERE id = ?",
                        (time.time(), game_string, outcome, json.dumps(settings), game_id))

    def get(self, game_id: int) -> StoredGame | None:
        """The game ``game_id``, or None if there is none."""
        with self._lock:
            row = self._db.execute("SELECT id, created, updated, game_string, settings, outcome FROM games "
                                   "WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _game(row)

    def recent(self, limit: int = 50) -> list[StoredGame]:
        """The ``limit`` games changed last, newest first."""
        with self._lock:
            rows = self._db.execute("SELECT id, created, updated, game_string, settings, outcome FROM games "
                                    "ORDER BY updated DESC, id DESC LIMIT ?", (limit,)).fetchall()
        return [_game(r) for r in rows]


    # --- puzzles ---------------------------------------------------------------------------

    def puzzle_player(self) -> PuzzlePlayer | None:
        """The player's puzzle rating and settings, or None before the first attempt or setting."""
        with self._lock:
            row = self._db.execute("SELECT rating, rd, volatility, settings FROM puzzle_player WHERE id = 1").fetchone()
        return None if row is None else PuzzlePlayer(row[0], row[1], row[2], _json(row[3], dict))

    def set_puzzle_settings(self, settings: dict, default: tuple[float, float, float]) -> None:
        """Keep the player's puzzle settings (the filters); ``default``: the rating of a new player."""
        with self._transaction() as db:
            db.execute("INSERT INTO puzzle_player (id, rating, rd, volatility, settings) VALUES (1, ?, ?, ?, ?) "
                       "ON CONFLICT (id) DO UPDATE SET settings = excluded.settings", (*default, json.dumps(settings)))

    def puzzle_ratings(self) -> dict[str, tuple[float, float, float]]:
        """Every puzzle whose rating attempts have moved: its (rating, deviation, volatility)."""
        with self._lock:
            rows = self._db.execute("SELECT puzzle, rating, rd, volatility FROM puzzle_ratings").fetchall()
        return {r[0]: (r[1], r[2], r[3]) for r in rows}

    def start_attempt(self, puzzle: str, rated: bool) -> PuzzleAttempt:
        """A new attempt at ``puzzle``; an attempt still being played is skipped, in the same transaction."""
        now = time.time()
        with self._transaction() as db:
            db.execute("UPDATE puzzle_attempts SET status = 'skipped', updated = ? WHERE status = 'playing'", (now,))
            cur = db.execute("INSERT INTO puzzle_attempts (puzzle, started, updated, rated) VALUES (?, ?, ?, ?)",
                             (puzzle, now, now, int(rated)))
        return PuzzleAttempt(int(cur.lastrowid), puzzle, now, now, rated=rated)

    def save_attempt(self, attempt: PuzzleAttempt, player: tuple[float, float, float] | None = None,
                     puzzle: tuple[float, float, float] | None = None) -> None:
        """Record ``attempt`` as it is now; with ``player`` and ``puzzle`` (their new ratings), the
        ratings too: one transaction, so an attempt is never scored without its ratings, nor twice."""
        attempt.updated = time.time()
        with self._transaction() as db:
            db.execute("UPDATE puzzle_attempts SET updated = ?, played = ?, status = ?, hinted = ?, wrong = ?, "
                       "refutation = ?, score = ?, player_before = ?, player_after = ?, puzzle_before = ?, "
                       "puzzle_after = ? WHERE id = ?",
                       (attempt.updated, json.dumps(attempt.played), attempt.status, attempt.hinted, attempt.wrong,
                        json.dumps(attempt.refutation), attempt.score, attempt.player_before, attempt.player_after,
                        attempt.puzzle_before, attempt.puzzle_after, attempt.id))
            if puzzle is not None:
                db.execute("INSERT INTO puzzle_ratings (puzzle, rating, rd, volatility, attempts) "
                           "VALUES (?, ?, ?, ?, 1) ON CONFLICT (puzzle) DO UPDATE SET rating = excluded.rating, "
                           "rd = excluded.rd, volatility = excluded.volatility, attempts = attempts + 1",
                           (attempt.puzzle, *puzzle))
            if player is not None:
                db.execute("INSERT INTO puzzle_player (id, rating, rd, volatility) VALUES (1, ?, ?, ?) "
                           "ON CONFLICT (id) DO UPDATE SET rating = excluded.rating, rd = excluded.rd, "
                           "volatility = excluded.volatility", player)

    def attempt(self, attempt_id: int) -> PuzzleAttempt | None:
        """Attempt ``attempt_id``, or None."""
        with self._lock:
            row = self._db.execute(f"SELECT {_ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?",
                                   (attempt_id,)).fetchone()
        return None if row is None else _attempt(row)

    def attempts(self, limit: int | None = None, puzzle: str | None = None) -> list[PuzzleAttempt]:
        """The attempts, newest first (at most ``limit``; only ``puzzle``'s if given)."""
        sql = f"SELECT {_ATTEMPT_COLUMNS} FROM puzzle_attempts"
        args: tuple = ()
        if puzzle is not None:
            sql, args = sql + " WHERE puzzle = ?", (puzzle,)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql, args = sql + " LIMIT ?", (*args, limit)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [_attempt(r) for r in rows]


def _json(text: str, kind: type):
    """``text`` read as JSON if it holds a ``kind``, else an empty one (a hand-edited row reads as empty)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return kind()
    return value if isinstance(value, kind) else kind()


def _attempt(row) -> PuzzleAttempt:
    (aid, puzzle, started, updated, played, status, rated, hinted, wrong, refutation, score,
     player_before, player_after, puzzle_before, puzzle_after) = row
    return PuzzleAttempt(aid, puzzle, started, updated, [str(m) for m in _json(played, list)], status, bool(rated),
                         hinted, wrong, [str(m) for m in _json(refutation, list)], score, player_before,
                         player_after, puzzle_before, puzzle_after)


def _game(row) -> StoredGame:
    gid, created, updated, gs, settings, outcome = row
    return StoredGame(gid, created, updated, gs, _json(settings, dict), outcome)
