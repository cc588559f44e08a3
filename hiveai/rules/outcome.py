"""How a game ended: the one outcome type of the library, the records, the tournament and the board.

A game that is over has an :class:`Outcome`: the winner (:data:`WHITE`, :data:`BLACK`,
or ``None`` for a draw) and the :class:`Termination`, the way it ended. A game still
in progress has none (``None`` where an outcome is asked for).

Plain Python on purpose (no numba, no rules engine): the tournament's standings and
the record readers load it without compiling anything.

>>> o = Outcome(WHITE, Termination.QUEEN_SURROUNDED)
>>> o.result, o.points(WHITE), o.points(BLACK)
('WhiteWins', 1.0, 0.0)
>>> Outcome(None, Termination.AGREED_DRAW).result
'Draw'
>>> Outcome.from_result("BlackWins", Termination.RESIGNATION)
Outcome(winner=1, termination=<Termination.RESIGNATION: 'resignation'>)
>>> str(Outcome(BLACK, Termination.TIME_FORFEIT))
'Black wins (time forfeit)'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hiveai.rules.bug import BLACK, COLOUR_NAMES, WHITE

__all__ = ["BLACK", "FORFEITS", "WHITE", "Outcome", "Termination", "points"]

# The UHP BoardStates of a finished game (the Universal Hive Protocol's GameString).
WHITE_WINS, BLACK_WINS, DRAW = "WhiteWins", "BlackWins", "Draw"


class Termination(enum.StrEnum):
    """The way a game ended: the one set of game-end reasons of the library, the records, the
    board, self-play and the tournament.

    Each value is the word written down: the ``reason`` field of a tournament's ``games.jsonl``
    and of ``hiveai tune``'s self-play records, a PGN's ``Termination`` tag. A Termination is a
    ``str`` equal to its value, so records written as plain text compare and read back as they are.

    >>> Termination.QUEEN_SURROUNDED.value, Termination("resignation")
    ('queen surrounded', <Termination.RESIGNATION: 'resignation'>)
    >>> Termination.HANG == "hang", Termination.HANG in FORFEITS, "max plies" in FORFEITS
    (True, True, False)
    """

    #: One queen is surrounded on all six sides (the rules' win).
    QUEEN_SURROUNDED = "queen surrounded"
    #: Both queens are surrounded by the same move (the rules' draw).
    BOTH_SURROUNDED = "both queens surrounded"
    #: The same position with the same side to move for the third time (a draw where
    #: the players or the referee apply that convention; UHP itself has no such rule):
    #: :meth:`hiveai.rules.board.Board.is_repetition`.
    REPETITION = "threefold repetition"
    #: An engine declared the game drawn by repetition and the referee's own count of the
    #: position confirmed it.
    ENGINE_DRAW = "draw declared by engine"
    #: The game reached the referee's or the self-play's limit of plies: a draw.
    MAX_PLIES = "max plies"
    #: The players agreed to a draw.
    AGREED_DRAW = "agreed draw"
    #: A player resigned.
    RESIGNATION = "resignation"
    #: A player ran out of time.
    TIME_FORFEIT = "time forfeit"
    #: A player (an engine) played an illegal move.
    ILLEGAL_MOVE = "illegal move"
    #: An engine's process died or closed its pipes.
    CRASH = "crash"
    #: An engine did not answer in time (no start-up banner, no ``ok``).
    HANG = "hang"
    #: An engine answered with something that is no move or no GameString.
    UNPARSEABLE_OUTPUT = "unparseable output"
    #: An engine answered ``err`` or ``invalidmove``, or refused a legal move or an option.
    ENGINE_ERROR = "engine error"
    #: An engine broke the rules or the protocol in a way the record does not name; the other
    #: side wins.
    FORFEIT = "forfeit"
    #: An arbiter ended the game for a reason the record does not name.
    ADJUDICATION = "adjudication"
    #: The record names the result but not how it came about (Mzinga's PGN has no tag
    #: for it, and a boardspace.net game may end without a word of why).
    UNKNOWN = "unknown"


#: The ways to lose a game by a player's fault rather than on the board: the other side wins
#: (a tournament's record names the loser in its ``forfeit`` field).
FORFEITS = frozenset({Termination.TIME_FORFEIT, Termination.ILLEGAL_MOVE, Termination.CRASH, Termination.HANG,
                      Termination.UNPARSEABLE_OUTPUT, Termination.ENGINE_ERROR, Termination.FORFEIT})


@dataclass(frozen=True)
class Outcome:
    """A finished game: ``winner`` is :data:`WHITE`, :data:`BLACK` or ``None`` (a draw).

    >>> Outcome(BLACK, Termination.QUEEN_SURROUNDED).winner == BLACK
    True
    """

    winner: int | None
    termination: Termination

    def __post_init__(self) -> None:
        if self.winner not in (WHITE, BLACK, None):
            raise ValueError(f"winner must be WHITE (0), BLACK (1) or None, not {self.winner!r}")
        if not isinstance(self.termination, Termination):
            raise TypeError(f"termination must be a Termination, not {self.termination!r}")

    @property
    def result(self) -> str:
        """The UHP BoardState: ``WhiteWins``, ``BlackWins`` or ``Draw``."""
        return DRAW if self.winner is None else (WHITE_WINS, BLACK_WINS)[self.winner]

    def points(self, colour: int) -> float:
        """What the game scores for ``colour``: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return points(self.result, colour)

    @classmethod
    def from_result(cls, result: str, termination: Termination) -> Outcome:
        """The outcome of a finished BoardState (``WhiteWins``, ``BlackWins``, ``Draw``)."""
        winners = {WHITE_WINS: WHITE, BLACK_WINS: BLACK, DRAW: None}
        if result not in winners:
            raise ValueError(f"not a finished game's BoardState: {result!r}")
        return cls(winners[result], termination)

    def __str__(self) -> str:
        who = "Draw" if self.winner is None else f"{COLOUR_NAMES[self.winner]} wins"
        return f"{who} ({self.termination.value})"


def points(result: str, colour: int) -> float:
    """Points for ``colour`` (:data:`WHITE` or :data:`BLACK`) from a finished BoardState.

    >>> points("WhiteWins", BLACK), points("Draw", WHITE)
    (0.0, 0.5)
    """
    if result == DRAW:
        return 0.5
    if result in (WHITE_WINS, BLACK_WINS):
        return 1.0 if (result == WHITE_WINS) == (colour == WHITE) else 0.0
    raise ValueError(f"not a finished game's BoardState: {result!r}")
