"""Time management for ``bestmove``: TimeSpan parsing and formatting, deadlines, the stop flag.

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

This module is plain Python (no numba) so the UHP front end can import it
before the banner.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

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


class StopFlag:
    """A stop request that a signal handler can set safely.

    A plain attribute rather than ``threading.Event``: a signal handler runs
    between bytecodes of the main thread, possibly while that thread is inside
    an Event's lock, so touching locks from the handler could deadlock.
    Searches poll :meth:`is_set`, from any thread.
    """

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def clear(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set


@dataclass
class Limits:
    """What one ``bestmove`` may spend.

    ``depth`` is the ply limit (None: unlimited). ``soft``/``hard`` are
    ``time.monotonic()`` deadlines (None: no time limit). ``infinite`` marks a
    bare ``bestmove``, which answers only when ``stop`` is set (SIGINT), like
    UCI's ``go infinite``.
    """

    depth: int | None = None
    soft: float | None = None
    hard: float | None = None
    infinite: bool = False
    stop: StopFlag = field(default_factory=StopFlag)

    def stopped(self) -> bool:
        """Must stop now: stop requested or hard deadline passed."""
        return self.stop.is_set() or (self.hard is not None and time.monotonic() >= self.hard)

    def out_of_time(self) -> bool:
        """Should not start new work: stopped, or soft deadline passed."""
        return self.stopped() or (self.soft is not None and time.monotonic() >= self.soft)


def time_limits(seconds: float, stop: StopFlag, start: float | None = None,
                usage: float = TIME_USAGE, margin: float = REPLY_MARGIN) -> Limits:
    """Limits for ``bestmove time``: soft at ``usage * T``, hard at ``T - margin``
    (soft is capped at hard; a budget below the margin gives deadlines at once).

    ``start`` is when the command arrived (default: now); the budget counts
    from there. ``seconds <= 0`` gives deadlines that are already past.
    """
    if start is None:
        start = time.monotonic()
    seconds = max(0.0, seconds)
    # The margin always applies (also with usage 1.0), so the hard deadline is
    # never T itself; the soft one never falls after the hard one.
    hard = start + max(0.0, seconds - margin)
    return Limits(soft=min(start + usage * seconds, hard), hard=hard, stop=stop)


def depth_limits(depth: int, stop: StopFlag) -> Limits:
    """Limits for ``bestmove depth N``: no clock, only the ply limit and the stop flag."""
    return Limits(depth=depth, stop=stop)


def infinite_limits(stop: StopFlag) -> Limits:
    """Limits for a bare ``bestmove``: think until the stop flag is set."""
    return Limits(infinite=True, stop=stop)
