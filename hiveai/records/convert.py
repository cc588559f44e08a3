"""Batch conversion of game records (what ``hiveai convert`` runs).

Reads every game of the inputs (files, folders, zip archives; any format),
writes each in the format asked for, and reports what it read and refused.
A refused game does not stop the batch. Every output file is written whole
or not at all (see :func:`hiveai.records.files.write_whole`).

* no output: the games' text goes to ``emit`` (stdout), each game once it is
  converted in full;
* an output folder (an existing one, or a path ending in ``/``): one file per
  game, named after the file it came from (``x.sgf`` -> ``x.pgn``; ``x-2.pgn``
  ... when a file holds several games or two files share a name);
* an output file: every game in that one file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from hiveai.errors import HiveError
from hiveai.records.files import FORMATS, read_all, write_whole
from hiveai.text import plural

__all__ = ["ConvertReport", "convert"]


@dataclass
class ConvertReport:
    """What a batch did: games read, written, refused (with why), files written."""

    to: str
    read: int = 0
    written: int = 0
    refused: list[str] = field(default_factory=list)
    outputs: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        """One line: ``convert: 20 games read, 19 written as Mzinga PGN, 1 refused``."""
        where = f" to {plural(len(self.outputs), 'file')}" if self.outputs else ""
        return (f"convert: {plural(self.read, 'game')} read, {self.written:,} written as {FORMATS[self.to].title}"
                f"{where}, {len(self.refused):,} refused")


def _names(stem_of: list[str], suffix: str) -> list[str]:
    """A distinct file name per game: the source's stem, numbered where stems repeat."""
    seen: dict[str, int] = {}
    out = []
    for stem in stem_of:
        key = stem.lower()
        seen[key] = seen.get(key, 0) + 1
        out.append(stem + (f"-{seen[key]}" if seen[key] > 1 else "") + suffix)
    return out


def _stem(source: str) -> str:
    return Path(source.rsplit(":", 1)[-1].split("#", 1)[0]).stem or "game"


def convert(inputs: Iterable[str | os.PathLike], to: str = "pgn", out: str | os.PathLike | None = None,
            emit: Callable[[str], None] = lambda text: print(text, end=""),
            refused: Callable[[str], None] = lambda message: None) -> ConvertReport:
    """Convert every game in ``inputs`` to format ``to`` (a key of :data:`FORMATS`).

    ``out`` is None (text to ``emit``), a folder or a file (see the module
    docstring). ``refused(message)`` is called for each game refused, with
    the message naming the file, the move and the rule.
    """
    fmt = FORMATS[to]
    report = ConvertReport(to)
    folder = out is not None and (Path(out).is_dir() or str(out).endswith(("/", os.sep)))
    texts: list[tuple[str, str]] = []  # (source, converted text), for files written at the end
    for item in read_all(inputs):
        report.read += 1
        if item.error is not None:
            report.refused.append(str(item.error))
            refused(str(item.error))
            continue
        try:
            text = fmt.write(item.record)
        except HiveError as e:  # a game the format cannot hold (an SGF past column Z)
            report.refused.append(str(e))
            refused(str(e))
            continue
        report.written += 1
        if out is None:
            emit((fmt.between if report.written > 1 else "") + text)
        else:
            texts.append((item.source, text))
    if out is not None and folder:
        Path(out).mkdir(parents=True, exist_ok=True)
        for name, (_, text) in zip(_names([_stem(s) for s, _ in texts], fmt.suffix), texts):
            path = Path(out) / name
            write_whole(path, text)
            report.outputs.append(path)
    elif out is not None and texts:
        write_whole(out, fmt.between.join(text for _, text in texts))
        report.outputs.append(Path(out))
    return report

