"""Search scores: the win bound, how a score is shown, and score values that know a win from an evaluation.

Scores are ints from the side to move's point of view, in hundredths of "one
enemy piece next to a queen" (:mod:`hiveai.evaluation.linear`). A finished game scores
``WIN - plies`` for the winner (``-(WIN - plies)`` for the loser), so a faster
win scores higher and a slower loss less badly. Plain Python, no numba: the
kernels read these constants, the CLI and the book format scores with them.

>>> format_score(125), format_score(WIN - 3), format_score(-(WIN - 2)), format_score(None)
('+1.25', 'win in 2', 'loss in 1', '-')

For the library, python-chess's shape: a :class:`Score` is either :class:`Cp`
(an evaluation, hundredths) or :class:`Win` (a forced result in N plies; a
negative N is a loss), and a :class:`PovScore` pairs a score with the side it
is seen from, so ``.white()``, ``.black()`` and ``.relative`` give each view:

>>> pov = PovScore(Score.from_int(WIN - 3), BLACK)
>>> pov.relative, pov.white(), pov.black()
(Win(3), Win(-3), Win(3))
>>> pov.black().is_win(), pov.white().is_loss(), pov.relative.plies(), str(pov.relative)
(True, True, 3, 'win in 2')
>>> Cp(40) > Cp(-10), Win(5) > Cp(900) > Win(-2), Win(3) > Win(5), Win(-5) > Win(-3)
(True, True, True, True)
"""

from __future__ import annotations

import functools

from hiveai.rules.bug import BLACK, WHITE

# A won game: far above any static evaluation (those stay within a few
# thousand), and well inside the TT's 32-bit score field.
WIN = 1_000_000
# Scores beyond +-MATE_BOUND are forced results in fewer than 1000 plies (the
# search is at most hiveai.search.searcher.MAX_PLY deep), not evaluations.
MATE_BOUND = WIN - 1000


def is_win_score(score: int | None) -> bool:
    """A score that means a forced result (win or loss), not an evaluation."""
    return score is not None and abs(score) > MATE_BOUND


def format_score(score: int | None) -> str:
    """``+1.25`` (hundredths: 1.00 is one enemy piece next to a queen), ``win in 3``
    or ``loss in 2`` (in moves of the side to move), ``-`` for no score.

    >>> format_score(-50), format_score(WIN - 5)
    ('-0.50', 'win in 3')
    """
    if score is None:
        return "-"
    if score > MATE_BOUND:
        return f"win in {(WIN - score + 1) // 2}"
    if score < -MATE_BOUND:
        return f"loss in {(WIN + score) // 2}"
    return f"{score / 100:+.2f}"


@functools.total_ordering
class Score:
    """A search score from one side's point of view: :class:`Cp` or :class:`Win`.

    Scores order as the side would rank them: a win sooner above a win later,
    any win above any evaluation, any evaluation above any loss, a loss later
    above a loss sooner. ``-score`` is the opponent's view.

    >>> Score.from_int(125), Score.from_int(WIN - 4), Score.from_int(-(WIN - 1))
    (Cp(125), Win(4), Win(-1))
    >>> Score.from_int(WIN - 4).to_int() == WIN - 4
    True
    """

    __slots__ = ()

    @staticmethod
    def from_int(score: int) -> Score:
        """The score a search int stands for (``WIN - plies`` for a win, see the module)."""
        if score > MATE_BOUND:
            return Win(WIN - score)
        if score < -MATE_BOUND:
            return Win(-(WIN + score))
        return Cp(score)

    def to_int(self) -> int:
        """The search int of this score (the inverse of :meth:`from_int`)."""
        raise NotImplementedError

    def is_win(self) -> bool:
        """Whether this is a forced win (not a loss, not an evaluation)."""
        return False

    def is_loss(self) -> bool:
        """Whether this is a forced loss."""
        return False

    def plies(self) -> int | None:
        """Plies to the forced result (negative: a loss), None for an evaluation."""
        return None

    def cp(self) -> int | None:
        """The evaluation in hundredths, None for a forced result."""
        return None

    def __neg__(self) -> Score:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Score) and self.to_int() == other.to_int()

    def __lt__(self, other: Score) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self.to_int() < other.to_int()

    def __hash__(self) -> int:
        return hash(self.to_int())

    def __str__(self) -> str:
        return format_score(self.to_int())


class Cp(Score):
    """An evaluation in hundredths of "one enemy piece next to a queen".

    >>> Cp(125), str(Cp(125)), -Cp(125), Cp(125).cp()
    (Cp(125), '+1.25', Cp(-125), 125)
    """

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        if abs(value) > MATE_BOUND:
            raise ValueError(f"an evaluation lies within +-{MATE_BOUND}, not {value}")
        self.value = int(value)

    def to_int(self) -> int:
        return self.value

    def cp(self) -> int | None:
        return self.value

    def __neg__(self) -> Cp:
        return Cp(-self.value)

    def __repr__(self) -> str:
        return f"Cp({self.value})"


class Win(Score):
    """A forced result: the side wins in ``plies`` plies, or loses in ``-plies``.

    A win in 3 plies is the side's move, the reply, and the winning move:
    two of its own moves, as :func:`format_score` counts.

    >>> Win(3), str(Win(3)), -Win(3), str(Win(-2)), Win(-2).is_loss()
    (Win(3), 'win in 2', Win(-3), 'loss in 1', True)
    """

    __slots__ = ("value",)

    def __init__(self, plies: int) -> None:
        if plies == 0 or abs(plies) >= WIN - MATE_BOUND:
            raise ValueError(f"a forced result is 1 to {WIN - MATE_BOUND - 1} plies away (negative: a loss), "
                             f"not {plies}")
        self.value = int(plies)

    def to_int(self) -> int:
        return WIN - self.value if self.value > 0 else -WIN - self.value

    def is_win(self) -> bool:
        return self.value > 0

    def is_loss(self) -> bool:
        return self.value < 0

    def plies(self) -> int | None:
        return self.value

    def __neg__(self) -> Win:
        return Win(-self.value)

    def __repr__(self) -> str:
        return f"Win({self.value})"


class PovScore:
    """A score seen from ``turn``'s side (the side to move of the searched position).

    >>> pov = PovScore(Cp(30), WHITE)
    >>> pov.white(), pov.black(), pov.pov(BLACK), pov.turn
    (Cp(30), Cp(-30), Cp(-30), 0)
    >>> pov
    PovScore(Cp(30), WHITE)
    """

    __slots__ = ("relative", "turn")

    def __init__(self, relative: Score, turn: int) -> None:
        if turn not in (WHITE, BLACK):
            raise ValueError(f"turn must be WHITE (0) or BLACK (1), not {turn!r}")
        self.relative = relative
        """The score from the point of view of the side to move."""
        self.turn = turn
        """The side :attr:`relative` is seen from."""

    def pov(self, colour: int) -> Score:
        """The score from ``colour``'s point of view."""
        return self.relative if colour == self.turn else -self.relative

    def white(self) -> Score:
        """The score from White's point of view."""
        return self.pov(WHITE)

    def black(self) -> Score:
        """The score from Black's point of view."""
        return self.pov(BLACK)

    def is_win(self) -> bool:
        """Whether either side has a forced result."""
        return self.relative.plies() is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PovScore) and self.white() == other.white()

    __hash__ = None  # type: ignore[assignment]  # like python-chess: compared, not hashed

    def __repr__(self) -> str:
        return f"PovScore({self.relative!r}, {('WHITE', 'BLACK')[self.turn]})"


def int_score(score: PovScore | None) -> int | None:
    """The search's int for a result's score, from the side to move's view (None for none):
    what the book, the labels and UHP's log lines store.

    >>> int_score(PovScore(Win(3), BLACK)) == WIN - 3, int_score(PovScore(Cp(-40), WHITE)), int_score(None)
    (True, -40, None)
    """
    return None if score is None else score.relative.to_int()


__all__ = ["MATE_BOUND", "WIN", "Cp", "PovScore", "Score", "Win", "format_score", "int_score", "is_win_score"]
