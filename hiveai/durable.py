"""Record files that a kill at any moment cannot leave half-written.

The tournament's ``games.jsonl`` and the opening books are line files that
grow by appends and are sometimes rewritten whole. Three operations keep
them sound whatever stops the process (Ctrl-C, SIGKILL, a power cut once
``fsync`` has returned):

* :class:`LineAppender` / :func:`append_line` -- one whole line per ``write``,
  then flush and ``fsync``: a line is either on disk or, at worst, cut short
  at the very end of the file.
* :func:`complete_lines` (readers) and :func:`trim_partial_line` (writers,
  before they append) -- a last line without its newline is what a kill
  mid-append leaves. Readers ignore it; writers cut it off and ``fsync``,
  so the next append starts a clean line.
* :func:`replace_atomically` -- write a temporary file of a name no other
  writer uses, ``fsync`` it, rename it over the target and ``fsync`` the
  directory (so the rename itself is durable). A reader sees the old file or
  the new one, never a mix; a failed write removes its temporary file.

For JSON-lines record files (a tournament's or a self-play run's
``games.jsonl``), :func:`read_json_lines` is the resume half: it trims a
cut-short last line and returns the records; :func:`append_json_line` adds one.

Compressed record files (a labelled-position dataset's shards,
:mod:`hiveai.training.dataset`) are a sequence of gzip members, each holding
whole lines: :func:`append_gzip_lines` writes one member in one ``write``
then ``fsync`` (a kill leaves at worst a cut-short last member), and
:func:`read_gzip_lines` reads them back, cutting a cut-short last member off
(``trim``) and refusing any other damage with :class:`RecordLineError` naming
the line. ``gzip -dc`` reads such a file as one text, as it reads any
multi-member gzip file. :func:`rewrite_gzip_lines` packs the lines into one
member (compressing far better) with :func:`replace_atomically_bytes`.

And one guard: :class:`DirectoryLock`, so that two processes never write the
same record files at once (two tournaments started on one ``--out`` would each
append the same scheduled games and race on the rest).

Plain Python, no numba.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import tempfile
import zlib
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

LOCK_FILE = ".lock"


class LockedError(Exception):
    """Another process holds the directory's lock."""


def complete_lines(text: str) -> list[str]:
    """The lines of ``text`` that end in a newline (a cut-short last line is left out).

    >>> complete_lines("a\\nb\\nc")
    ['a', 'b']
    """
    return text.split("\n")[:-1]


def trim_partial_line(path: str | os.PathLike) -> bytes:
    """Cut a last line that has no newline off ``path`` (durably); returns what is left.

    A missing file reads as empty.
    """
    try:
        with open(path, "r+b") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                data = data[: data.rfind(b"\n") + 1]
                f.truncate(len(data))
                f.flush()
                os.fsync(f.fileno())
    except FileNotFoundError:
        return b""
    return data


class LineAppender:
    """Appends whole lines to a file, each on disk before :meth:`append` returns."""

    def __init__(self, path: str | os.PathLike, encoding: str = "utf-8") -> None:
        self.encoding = encoding
        self._f = open(path, "ab")

    def append(self, line: str) -> None:
        """Write ``line`` and its newline in one ``write``, then flush and fsync."""
        self._f.write((line + "\n").encode(self.encoding))
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> LineAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def append_line(path: str | os.PathLike, line: str, encoding: str = "utf-8") -> None:
    """Append one line to ``path`` durably (see :class:`LineAppender`)."""
    with LineAppender(path, encoding) as f:
        f.append(line)


def replace_atomically(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` by ``text`` in one step, durably; creates missing parent directories.

    The text goes to a temporary file beside ``path`` with a name of its own
    (:func:`tempfile.mkstemp`), so two writers of one file never share one; on
    any error (an encoding error, a full disk, Ctrl-C) the temporary file is
    removed and ``path`` is left as it was. Newlines are written as ``\\n`` on
    every platform.
    """
    replace_atomically_bytes(path, text.encode(encoding))


def replace_atomically_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Replace ``path`` by ``data`` in one step, durably (see :func:`replace_atomically`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if hasattr(os, "fchmod"):  # mkstemp makes the file private (0600): give it a new file's mode
            os.fchmod(fd, 0o666 & ~_umask())
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(path.parent)


@functools.cache
def _umask() -> int:
    """The process's umask, read once (by setting it and back: there is no other portable way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class RecordLineError(ValueError):
    """A line of a JSON-lines record file that is not JSON: ``path``, ``line`` (from 1) and ``reason``."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


def read_json_lines(path: str | os.PathLike) -> list[tuple[int, object]]:
    """The records of a JSON-lines file that a writer is about to resume, with their line numbers.

    A last line cut short by a kill is cut off the file first
    (:func:`trim_partial_line`), so the next :func:`append_json_line` starts a
    clean line; blank lines are skipped; any other line that is not JSON raises
    :class:`RecordLineError` naming it. A missing file reads as empty.
    """
    path = Path(path)
    records = []
    for no, line in enumerate(complete_lines(trim_partial_line(path).decode("utf-8")), 1):
        if not line.strip():
            continue
        try:
            records.append((no, json.loads(line)))
        except json.JSONDecodeError as e:
            raise RecordLineError(path, no, f"not JSON ({e})") from None
    return records


def append_json_line(path: str | os.PathLike, record: object) -> None:
    """Append ``record`` as one JSON line, durably (see :class:`LineAppender`)."""
    append_line(path, json.dumps(record))


def _gzip_member(lines: list[str]) -> bytes:
    """One gzip member holding ``lines``, each ending in a newline; the same bytes every time
    (no timestamp in the header)."""
    if any("\n" in line for line in lines):
        raise ValueError("a record line cannot hold a newline")
    return gzip.compress("".join(line + "\n" for line in lines).encode("utf-8"), compresslevel=9, mtime=0)


def append_gzip_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Append ``lines`` to a file of gzip members as one new member, in one ``write``, then
    flush and ``fsync``: on disk whole before this returns, or (after a kill) a cut-short
    last member that :func:`read_gzip_lines` ignores and a writer's ``trim`` cuts off."""
    if not lines:
        return
    data = _gzip_member(lines)
    with open(path, "ab") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def read_gzip_lines(path: str | os.PathLike, *, trim: bool = False) -> list[tuple[int, str]]:
    """The lines of a file of gzip members, each with its number (from 1).

    A last member cut short (what a kill in the middle of :func:`append_gzip_lines`
    leaves) is left out, and with ``trim`` (a writer about to append) cut off the
    file, durably. Anything else, a member that is not gzip, fails its checksum,
    is not UTF-8 or does not end its last line, raises :class:`RecordLineError`
    naming the line it would have started and the byte offset. A missing file
    reads as empty.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    view = memoryview(data)
    lines: list[tuple[int, str]] = []
    at = 0
    chunk = 1 << 16
    while at < len(data):
        member = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer, checked
        parts, fed = [], at
        try:
            while not member.eof and fed < len(data):
                parts.append(member.decompress(view[fed:fed + chunk]))
                fed = min(fed + chunk, len(data))
        except zlib.error as e:
            raise RecordLineError(path, len(lines) + 1, f"damaged compressed data at byte {at} ({e})") from None
        if not member.eof:  # cut short: the last append was killed
            if trim:
                with open(path, "r+b") as f:
                    f.truncate(at)
                    f.flush()
                    os.fsync(f.fileno())
            break
        try:
            text = b"".join(parts).decode("utf-8")
        except UnicodeDecodeError as e:
            raise RecordLineError(path, len(lines) + 1, f"not UTF-8 text ({e.reason})") from None
        if not text.endswith("\n"):
            raise RecordLineError(path, len(lines) + text.count("\n") + 1,
                                  f"the compressed member at byte {at} ends in the middle of a line")
        for line in text[:-1].split("\n"):
            lines.append((len(lines) + 1, line))
        at = fed - len(member.unused_data)
    return lines


def rewrite_gzip_lines(path: str | os.PathLike, lines: list[str]) -> None:
    """Replace ``path`` by ``lines`` packed into one gzip member, atomically
    (:func:`replace_atomically_bytes`): the compact form of a file that grew by appends."""
    replace_atomically_bytes(path, _gzip_member(lines) if lines else b"")


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX: fsync the directory itself)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # a platform that cannot open directories (Windows): the rename is all we have
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = ["DirectoryLock", "LineAppender", "LockedError", "RecordLineError", "append_gzip_lines", "append_json_line",
           "append_line", "complete_lines", "read_gzip_lines", "read_json_lines", "replace_atomically",
           "replace_atomically_bytes", "rewrite_gzip_lines", "trim_partial_line"]


class DirectoryLock:
    """An exclusive lock on a directory (created if missing), held from ``acquire``
    to ``release`` or the end of a ``with`` block, and given up by the OS if the
    process dies. A second holder gets :class:`LockedError` at once, with the
    first one's process id in its message. The lock is ``.lock`` in the directory,
    locked with ``flock`` (``msvcrt.locking`` on Windows); the file stays behind
    and means nothing while no process holds it.
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self._f = None

    def acquire(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        f = open(self.directory / LOCK_FILE, "a+b")
        try:
            if fcntl is not None:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:
                f.seek(0)
                msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            try:
                f.seek(0)
                holder = f.read().decode("ascii", "replace").strip() or "unknown"
            except OSError:  # Windows refuses to read a locked byte
                holder = "unknown"
            f.close()
            raise LockedError(f"{self.directory} is in use by another process (pid {holder})") from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()).encode("ascii"))
        f.flush()
        self._f = f

    def release(self) -> None:
        if self._f is not None:
            self._f.close()  # closing the file drops the lock
            self._f = None

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
