"""Reading records from paths, text, folders and zip archives; writing them safely.

The format is told by content, never by the file's name: ``(;`` starts a
boardspace SGF, ``[`` a PGN (Mzinga's or hivegame.com's), a line starting
with a GameTypeString (``Base``, ``Base+MLP;...``) a GameString file, and
anything else is read as a list of MoveStrings. A zip archive (``PK``) is
opened and each member read the same way.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Iterator

from hiveai.records.gamestring import parse_game_strings, parse_move_list
from hiveai.records.pgn import parse_pgn, to_hivegame, to_pgn
from hiveai.records.record import GameRecord, GameRecordError
from hiveai.records.sgf import parse_sgf, to_sgf

__all__ = ["FORMATS", "Read", "read_all", "read_game", "read_games", "read_text", "record_files", "render",
           "write_game", "write_whole"]


@dataclass(frozen=True)
class Format:
    """A format hiveai writes: its name for ``--to``, what it is, the file suffix, the writer."""

    key: str
    title: str
    suffix: str
    write: Callable[[GameRecord], str]
    # Text between two games in one file.
    between: str = "\n"


def _game_string_line(record: GameRecord) -> str:
    return record.game_string() + "\n"


#: The formats hiveai writes, by their ``hiveai convert --to`` name (``pgn`` first: the default).
FORMATS = {f.key: f for f in (
    Format("pgn", "Mzinga PGN", ".pgn", to_pgn),
    Format("hivegame", "hivegame.com PGN", ".pgn", to_hivegame),
    Format("gamestring", "UHP GameString", ".txt", _game_string_line, between=""),
    Format("sgf", "boardspace SGF", ".sgf", to_sgf, between=""),
)}
# Suffixes read when a folder is given (inside a file or archive, content decides).
RECORD_SUFFIXES = {".sgf", ".pgn", ".txt", ".uhp", ".zip"}
_GAME_TYPE_LINE = re.compile(r"^(base|critters)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Read:
    """One game read: ``record``, or the ``error`` that refused it (its message names file and move)."""

    source: str
    record: GameRecord | None = None
    error: GameRecordError | None = None


def render(records: Iterable[GameRecord], to: str = "pgn") -> str:
    """The text of ``records`` in format ``to`` (a key of :data:`FORMATS`), games one after another."""
    fmt = FORMATS[to]
    return fmt.between.join(fmt.write(r) for r in records)


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if data.lstrip().startswith(b"(;"):
            return data.decode("latin-1")  # old boardspace archives: RE and names in Latin-1
        raise GameRecordError(f"{name}: not a text file ({e.reason} at byte {e.start})") from None


def read_text(text: str, name: str = "<text>") -> list[GameRecord | GameRecordError]:
    """Every game in record ``text``, in whatever format it is written."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("("):
        return parse_sgf(text, name)
    if head.startswith("["):
        return parse_pgn(text, name)
    first = next((line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")),
                 "")
    if not first:
        return [GameRecordError(f"{name}: no game in the file")]
    if _GAME_TYPE_LINE.match(first):
        return parse_game_strings(text, name)
    return parse_move_list(text, name)


def _read_bytes(data: bytes, name: str) -> list[GameRecord | GameRecordError]:
    if data.startswith(b"PK\x03\x04"):
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as e:
            return [GameRecordError(f"{name}: a damaged zip archive ({e})")]
        out: list[GameRecord | GameRecordError] = []
        for member in sorted(i.filename for i in archive.infolist() if not i.is_dir()):
            inner = f"{name}:{member}"
            try:
                out += _read_bytes(archive.read(member), inner)
            except (zipfile.BadZipFile, OSError, RuntimeError) as e:  # RuntimeError: encrypted
                out.append(GameRecordError(f"{inner}: cannot be read from the archive ({e})"))
        return out
    try:
        return read_text(_decode(data, name), name)
    except GameRecordError as e:
        return [e]


def _looks_like_text(source: str) -> bool:
    return "\n" in source or ";" in source or source.lstrip().startswith(("[", "("))


def record_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """The files named, with each folder replaced by the record files in it (sorted, recursively)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in RECORD_SUFFIXES
                          and not any(part.startswith(".") for part in f.relative_to(p).parts))
        else:
            out.append(p)
    return out


def _read_path(path: Path) -> list[GameRecord | GameRecordError]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [GameRecordError(f"{path}: no such file")]
    except IsADirectoryError:
        return [GameRecordError(f"{path}: a folder (give the files, or use hiveai convert)")]
    except OSError as e:
        return [GameRecordError(f"{path}: cannot be read ({e.strerror or e})")]
    return _read_bytes(data, str(path))


def _items(source: str | os.PathLike) -> list[GameRecord | GameRecordError]:
    if isinstance(source, str) and _looks_like_text(source):
        return read_text(source)
    path = Path(source)
    if path.is_dir():
        return [item for f in record_files([path]) for item in _read_path(f)]
    return _read_path(path)


def read_all(sources: Iterable[str | os.PathLike]) -> Iterator[Read]:
    """Every game in ``sources`` (files, folders, zip archives), refused ones included, in order."""
    for source in sources:
        for item in _items(source):
            if isinstance(item, GameRecordError):
                yield Read(str(source), error=item)
            else:
                yield Read(item.source, record=item)


def read_games(source: str | os.PathLike) -> list[GameRecord]:
    """Every game in a record file, folder or zip archive, or in record text itself.

    ``source`` is a path (``str`` or ``Path``) or the text (a string holding
    a newline, a ``;``, or starting with ``[`` or ``(``). Any format hiveai
    reads; the first game refused raises its GameRecordError.
    """
    out = []
    for item in _items(source):
        if isinstance(item, GameRecordError):
            raise item
        out.append(item)
    return out


def read_game(source: str | os.PathLike) -> GameRecord:
    """The one game in a record (see :func:`read_games`); several games are an error.

    >>> r = read_game("Base;InProgress;White[2];wS1;bS1 wS1-")
    >>> r.moves, r.result
    (['wS1', 'bS1 wS1-'], 'InProgress')
    """
    games = read_games(source)
    if len(games) != 1:
        name = "<text>" if isinstance(source, str) and _looks_like_text(source) else str(source)
        raise GameRecordError(f"{name}: expected one game, found {len(games)} (use read_games)")
    return games[0]


def write_whole(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file beside it, then a rename.

    No fsync (unlike :func:`hiveai.durable.replace_atomically`, which keeps the
    tournament's own state): a record written here can be made again from its
    source, and a batch of a thousand fsyncs would take longer than the
    conversion itself.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_game(record: GameRecord, path: str | os.PathLike, to: str | None = None) -> None:
    """Write ``record`` to ``path`` whole or not at all (a temporary file, then a rename).

    ``to`` is a key of :data:`FORMATS`; by default the suffix decides: ``.pgn``
    Mzinga PGN, ``.sgf`` boardspace SGF, anything else one GameString line.
    A PGN that replaces a record of the same game keeps that record's Date
    (a tournament resuming rewrites its games, which were played earlier).
    """
    path = Path(path)
    if to is None:
        to = {".pgn": "pgn", ".sgf": "sgf"}.get(path.suffix.lower(), "gamestring")
    if to in ("pgn", "hivegame") and path.is_file():
        record = _keep_date(record, path)
    write_whole(path, FORMATS[to].write(record))


def _keep_date(record: GameRecord, path: Path) -> GameRecord:
    try:
        old = read_games(path)
    except (GameRecordError, OSError):
        return record
    if len(old) == 1 and old[0].date and (old[0].game_type, old[0].moves) == (record.game_type, record.moves):
        tags = {**record.tags, "Date": old[0].date}
        if old[0].tags.get("Time"):
            tags["Time"] = old[0].tags["Time"]
        return replace(record, tags=tags)
    return record
