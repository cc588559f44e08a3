"""Game records: PGN (Mzinga's dialect) and GameString files, read and written.

One module for every file that holds a game, so the tournament, ``analyse
--game`` and the tests agree on the format. Public API:

* :class:`GameRecord` -- game type, tags, moves (MoveStrings), result and
  move comments. ``to_board()`` replays it, ``to_pgn()`` / ``game_string()``
  write it, ``GameRecord.from_board(board, result=..., tags=...)`` makes one.
* :func:`read_game` (one game) and :func:`read_games` (a GameString file, one
  game a line, e.g. an openings file) -- from a path or from the text itself.
* :func:`write_game` -- to ``.pgn`` (PGN) or any other suffix (one GameString).
* :class:`GameRecordError` -- a malformed record; the message names the file
  and the line (``games/x.pgn:14: ...``).
* ``FINISHED`` -- the BoardStates that end a game (``WhiteWins``, ``BlackWins``, ``Draw``).

The PGN dialect is the one Mzinga writes (``Mzinga.Core.GameRecording``) and
MzingaViewer opens: tag pairs ``[Name "Value"]`` (``GameType``, ``Date``,
``Event``, ``Site``, ``Round``, ``White``, ``Black``, ``Result``, then any
others), a blank line, one ``N. MoveString`` per line, optional ``{comment}``
lines after a move, and for a finished game a blank line and the result.
``Result`` is a UHP BoardState (``WhiteWins``, ``BlackWins``, ``Draw``, or
``InProgress``). The recorded result may differ from the rules' verdict on
the final position: agreed draws, resignations and a tournament's forfeits
and adjudications end in progress with ``Result`` naming the outcome.

Every record read is replayed with hiveai's rules, so an illegal move is
reported with its line. Moves are kept as written; a record that hiveai
wrote reads back equal (``read_game(r.to_pgn()) == r``).

>>> r = read_game("Base;InProgress;White[2];wS1;bS1 wS1-")
>>> r.moves, r.result
(['wS1', 'bS1 wS1-'], 'InProgress')
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from hiveai.board import Board
from hiveai.bug import game_type_string, parse_game_type
from hiveai.errors import HiveError
from hiveai.notation import FINISHED, STATES, parse_state, read_game_string, split_game_string, turn_string

__all__ = ["FINISHED", "GameRecord", "GameRecordError", "read_game", "read_games", "write_game"]

# The tags Mzinga always writes, in its order; GameType and Result are fields
# of GameRecord, the other six live in ``GameRecord.tags`` (default "").
STANDARD_TAGS = ("Date", "Event", "Site", "Round", "White", "Black")
# FINISHED (from hiveai.notation): the BoardStates that end a game, the only
# ones written as a PGN result line.

_TAG_RE = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"(.*)"\s*\]$')
_MOVE_RE = re.compile(r"^(?:(\d+)\s*\.+\s*)?(\S.*)$")


class GameRecordError(HiveError):
    """A malformed game record; the message names the file and the line."""


@dataclass
class GameRecord:
    """One recorded game.

    ``moves`` are MoveStrings as written; ``result`` a BoardState string;
    ``tags`` the PGN tags other than GameType and Result (the six standard
    ones are always present, first, in Mzinga's order); ``comments`` maps
    the number of moves played to the comment written after that move
    (0: before the first move).
    """

    game_type: str = "Base"
    moves: list[str] = field(default_factory=list)
    result: str = "NotStarted"
    tags: dict[str, str] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)
    # Source line of each move, for error messages only (not compared).
    lines: list[int] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        gt = parse_game_type(self.game_type)
        if gt is None:
            raise GameRecordError(f'Unknown game type "{self.game_type}".')
        self.game_type = game_type_string(gt)
        state = parse_state(self.result)
        if state is None:
            raise GameRecordError(f'Unknown result "{self.result}"; expected one of {", ".join(STATES)}.')
        self.result = state
        self.tags = {**{t: "" for t in STANDARD_TAGS}, **self.tags}

    # --- construction -----------------------------------------------------

    @classmethod
    def from_board(cls, board: Board, result: str | None = None, tags: dict[str, str] | None = None,
                   comments: dict[int, str] | None = None) -> GameRecord:
        """The record of ``board``'s game; ``result`` defaults to the board's state."""
        return cls(board.game_type_string, board.move_history, result or board.state,
                   dict(tags or {}), dict(comments or {}))

    # --- use --------------------------------------------------------------

    def to_board(self, name: str = "<record>") -> Board:
        """A Board with every move replayed through hiveai's rules.

        Raises GameRecordError naming the move (and its line, if read from a file).
        """
        board = Board(self.game_type)
        for i, move in enumerate(self.moves):
            try:
                board.play(move)
            except HiveError as e:
                where = f"{name}:{self.lines[i]}" if i < len(self.lines) else name
                raise GameRecordError(f'{where}: unable to play "{move}" (move {i + 1}): {e}') from None
        return board

    def game_string(self) -> str:
        """The GameString, with ``result`` as its state field.

        Readers (Mzinga, hiveai) recompute state and turn from the moves, so
        writing the recorded result there loses nothing and reads back equal.
        """
        return ";".join([self.game_type, self.result, turn_string(len(self.moves)), *self.moves])

    def to_pgn(self) -> str:
        """The record as Mzinga-dialect PGN text (ASCII, ``\\n`` line ends)."""
        out = [_tag("GameType", self.game_type)]
        out += [_tag(t, self.tags[t]) for t in STANDARD_TAGS]
        out.append(_tag("Result", self.result))
        out += [_tag(k, v) for k, v in self.tags.items() if k not in STANDARD_TAGS]
        if self.moves or self.comments.get(0):
            out.append("")
            out += _comment(self.comments.get(0))
            for i, move in enumerate(self.moves, 1):
                out.append(f"{i}. {move}")
                out += _comment(self.comments.get(i))
        if self.result in FINISHED:
            out += ["", self.result]
        return "\n".join(out) + "\n"


def _tag(name: str, value: str) -> str:
    # Mzinga's reader drops every '"' in a value, so one cannot be written.
    return f'[{name} "{value.strip().replace(chr(34), chr(39))}"]'


def _comment(text: str | None) -> list[str]:
    text = (text or "").strip()
    return ["{" + text.replace("}", ")") + "}"] if text else []


# --- reading ------------------------------------------------------------------


def _source(source: str | os.PathLike) -> tuple[str, str]:
    """(text, name) of a path or of the record text itself."""
    if isinstance(source, os.PathLike) or ("\n" not in source and ";" not in source
                                           and not source.lstrip().startswith("[")):
        path = Path(source)
        try:
            return path.read_text(encoding="utf-8-sig"), str(path)
        except FileNotFoundError:
            raise GameRecordError(f"{path}: no such file") from None
        except UnicodeDecodeError as e:
            raise GameRecordError(f"{path}: not a text file ({e.reason} at byte {e.start})") from None
    return source, "<text>"


def read_game(source: str | os.PathLike) -> GameRecord:
    """The one game in a PGN or GameString file, or in its text.

    ``source`` is a path (``str`` or ``Path``) or the record text itself (a
    string holding a newline, a ``;`` or starting with ``[``). PGN is
    recognised by a leading tag line; anything else must be exactly one
    GameString. The moves are replayed; errors name the file and line.
    """
    text, name = _source(source)
    if text.lstrip().startswith("["):
        return _parse_pgn(text, name)
    records = _parse_game_strings(text, name)
    if len(records) != 1:
        raise GameRecordError(f"{name}: expected one game, found {len(records)} (use read_games)")
    return records[0]


def read_games(source: str | os.PathLike) -> list[GameRecord]:
    """Every game in a GameString file (one a line; blank and ``#`` lines skipped), or a PGN's one game."""
    text, name = _source(source)
    if text.lstrip().startswith("["):
        return [_parse_pgn(text, name)]
    return _parse_game_strings(text, name)


def _parse_game_strings(text: str, name: str) -> list[GameRecord]:
    records = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            _, moves = split_game_string(line)
            fields = read_game_string(line)
            record = GameRecord(fields.game_type, moves, fields.state, lines=[no] * len(moves))
        except HiveError as e:
            raise GameRecordError(f"{name}:{no}: {e}") from None
        record.to_board(name)
        records.append(record)
    return records


def _parse_pgn(text: str, name: str) -> GameRecord:
    """Mzinga's reader, made strict enough to point at the bad line."""
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    moves: list[str] = []
    lines: list[int] = []
    comments: dict[int, str] = {}
    result_line: str | None = None
    open_comment: list[str] | None = None
    comment_start = 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
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
            if moves:
                raise GameRecordError(f"{name}:{no}: tag {line!r} after the moves (one game per PGN file)")
            tags[m.group(1)] = m.group(2).strip()
            tag_lines[m.group(1)] = no
            continue
        if parse_state(line) is not None:
            result_line = parse_state(line)
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
    try:
        record = GameRecord(game_type, moves, "NotStarted", tags, comments, lines)
    except GameRecordError as e:
        raise GameRecordError(f"{name}:{tag_lines.get('GameType', 1)}: {e}") from None
    board = record.to_board(name)
    # Mzinga: the result line wins, then the tag, then the final position.
    result = result_line or result_tag
    if result and parse_state(result) is None:
        no = tag_lines["Result"]  # a bad result line is read as a move, so it was the tag
        raise GameRecordError(f'{name}:{no}: unknown result "{result}"; expected one of {", ".join(STATES)}')
    record.result = parse_state(result) if result else board.state
    return record


# --- writing ------------------------------------------------------------------


def write_game(record: GameRecord, path: str | os.PathLike) -> None:
    """Write ``record`` to ``path``: PGN for a ``.pgn`` suffix, else one GameString line."""
    path = Path(path)
    text = record.to_pgn() if path.suffix.lower() == ".pgn" else record.game_string() + "\n"
    path.write_text(text, encoding="ascii", newline="\n")
