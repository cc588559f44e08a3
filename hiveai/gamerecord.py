"""Game records (the older name of :mod:`hiveai.records`, kept for its callers).

Everything lives in :mod:`hiveai.records`: the readers of every format
(Mzinga and hivegame.com PGN, boardspace SGF, GameStrings, MoveString lists,
zip archives), the writers, and :class:`GameRecord`.
"""

from hiveai.records import (  # noqa: F401 - the public names, re-exported
    FINISHED,
    FORMATS,
    STANDARD_TAGS,
    GameRecord,
    GameRecordError,
    read_all,
    read_game,
    read_games,
    render,
    write_game,
)

__all__ = ["FINISHED", "FORMATS", "STANDARD_TAGS", "GameRecord", "GameRecordError", "read_all", "read_game",
           "read_games", "render", "write_game"]
