"""Every game played on the board, kept in a SQLite file in the user's data directory.

Each change (a move, an undo, a resignation) is one transaction, committed
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
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["DB_NAME", "GameStore", "StoredGame", "data_dir", "default_path"]

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

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: tuple) -> sqlite3.Cursor:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(sql, args)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return cur

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


def _game(row) -> StoredGame:
    gid, created, updated, gs, settings, outcome = row
    try:
        parsed = json.loads(settings)
    except ValueError:
        parsed = {}
    return StoredGame(gid, created, updated, gs, parsed if isinstance(parsed, dict) else {}, outcome)
