"""UHP GameStrings (one game a line) and bare MoveString lists (one move a line).

A **GameString** file holds one game per line, ``GameType;State;Turn;Move;...``
(the Universal Hive Protocol's form: github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol);
blank lines and ``#`` comment lines are skipped. An openings file is one.

A **MoveString list** is one game: one MoveString per line (``wS1``,
``bS1 wS1-``, ``pass``), optionally numbered (``3. wQ -wS1``), ``#`` lines
skipped. It does not say its game type, so it is the smallest one that has
every piece it names (``Base``, then ``+M``, ``+L``, ``+P``).

>>> [r.moves for r in parse_move_list("wS1\\nbM wS1-\\n", "<text>")]
[['wS1', 'bM wS1-']]
>>> parse_move_list("wS1\\nbM wS1-\\n", "<text>")[0].game_type
'Base+M'
"""

from __future__ import annotations

import re

from hiveai.errors import HiveError
from hiveai.rules.notation import read_game_string, split_game_string
from hiveai.records.record import GameRecord, GameRecordError

__all__ = ["parse_game_strings", "parse_move_list"]

_NUMBERED = re.compile(r"^\d+\s*\.+\s*")
# Letters of the expansion pieces, as MoveStrings name them (wM, bL, wP ...).
# What a MoveString looks like (a piece, then a position or nothing; or a pass): a first line
# that does not is no move list at all.
_MOVE_SHAPE = re.compile(r"^(pass|[wb][a-z]\d?(\s+[-/\\]?[wb][a-z]\d?[-/\\]?)?)$", re.IGNORECASE)
_EXPANSION_PIECE = re.compile(r"\b[wb]([MLP])", re.IGNORECASE)


def parse_game_strings(text: str, name: str) -> list[GameRecord | GameRecordError]:
    """Every game of a GameString file: a record, or the error that refuses it."""
    out: list[GameRecord | GameRecordError] = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            try:
                _, moves = split_game_string(line)
                fields = read_game_string(line)
                record = GameRecord(fields.game_type, moves, fields.state, lines=[no] * len(moves),
                                    source=name, format="gamestring")
            except HiveError as e:
                raise GameRecordError(f"{name}:{no}: {e}") from None
            record.to_board(name)
            out.append(record)
        except GameRecordError as e:
            out.append(e)
    return out


def parse_move_list(text: str, name: str) -> list[GameRecord | GameRecordError]:
    """The one game of a MoveString list (see the module docstring)."""
    moves, lines = [], []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            moves.append(" ".join(_NUMBERED.sub("", line).split()))
            lines.append(no)
    if not moves:
        return [GameRecordError(f"{name}: no game in the file")]
    if not _MOVE_SHAPE.match(moves[0]):
        return [GameRecordError(f"{name}:{lines[0]}: Malformed GameString or MoveString {moves[0]!r} "
                                "(nor is the file PGN or SGF)")]
    letters = {m.upper() for m in _EXPANSION_PIECE.findall(" ".join(moves))}
    game_type = "Base" + ("+" + "".join(x for x in "MLP" if x in letters) if letters else "")
    try:
        record = GameRecord(game_type, moves, "NotStarted", lines=lines, source=name, format="moves")
        record.result = record.to_board(name).state
    except GameRecordError as e:
        return [e]
    return [record]
