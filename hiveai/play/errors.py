"""The board's refusal of a request: plain Python, so the server module loads without numba."""

from hiveai.errors import HiveError

__all__ = ["BadRequest"]


class BadRequest(HiveError):
    """A request the board refuses; the message is shown in the page and the game is unchanged."""
