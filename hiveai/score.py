"""Search scores: the win bound and how a score is shown.

Scores are ints from the side to move's point of view, in hundredths of "one
enemy piece next to a queen" (:mod:`hiveai.evaluate`). A finished game scores
``WIN - plies`` for the winner (``-(WIN - plies)`` for the loser), so a faster
win scores higher and a slower loss less badly. Plain Python, no numba: the
kernels read these constants, the CLI and the book format scores with them.

>>> format_score(125), format_score(WIN - 3), format_score(-(WIN - 2)), format_score(None)
('+1.25', 'win in 2', 'loss in 1', '-')
"""

from __future__ import annotations

# A won game: far above any static evaluation (those stay within a few
# thousand), and well inside the TT's 32-bit score field.
WIN = 1_000_000
# Scores beyond +-MATE_BOUND are forced results in fewer than 1000 plies (the
# search is at most hiveai.search.MAX_PLY deep), not evaluations.
MATE_BOUND = WIN - 1000


def is_win_score(score: int | None) -> bool:
    """A score that means a forced result (win or loss), not an evaluation."""
    return score is not None and abs(score) > MATE_BOUND


def format_score(score: int | None) -> str:
    """``+1.25`` (hundredths: 1.00 is one enemy piece next to a queen), ``win in 3``
    or ``loss in 2`` (in moves of the side to move), ``-`` for no score."""
    if score is None:
        return "-"
    if score > MATE_BOUND:
        return f"win in {(WIN - score + 1) // 2}"
    if score < -MATE_BOUND:
        return f"loss in {(WIN + score) // 2}"
    return f"{score / 100:+.2f}"


__all__ = ["MATE_BOUND", "WIN", "format_score", "is_win_score"]
