"""``GameRecord``: one recorded game, whatever file it came from or goes to.

A record holds the game type, the moves (UHP MoveStrings), the result (a UHP
BoardState) and PGN-style tags (players, date, site, event ...). Every reader
replays the moves with hiveai's rules, so a record in hand is a legal game.

>>> r = GameRecord("Base", ["wS1", "bS1 wS1-"], "BlackWins",
...                tags={"White": "ann", "Black": "bob", "Termination": "resignation"})
>>> r.white, r.black, str(r.outcome)
('ann', 'bob', 'Black wins (resignation)')
>>> GameRecord("Base", ["wS1"]).outcome is None  # not finished
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hiveai.rules.board import Board
from hiveai.rules.bug import game_type_string, parse_game_type
from hiveai.errors import HiveError
from hiveai.rules.notation import FINISHED, STATES, parse_state, turn_string
from hiveai.rules.outcome import Outcome, Termination

__all__ = ["FINISHED", "STANDARD_TAGS", "GameRecord", "GameRecordError", "parse_termination"]

# The tags Mzinga always writes, in its order; GameType and Result are fields
# of GameRecord, the other six live in ``GameRecord.tags`` (default "").
STANDARD_TAGS = ("Date", "Event", "Site", "Round", "White", "Black")
_TERMINATIONS = {t.value: t for t in Termination}


class GameRecordError(HiveError):
    """A record that cannot be read or replayed; the message names the file, the
    line or move, the move as written and the rule it breaks."""


def parse_termination(text: str) -> Termination | None:
    """The :class:`~hiveai.rules.outcome.Termination` a ``Termination`` tag names, or None.

    The tag holds the word (``resignation``), optionally followed by ``:`` and
    details, as hiveai's tournament writes it.

    >>> parse_termination("Time forfeit: 0 ms left"), parse_termination("what")
    (<Termination.TIME_FORFEIT: 'time forfeit'>, None)
    """
    return _TERMINATIONS.get(text.split(":", 1)[0].strip().lower())


@dataclass
class GameRecord:
    """One recorded game.

    ``moves`` are MoveStrings (as written in a PGN or GameString; canonical
    when converted from another notation); ``result`` a BoardState string;
    ``tags`` the PGN tags other than GameType and Result (the six standard
    ones are always present, first, in Mzinga's order); ``comments`` maps
    the number of moves played to the comment written after that move
    (0: before the first move). How the game ended is the ``Termination``
    tag when the record says (see :attr:`outcome`).
    """

    game_type: str = "Base"
    moves: list[str] = field(default_factory=list)
    result: str = "NotStarted"
    tags: dict[str, str] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)
    # Source line of each move, for error messages only (not compared).
    lines: list[int] = field(default_factory=list, compare=False, repr=False)
    #: Where the record was read from (``games/x.sgf``, ``a.zip:x.sgf``), "" if made here.
    source: str = field(default="", compare=False, repr=False)
    #: The format it was read in (a key of :data:`hiveai.records.FORMATS`, or ``moves``).
    format: str = field(default="", compare=False, repr=False)
    # BoardState of the final position once replayed (saves a replay for ``outcome``).
    _final: str | None = field(default=None, compare=False, repr=False)

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
                   dict(tags or {}), dict(comments or {}), _final=board.state)

    # --- what the record says ---------------------------------------------

    @property
    def white(self) -> str:
        return self.tags.get("White", "")

    @property
    def black(self) -> str:
        return self.tags.get("Black", "")

    @property
    def date(self) -> str:
        """``YYYY.MM.DD`` (PGN's form) or "" if unknown."""
        return self.tags.get("Date", "")

    @property
    def site(self) -> str:
        return self.tags.get("Site", "")

    @property
    def event(self) -> str:
        return self.tags.get("Event", "")

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it is unfinished.

        The ``Termination`` tag says how, when the record has one (a
        resignation, an agreed draw, time); otherwise a final position that
        the rules finish gives ``QUEEN_SURROUNDED`` (``BOTH_SURROUNDED`` for
        a draw), and any other ending is ``UNKNOWN``.
        """
        if self.result not in FINISHED:
            return None
        how = parse_termination(self.tags.get("Termination", ""))
        if how is None:
            if self._final is None:
                self._final = self.to_board().state
            if self._final != self.result:
                how = Termination.UNKNOWN
            else:
                how = Termination.BOTH_SURROUNDED if self.result == "Draw" else Termination.QUEEN_SURROUNDED
        return Outcome.from_result(self.result, how)

    # --- use --------------------------------------------------------------

    def to_board(self, name: str | None = None) -> Board:
        """A Board with every move replayed through hiveai's rules.

        Raises GameRecordError naming the move (and its line, if read from a file).
        """
        name = name or self.source or "<record>"
        board = Board(self.game_type)
        for i, move in enumerate(self.moves):
            try:
                board.play(move)
            except HiveError as e:
                where = f"{name}:{self.lines[i]}" if i < len(self.lines) else name
                raise GameRecordError(f"{where}: move {i + 1} ({move!r}): {e}") from None
        self._final = board.state
        return board

    def game_string(self) -> str:
        """The GameString, with ``result`` as its state field.

        Readers (Mzinga, hiveai) recompute state and turn from the moves, so
        writing the recorded result there loses nothing and reads back equal.
        """
        return ";".join([self.game_type, self.result, turn_string(len(self.moves)), *self.moves])

    def to_pgn(self) -> str:
        """The record as Mzinga-dialect PGN text (see :func:`to_pgn`)."""
        return to_pgn(self)


# Mzinga's PGN is the record's own text form (its tags are the record's), so its
# writer lives here; hiveai.records.pgn reads it and writes hivegame.com's.
def pgn_tag(name: str, value: str) -> str:
    """A PGN tag pair ``[Name "Value"]``."""
    # Mzinga's reader drops every '"' in a value, so one cannot be written.
    return f'[{name} "{value.strip().replace(chr(34), chr(39))}"]'


def _comment(text: str | None) -> list[str]:
    text = (text or "").strip()
    return ["{" + text.replace("}", ")") + "}"] if text else []


def to_pgn(record: GameRecord) -> str:
    """The record as Mzinga-dialect PGN text (ASCII, ``\\n`` line ends)."""
    out = [pgn_tag("GameType", record.game_type)]
    out += [pgn_tag(t, record.tags[t]) for t in STANDARD_TAGS]
    out.append(pgn_tag("Result", record.result))
    out += [pgn_tag(k, v) for k, v in record.tags.items() if k not in STANDARD_TAGS]
    if record.moves or record.comments.get(0):
        out.append("")
        out += _comment(record.comments.get(0))
        for i, move in enumerate(record.moves, 1):
            out.append(f"{i}. {move}")
            out += _comment(record.comments.get(i))
    if record.result in FINISHED:
        out += ["", record.result]
    return "\n".join(out) + "\n"
