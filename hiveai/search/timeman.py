"""Time management: how long a search may think (:class:`Limit`), how it is stopped
(:class:`StopHandle`), UHP's TimeSpans, and the deadlines a search checks.

:class:`Limit` is python-chess's ``chess.engine.Limit``: one value serves hiveai's own
engine (:class:`hiveai.player.Engine`, :func:`hiveai.think`) and any UHP engine
(:mod:`hiveai.engine`). Set any mix of the three fields; the search stops at the
first one reached. A limit with no field set means "until stopped" for the engine
(a bare ``bestmove``), "the default depth" for :func:`hiveai.think`, and is refused
by a UHP engine (UHP has no bare search that ends by itself).

>>> Limit(depth=4)
Limit(depth=4)
>>> Limit(time=0.5, nodes=10_000)
Limit(time=0.5, nodes=10000)
>>> Limit(time=-1)
Traceback (most recent call last):
...
ValueError: Limit time must be a number of seconds >= 0, not -1

A :class:`StopHandle` lets another thread (or a signal handler) end a search at
once; the search answers with the best move found so far.

UHP clients give the budget of one move as a .NET ``TimeSpan`` string
(``bestmove time 00:00:05``). MzingaViewer formats it with the default
``[-][d.]hh:mm:ss[.fffffff]`` layout, so fractions (``00:00:02.5000000``) and
zero (``00:00:00``) do occur and must work (docs/protocol-notes.md, "bestmove").
:func:`parse_timespan` reads that layout (the engine's side);
:func:`format_timespan` writes it (the client's side: the tournament referee).

The rule, as in Stockfish's time manager: no new iteration starts after
``TIME_USAGE * T`` (the *soft* deadline), and the running one is stopped at
``T`` minus a small reply margin (the *hard* deadline). An iteration cut short
still counts: its first root move is the previous best, and any move it proves
better is played. So a search ends between the two deadlines, unless it runs
out of depth or proves a result first. ``T = 0`` means
"answer now": both deadlines are already past, so a search returns its
fallback move without thinking.

Internally a search checks a :class:`Budget`: the limit turned into deadlines
(``time.monotonic()`` values) with the stop handle, which is the arithmetic above.
It is time management's working form of a :class:`Limit`, not a second limit type:
library users give a :class:`Limit`.

This module is plain Python (no numba) so the UHP front end can import it
before the banner.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

__all__ = ["Limit", "StopHandle", "format_timespan", "parse_timespan"]

# Fraction of the budget after which no new iteration starts; the running one
# goes on to the hard deadline. A per-move budget cannot be saved for a later
# move, so the aim is to use nearly all of it.
TIME_USAGE = 0.9

# Seconds kept back from the hard deadline for writing the answer and for the
# client reading it; also capped at TIME_USAGE's slack so tiny budgets stay sane.
REPLY_MARGIN = 0.02

# A .NET TimeSpan counts ticks of 100 ns: at most 7 fraction digits.
TICKS_PER_SECOND = 10_000_000

# .NET TimeSpan "c"/general layout: [-][d.]hh:mm[:ss[.fffffff]]. The fraction
# separator is a dot in the invariant culture; a comma is accepted too because
# .NET's culture-sensitive parsers may write one.
_TIMESPAN = re.compile(
    r"""^(?P<sign>-)?
        (?:(?P<days>\d+)\.)?
        (?P<hours>\d{1,2}):(?P<minutes>\d{1,2})
        (?::(?P<seconds>\d{1,2})(?:[.,](?P<fraction>\d{1,7}))?)?$""",
    re.VERBOSE,
)


def parse_timespan(text: str) -> float:
    """Seconds in a .NET TimeSpan string such as ``00:00:02.5000000``.

    Accepts ``[-][d.]hh:mm[:ss[.fffffff]]`` with .NET's ranges (hours < 24,
    minutes and seconds < 60, at most 7 fraction digits). A bare number is
    rejected: .NET would read ``5`` as five *days*, which no client means.
    Raises ValueError with a readable message.
    """
    m = _TIMESPAN.match(text.strip())
    if not m:
        raise ValueError(f'"{text}" is not a time span like 00:00:05 or 00:00:02.5')
    hours, minutes = int(m["hours"]), int(m["minutes"])
    seconds = int(m["seconds"] or 0)
    if hours > 23 or minutes > 59 or seconds > 59:
        raise ValueError(f'"{text}" has a field out of range (hh < 24, mm < 60, ss < 60)')
    total = int(m["days"] or 0) * 86400 + hours * 3600 + minutes * 60 + seconds
    if m["fraction"]:
        total += int(m["fraction"]) / 10 ** len(m["fraction"])
    return -total if m["sign"] else float(total)


def format_timespan(seconds: float) -> str:
    """``hh:mm:ss[.fffffff]``, the .NET TimeSpan layout UHP's ``bestmove time`` takes.

    Seconds are rounded to .NET's tick (100 ns); the fraction is written only
    when there is one, with all seven digits, as .NET does. The inverse of
    :func:`parse_timespan` for budgets under a day:

    >>> format_timespan(90), format_timespan(2.5)
    ('00:01:30', '00:00:02.5000000')
    >>> parse_timespan(format_timespan(0.3))
    0.3
    """
    ticks = round(seconds * TICKS_PER_SECOND)
    whole, frac = divmod(ticks, TICKS_PER_SECOND)
    h, rem = divmod(whole, 3600)
    m, s = divmod(rem, 60)
    text = f"{h:02d}:{m:02d}:{s:02d}"
    return text + f".{frac:07d}" if frac else text


@dataclass(frozen=True)
class Limit:
    """A search limit: ``time`` in seconds, ``depth`` in plies, ``nodes`` searched.

    Fields left at None do not limit. Immutable and hashable.

    >>> limit = Limit(time=1)
    >>> limit.time, limit.depth, limit.nodes, limit.is_empty()
    (1, None, None, False)
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        if self.time is not None and (isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                                      or not self.time >= 0):
            raise ValueError(f"Limit time must be a number of seconds >= 0, not {self.time!r}")
        for name in ("depth", "nodes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"Limit {name} must be an int >= 0, not {value!r}")

    def is_empty(self) -> bool:
        """Whether no field is set.

        >>> Limit().is_empty(), Limit(depth=0).is_empty()
        (True, False)
        """
        return self.time is None and self.depth is None and self.nodes is None

    def __repr__(self) -> str:
        fields = [f"{name}={getattr(self, name)!r}" for name in ("time", "depth", "nodes")
                  if getattr(self, name) is not None]
        return f"Limit({', '.join(fields)})"


class StopHandle:
    """Lets another thread stop a running search (or one not yet started).

    Safe to call from any thread or a signal handler: a plain attribute rather
    than ``threading.Event``, since a signal handler runs between bytecodes of
    the main thread, possibly while that thread is inside an Event's lock, so
    touching locks from the handler could deadlock. Searches poll
    :meth:`is_set`. One handle serves one search at a time; :meth:`clear`
    makes it reusable.

    >>> handle = StopHandle()
    >>> handle.is_set(), handle.stop(), handle.is_set()
    (False, None, True)
    >>> handle.clear(), handle.is_set()
    (None, False)
    """

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def stop(self) -> None:
        """Ask the search to answer now (with the best move found so far)."""
        self._set = True

    def is_set(self) -> bool:
        """Whether a stop was asked for."""
        return self._set

    def clear(self) -> None:
        """Forget the stop request, to use the handle for another search."""
        self._set = False


@dataclass
class Budget:
    """What one search may spend, as the search checks it: time management's working
    form of a :class:`Limit` (internal; library users give a :class:`Limit`).

    ``depth`` and ``nodes`` are the limit's (None: unlimited). ``soft``/``hard``
    are ``time.monotonic()`` deadlines (None: no time limit). ``infinite`` marks
    an empty limit, which answers only when ``stop`` is set, like UCI's ``go
    infinite`` or a bare ``bestmove``.

    >>> budget = Budget.of(Limit(time=10), StopHandle(), start=100.0)
    >>> round(budget.soft, 2), round(budget.hard, 2), budget.infinite
    (109.0, 109.98, False)
    >>> Budget.of(Limit(), StopHandle()).infinite
    True
    """

    depth: int | None = None
    nodes: int | None = None
    soft: float | None = None
    hard: float | None = None
    infinite: bool = False
    stop: StopHandle = field(default_factory=StopHandle)

    @classmethod
    def of(cls, limit: Limit, stop: StopHandle, start: float | None = None,
           usage: float = TIME_USAGE, margin: float = REPLY_MARGIN) -> Budget:
        """The budget of a search within ``limit``, stopped by ``stop``.

        A time ``T`` gives a soft deadline at ``usage * T`` and a hard one at
        ``T - margin`` (soft is capped at hard; a budget below the margin gives
        deadlines at once, and ``T = 0`` deadlines already past), counted from
        ``start`` (default: now), when the command arrived.
        """
        budget = cls(depth=limit.depth, nodes=limit.nodes, infinite=limit.is_empty(), stop=stop)
        if limit.time is not None:
            if start is None:
                start = time.monotonic()
            seconds = max(0.0, float(limit.time))
            # The margin always applies (also with usage 1.0), so the hard deadline is
            # never T itself; the soft one never falls after the hard one.
            budget.hard = start + max(0.0, seconds - margin)
            budget.soft = min(start + usage * seconds, budget.hard)
        return budget

    def stopped(self) -> bool:
        """Must stop now: stop requested or hard deadline passed."""
        return self.stop.is_set() or (self.hard is not None and time.monotonic() >= self.hard)

    def out_of_time(self) -> bool:
        """Should not start new work: stopped, or soft deadline passed."""
        return self.stopped() or (self.soft is not None and time.monotonic() >= self.soft)

    def take_over(self, other: Budget) -> None:
        """Go on under ``other``'s deadlines and stop handle (a ponder hit: the
        running search of an empty limit becomes the timed search of ``other``).

        Deadlines first, the infinite mark last: the search's driver reads them
        without a lock, and must never see "not infinite" with no deadline.
        """
        self.hard, self.soft, self.stop = other.hard, other.soft, other.stop
        self.infinite = False
