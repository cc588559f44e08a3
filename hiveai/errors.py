"""Exceptions raised by the public API.

Every message names the problem in words a Hive player understands; the UHP
server prints them after ``err`` or ``invalidmove`` unchanged.
"""


# Mzinga's wording, which clients and users already know.
GAME_OVER = "The game is over. Try 'newgame' to start a new game."


class HiveError(ValueError):
    """Base class of every error hiveai raises for bad input."""


class GameTypeError(HiveError):
    """An unknown or malformed GameTypeString (e.g. ``Base+X``)."""


class GameStringError(HiveError):
    """A malformed GameString, or one whose move list cannot be replayed."""


class MoveStringError(HiveError):
    """A MoveString that does not parse, or names pieces that cannot be used."""


class IllegalMoveError(HiveError):
    """A well-formed move that the rules forbid in the current position."""


class GameOverError(HiveError):
    """A move was asked for after the game ended."""

    def __init__(self, message: str = GAME_OVER) -> None:
        super().__init__(message)


class SetupError(HiveError):
    """A set-up position that no game could reach (too many pieces of a kind, a hive in two parts, ...)."""


class BadRequest(HiveError):
    """A request the board in the browser (:mod:`hiveai.play`) refuses; the message is shown in the
    page and the game is unchanged."""
