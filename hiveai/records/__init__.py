"""Game records: every file that holds a Hive game, read and written in one place.

Formats read, told apart by content (never by the file's name), several games
a file where the format allows, and zip archives of them:

* **Mzinga PGN** (what MzingaViewer opens) and **hivegame.com PGN** (its
  download, either result style): :mod:`hiveai.records.pgn`;
* **boardspace.net SGF**, in every dialect its archives use: :mod:`hiveai.records.sgf`;
* **UHP GameStrings**, one game a line, and bare **MoveString lists**:
  :mod:`hiveai.records.gamestring`.

Every game is replayed with hiveai's rules (:class:`hiveai.rules.board.Board`); one
that cannot be read or replayed is refused with a :class:`GameRecordError`
naming the file, the move number, the move as written and the rule it breaks.
Formats written (:data:`FORMATS`): ``pgn`` (Mzinga), ``hivegame``,
``gamestring`` and ``sgf``. docs/records.md lists them with examples and the
conventions where the sites differ.

Public API:

* :class:`GameRecord` -- game type, tags, moves (MoveStrings), result,
  comments; ``outcome`` says how the game ended (:class:`hiveai.rules.outcome.Outcome`).
* :func:`read_game` (one game), :func:`read_games` (all, from a file, folder,
  zip or the text itself), :func:`read_all` (refused games too, for batches).
* :func:`write_game` (whole or not at all) and :func:`render` (text of any format).

>>> r = read_game("Base;InProgress;White[2];wS1;bS1 wS1-")
>>> r.moves, r.result
(['wS1', 'bS1 wS1-'], 'InProgress')
>>> render([r], "hivegame").splitlines()[2:]
['[Site "hivegame.com"]', '[White ""]', '[Black ""]', '[Result "InProgress"]', '', '1. wS1 ', '2. bS1 wS1-']
"""

from hiveai.records.files import (
    FORMATS,
    Read,
    read_all,
    read_game,
    read_games,
    read_text,
    record_files,
    render,
    write_game,
)
from hiveai.records.record import FINISHED, STANDARD_TAGS, GameRecord, GameRecordError, parse_termination

__all__ = ["FINISHED", "FORMATS", "STANDARD_TAGS", "GameRecord", "GameRecordError", "Read", "parse_termination",
           "read_all", "read_game", "read_games", "read_text", "record_files", "render", "write_game"]
