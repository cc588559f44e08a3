"""Engine options as UHP's ``options`` command shows and sets them.

Line format (docs/protocol-notes.md, "options"): ``Name;Type;Value;Default`` then ``;Min;Max`` for
``int``/``double`` or ``;V1;V2;...`` for ``enum``. Only these four types exist
and no field may be empty, or MzingaViewer rejects the whole reply.

Parsing is lenient the way clients need: option names and bool/enum values in
any letter case, and a decimal comma (a German viewer sends ``0,5``). Numbers
outside the range are clamped, as Mzinga does (MzingaViewer relies on it: the
echoed line shows the value kept, and the server notes the change on stderr);
values that do not parse are an error and leave the option unchanged.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from hiveai.search.timeman import REPLY_MARGIN, TIME_USAGE
from hiveai.search.ttsize import DEFAULT_TT_MB


# Transposition table size in MB (option TranspositionTableSizeMB): the
# table's own default (hiveai.search.ttsize says why 64), between these bounds.
MIN_TT_MB, MAX_TT_MB = 1, 4096



def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity set where the OS keeps one
    (Linux: ``taskset``, cgroup cpusets, containers), else every CPU of the host.

    >>> 1 <= usable_cpus() <= (os.cpu_count() or 1)
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


# Search threads (option NumThreads): 1 to the number of CPUs this process may
# use, all of them by default, as nokamute does (a thread on a CPU the process
# may not use would only share another's). hiveai tournament sets 1 for hiveai engines.
CPUS = usable_cpus()

# Thinking while the opponent thinks (option PonderDuringIdle; Mzinga's name
# and values). Off by default: CPU use nobody asked for is a common complaint.
PONDER_CHOICES = ("Disabled", "SingleThreaded", "MultiThreaded")

# Playing level (option Level), 1 to 10; 10 is full strength (hiveai.player.levels,
# which holds the table, stays out of this numba-free module).
MIN_LEVEL, MAX_LEVEL = 1, 10


@dataclass
class Option:
    """One option: its type, default, bounds or choices, and current value."""

    name: str
    kind: str  # "bool" | "int" | "double" | "enum"
    default: object
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    value: object = None
    # Not in the ``options`` list: a "string" option, which UHP's four types lack
    # (MzingaViewer rejects the whole list if one line has another type), is
    # still read and set by name.
    listed: bool = True

    def __post_init__(self) -> None:
        if self.value is None:
            self.value = self.default

    def format(self, value: object) -> str:
        if self.kind == "bool":
            return "True" if value else "False"
        if self.kind == "double":
            return repr(float(value))  # invariant culture: always a dot
        return str(value)

    def line(self) -> str:
        fields = [self.name, self.kind, self.format(self.value), self.format(self.default)]
        if self.kind in ("int", "double"):
            fields += [self.format(self.low), self.format(self.high)]
        elif self.kind == "enum":
            fields += list(self.choices)
        return ";".join(fields)

    def parse(self, text: str) -> object:
        """The value ``text`` means for this option, before clamping; raises ValueError."""
        bad = ValueError(f'"{text}" is not a valid value for {self.name} ({self.kind}).')
        if self.kind == "string":
            if not text.strip():
                raise bad
            return text.strip()
        if self.kind == "bool":
            if text.lower() not in ("true", "false"):
                raise bad
            return text.lower() == "true"
        if self.kind == "enum":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise bad
        try:
            number = int(text) if self.kind == "int" else float(text.replace(",", "."))
        except ValueError:
            raise bad from None
        if isinstance(number, float) and not math.isfinite(number):
            raise bad
        return number

    def clamp(self, value: object) -> object:
        """``value`` brought into [low, high] for int and double options."""
        if self.kind not in ("int", "double"):
            return value
        return type(value)(min(max(value, self.low), self.high))


# EvalFile's value for the default evaluation (hiveai.search.searcher.Searcher: the shipped
# network where a match made it the default, the built-in weights elsewhere).
BUILTIN_WEIGHTS = "<built-in>"
# EvalFile's value for the built-in weights' linear evaluation in every game type
# (<built-in> evaluates with the shipped network where it is the default).
LINEAR_WEIGHTS = "<linear>"


def default_options() -> list[Option]:
    """The engine's options, in the order ``options`` lists them."""
    return [
        # Print "move;depth;score" lines before the final answer (Mzinga's format).
        # Off by default: hive-hydra takes the *first* line as the move
        # (docs/protocol-notes.md, "Bot bridges").
        Option("ReportIntermediateBestMoves", "bool", False),
        # Fraction of a "bestmove time" budget the search aims to use (see timeman).
        Option("TimeUsage", "double", TIME_USAGE, 0.1, 1.0),
        # Milliseconds kept back from a "bestmove time" budget for replying.
        Option("TimeMarginMs", "int", round(REPLY_MARGIN * 1000), 0, 1000),
        # Transposition table size (Mzinga's option name); see DEFAULT_TT_MB.
        Option("TranspositionTableSizeMB", "int", DEFAULT_TT_MB, MIN_TT_MB, MAX_TT_MB),
        # Play from the opening book (openings/) while the position is in it.
        Option("UseBook", "bool", True),
        # Among the book moves, always the best-scored one (reproducible games)
        # instead of a weighted random choice (varied games).
        Option("BookBestMoveOnly", "bool", False),
        # Search threads (Lazy SMP); see CPUS.
        Option("NumThreads", "int", CPUS, 1, CPUS),
        # Search the position after the predicted reply while waiting for the
        # next command (MultiThreaded: with NumThreads threads); see PONDER_CHOICES.
        Option("PonderDuringIdle", "enum", "Disabled", choices=PONDER_CHOICES),
        # Playing strength for people: 10 is full strength, 1 a beginner (hiveai.player.levels).
        Option("Level", "int", MAX_LEVEL, MIN_LEVEL, MAX_LEVEL),
        # How much the engine logs on stderr. Quiet by default, so a client that
        # never reads stderr cannot fill the pipe and block the engine.
        Option("LogLevel", "enum", "Warning", choices=("Debug", "Info", "Warning", "Error")),
        # Evaluation weights file (written by `hiveai tune`), or BUILTIN_WEIGHTS.
        Option("EvalFile", "string", BUILTIN_WEIGHTS, listed=False),
    ]


class Options:
    """The current option values, looked up by name in any letter case."""

    def __init__(self) -> None:
        self._by_key = {o.name.lower(): o for o in default_options()}

    def _get(self, name: str) -> Option:
        try:
            return self._by_key[name.lower()]
        except KeyError:
            raise KeyError(f'The option "{name}" is not valid.') from None

    def __getitem__(self, name: str) -> object:
        return self._get(name).value

    def lines(self) -> list[str]:
        """The ``options`` reply: every listed option's line."""
        return [o.line() for o in self._by_key.values() if o.listed]

    def line(self, name: str) -> str:
        return self._get(name).line()

    def set(self, name: str, text: str) -> tuple[str, str | None]:
        """Set an option from its text form.

        Returns the updated option line and, when the value was out of range
        and clamped, a note saying so (None otherwise).
        """
        option = self._get(name)
        value = option.parse(text)
        option.value = option.clamp(value)
        if option.value == value:
            return option.line(), None
        return option.line(), (f'{option.name} "{text}" is outside {option.format(option.low)} to '
                               f"{option.format(option.high)}: set to {option.format(option.value)}.")
