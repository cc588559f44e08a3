"""The layout of a tournament's output folder (``--out``): file names and where each game's files go.

One place for it, so the runner that writes the folder and the report that
links into it agree (and ``hiveai tune`` names its record file the same way):

* ``tournament.json`` (:data:`CONFIG_FILE`) -- the configuration; ``--resume`` checks it matches.
* ``games.jsonl`` (:data:`GAMES_FILE`) -- one JSON line per finished game, the record of truth.
* ``pgn/<id>-<white>-<black>.pgn`` (:func:`pgn_path`) -- each game in Mzinga's PGN dialect.
* ``logs/<id>.log`` (:func:`log_path`) -- the engines' chatter: every command, reply and stderr line.
* ``standings.txt`` (:data:`STANDINGS_FILE`) -- the standings so far.
* ``report.html`` (:data:`REPORT_FILE`) and ``replays/<id>.html`` (:func:`replay_path`) -- the same as
  web pages, each game with its replay page.

A game is named by its record (the dict of a ``games.jsonl`` line), of which only
``id``, ``white`` and ``black`` are read.

>>> record = {"id": "g00003", "white": "d1", "black": "d2"}
>>> pgn_path(Path("out"), record).as_posix(), replay_path(Path("out"), record).as_posix()
('out/pgn/g00003-d1-d2.pgn', 'out/replays/g00003.html')

Plain Python, cheap to import.
"""

from __future__ import annotations

from pathlib import Path

CONFIG_FILE = "tournament.json"
GAMES_FILE = "games.jsonl"
STANDINGS_FILE = "standings.txt"
REPORT_FILE = "report.html"
PGN_DIR = "pgn"
LOG_DIR = "logs"
REPLAY_DIR = "replays"
# The folders the runner creates, one per kind of per-game file.
GAME_DIRS = (PGN_DIR, LOG_DIR, REPLAY_DIR)


def pgn_path(out: Path, record: dict) -> Path:
    """Where a finished game's PGN goes."""
    return out / PGN_DIR / f"{record['id']}-{record['white']}-{record['black']}.pgn"


def log_path(out: Path, record: dict) -> Path:
    """Where a game's log (the engines' transcript) goes."""
    return out / LOG_DIR / f"{record['id']}.log"


def replay_path(out: Path, record: dict) -> Path:
    """Where the replay page of a finished game goes."""
    return out / REPLAY_DIR / f"{record['id']}.html"
