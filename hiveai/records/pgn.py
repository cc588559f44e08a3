"""PGN: Mzinga's dialect and hivegame.com's, read (several games a file) and written.

**Mzinga** (``Mzinga.Core.GameRecording``; what MzingaViewer opens): tag pairs
``[Name "Value"]`` (``GameType``, ``Date`` as ``YYYY.MM.DD``, ``Event``,
``Site``, ``Round``, ``White``, ``Black``, ``Result``, then any others), a
blank line, one ``N. MoveString`` per line, optional ``{comment}`` lines after
a move, and for a finished game a blank line and the result. ``Result`` is a
UHP BoardState (``WhiteWins``, ``BlackWins``, ``Draw``, ``InProgress``).

**hivegame.com** (its download button, ``apis/src/components/atoms/download_pgn.rs``
in github.com/hiveboardgame/hive): ``GameType``, ``Date`` as
``%d-%b-%Y_%H:%M:%S`` (``05-Mar-2024_14:03:22``), ``Site "hivegame.com"``,
``White``, ``Black``, ``Result``, then ``N. piece destination`` lines and the
result once more. The result is a BoardState, or in chess style (``1-0``,
``0-1``, ``1/2-1/2``) as the site's own importer expects; both are read.

The reader is Mzinga's, made strict enough to point at the bad line: a
record that cannot be read names the file and line. Moves are kept as
written; a record hiveai wrote reads back equal.
"""

from __future__ import annotations

import datetime
import re

from hiveai.rules.notation import FINISHED, STATES, parse_state
from hiveai.records.record import GameRecord, GameRecordError, pgn_tag, to_pgn

__all__ = ["parse_pgn", "to_hivegame", "to_pgn"]

_TAG_RE = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"(.*)"\s*\]$')
_MOVE_RE = re.compile(r"^(?:(\d+)\s*\.+\s*)?(\S.*)$")
# hivegame.com's Date, and the results it writes besides BoardStates.
HIVEGAME_DATE = "%d-%b-%Y_%H:%M:%S"
HIVEGAME_SITE = "hivegame.com"
_CHESS_RESULTS = {"1-0": "WhiteWins", "0-1": "BlackWins", "1/2-1/2": "Draw", "½-½": "Draw"}
# What the site writes for a game whose end it does not know ("Unkown" sic, in its writer).
_SITE_UNKNOWN = {"unkown", "unknown", "adjudicated", "*"}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _result_word(text: str) -> str | None:
    """The BoardState a result (tag value or line) names: BoardState, chess style or the site's words.

    "" for a word that says the result is unknown; None if it is no result at all.
    """
    text = text.strip()
    if text in _CHESS_RESULTS:
        return _CHESS_RESULTS[text]
    if text.lower() in _SITE_UNKNOWN:
        return ""
    return parse_state(text)


def _hivegame_date(text: str) -> tuple[str, str] | None:
    """(``YYYY.MM.DD``, ``HH:MM:SS``) of a hivegame.com Date, else None."""
    try:
        when = datetime.datetime.strptime(text.strip(), HIVEGAME_DATE)
    except ValueError:
        return None
    return when.strftime("%Y.%m.%d"), when.strftime("%H:%M:%S")


def parse_pgn(text: str, name: str) -> list[GameRecord | GameRecordError]:
    """Every game in PGN ``text``: a record, or the error that refuses it.

    A tag line after a game's moves (or after its result) starts the next game.
    """
    games: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    seen_body = False
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("[") and seen_body and _TAG_RE.match(line):
            games.append(current)
            current, seen_body = [], False
        if line and not line.startswith("["):
            seen_body = True
        current.append((no, line))
    games.append(current)
    out: list[GameRecord | GameRecordError] = []
    for lines in games:
        try:
            out.append(_parse_one(lines, name))
        except GameRecordError as e:
            out.append(e)
    return out


def _parse_one(numbered: list[tuple[int, str]], name: str) -> GameRecord:
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    moves: list[str] = []
    lines: list[int] = []
    comments: dict[int, str] = {}
    result_line: str | None = None
    open_comment: list[str] | None = None
    comment_start = 0
    for no, line in numbered:
        if open_comment is not None:
            open_comment.append(line)
            if line.endswith("}"):
                comments[len(moves)] = "\n".join(open_comment)[1:-1].strip()
                open_comment = None
            continue
        if not line:
            continue
        if line.startswith("{"):
            if line.endswith("}"):
                comments[len(moves)] = line[1:-1].strip()
            else:
                open_comment, comment_start = [line], no
            continue
        if result_line is not None:
            raise GameRecordError(f"{name}:{no}: unexpected text after the result line: {line!r}")
        if line.startswith("["):
            m = _TAG_RE.match(line)
            if not m:
                raise GameRecordError(f'{name}:{no}: malformed tag {line!r} (expected [Name "Value"])')
            tags[m.group(1)] = m.group(2).strip()
            tag_lines[m.group(1)] = no
            continue
        word = _result_word(line)
        if word is not None:
            result_line = word
            continue
        m = _MOVE_RE.match(line)
        number, move = m.group(1), m.group(2).strip()
        if number is not None and int(number) != len(moves) + 1:
            raise GameRecordError(f"{name}:{no}: move number {number}, expected {len(moves) + 1}: {line!r}")
        moves.append(" ".join(move.split()))
        lines.append(no)
    if open_comment is not None:
        raise GameRecordError(f"{name}:{comment_start}: comment opened with '{{' is never closed")
    game_type = tags.pop("GameType", "Base")
    result_tag = tags.pop("Result", "")
    hivegame = tags.get("Site", "").lower() == HIVEGAME_SITE
    when = _hivegame_date(tags.get("Date", ""))
    if when is not None:
        hivegame = True
        tags["Date"] = when[0]
        tags.setdefault("Time", when[1])
    try:
        record = GameRecord(game_type, moves, "NotStarted", tags, comments, lines, source=name,
                            format="hivegame" if hivegame else "pgn")
    except GameRecordError as e:
        raise GameRecordError(f"{name}:{tag_lines.get('GameType', 1)}: {e}") from None
    board = record.to_board(name)
    # Mzinga: the result line wins, then the tag, then the final position.
    tag_result = _result_word(result_tag) if result_tag else ""
    if tag_result is None:
        raise GameRecordError(f'{name}:{tag_lines["Result"]}: unknown result "{result_tag}"; expected one of '
                              f'{", ".join(STATES)} (or 1-0, 0-1, 1/2-1/2)')
    record.result = result_line or tag_result or board.state
    return record


# --- writing ------------------------------------------------------------------


def to_hivegame(record: GameRecord) -> str:
    """The record as hivegame.com's download writes it.

    Its six tags, ``N. piece destination`` lines (a first move or a pass
    keeps the writer's trailing space), and the result again for a finished
    game. The date is ``Date`` and ``Time`` (midnight if none) in the site's
    form; other tags and comments have no place there and are left out.
    """
    date = ""
    m = re.fullmatch(r"(\d{4})\.(\d{2})\.(\d{2})", record.date)
    if m:
        year, month, day = (int(g) for g in m.groups())
        if 1 <= month <= 12:
            date = f"{day:02d}-{_MONTHS[month - 1]}-{year}_{record.tags.get('Time') or '00:00:00'}"
    out = [pgn_tag("GameType", record.game_type), pgn_tag("Date", date), pgn_tag("Site", HIVEGAME_SITE),
           pgn_tag("White", record.white), pgn_tag("Black", record.black), pgn_tag("Result", record.result), ""]
    for i, move in enumerate(record.moves, 1):
        piece, _, where = move.partition(" ")
        out.append(f"{i}. {piece} {where}")
    if record.result in FINISHED:
        out += ["", record.result]
    return "\n".join(out) + "\n"

