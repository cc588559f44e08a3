"""The engine: :class:`Engine`, the one object that decides a move, its options, and :func:`think`.

Stockfish has one ``Engine`` that owns the evaluation file, the threads, the table and
``go``, and ``uci.cpp`` only translates; hiveai's :class:`Engine` is that object. It owns
everything that decides a move: the evaluation per game type (the built-in weights,
the shipped network, an ``EvalFile``), the opening book (:mod:`hiveai.player.book`),
the playing level (:mod:`hiveai.player.levels`), pondering (:mod:`hiveai.player.ponder`),
the search threads, the transposition table, time management and the stop. Every
front end uses it and only translates: the UHP server (:mod:`hiveai.uhp.server`), the
board in the browser (:mod:`hiveai.play`), ``hiveai analyse``, book building, the
training's labelling and self-play, and :func:`think`, the one-call search for
library users.

>>> from hiveai import Board, Engine, Limit
>>> engine = Engine(hash_mb=16, seed=1)
>>> board = Board("Base+MLP")
>>> engine.play(board, Limit(depth=3)).source  # the first moves come from the opening book
'book'
>>> result = engine.analyse(board, Limit(depth=3))  # analysis: the search itself, no book
>>> result.source, result.depth, result.move in board.legal_moves
('search', 3, True)

Same options, same position, same limit: the same move, whichever front end asks
(at a fixed depth with one thread, the search is deterministic).

The engine is this package's ``__init__`` rather than a module of its own, because
the engine layer is this package and the engine is its one public object
(``hiveai.player.Engine``), and because ``engine.py`` is taken: :mod:`hiveai.engine`
is the UHP *client*, named as python-chess names ``chess.engine``, and no two
modules share a name. Importing it is cheap on purpose (no numba): the UHP server
builds its engine and lists the options before it prints its banner; the search,
the book and the levels load on the first search.
"""

from __future__ import annotations

import logging
import math
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

from hiveai.player.ponder import Ponderer
from hiveai.search.timeman import REPLY_MARGIN, TIME_USAGE, Budget, Limit, StopHandle

if TYPE_CHECKING:
    import numpy as np

    from hiveai.evaluation.network import Network
    from hiveai.rules.board import Board, Move
    from hiveai.search.searcher import Searcher, SearchInfo, SearchResult

__all__ = ["CPUS", "DEFAULT_TT_MB", "MAX_LEVEL", "MIN_LEVEL", "Engine", "Option", "Options", "check_level",
           "think", "usable_cpus"]

log = logging.getLogger("hiveai.player")

# --- the options ---------------------------------------------------------------------------------

# Transposition table size in MB (option TranspositionTableSizeMB). 64 MB = 4 M slots.
# At ~1 M nodes/s a 5-second move (MzingaViewer's default budget) visits ~5 M
# nodes, of which the interior nodes worth storing are a small fraction, so
# 4 M slots hold a whole search; and it keeps the engine within "TT + 300 MB"
# on any machine that runs a GUI. Mzinga ships 32 MB, nokamute 100 MiB
# (docs/protocol-notes.md, "options"). Pages are touched lazily (a fresh
# anonymous mapping is zero-filled on first touch), so a short search does
# not pay for all of it.
DEFAULT_TT_MB = 64
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
# use, all of them by default over UHP, as nokamute does (a thread on a CPU the
# process may not use would only share another's). hiveai tournament sets 1 for
# hiveai engines; an Engine made from Python takes 1 unless told otherwise
# (deterministic).
CPUS = usable_cpus()

# Thinking while the opponent thinks (option PonderDuringIdle; Mzinga's name
# and values). Off by default: CPU use nobody asked for is a common complaint.
PONDER_CHOICES = ("Disabled", "SingleThreaded", "MultiThreaded")

# Playing level (option Level), 1 to 10; 10 is full strength (hiveai.player.levels
# holds the table of the others).
MIN_LEVEL, MAX_LEVEL = 1, 10

# EvalFile's value for the default evaluation (the shipped network where a match
# made it the default, the built-in weights elsewhere: hiveai.search.searcher.chosen_network).
BUILTIN_WEIGHTS = "<built-in>"
# EvalFile's value for the built-in weights' linear evaluation in every game type
# (<built-in> evaluates with the shipped network where it is the default).
LINEAR_WEIGHTS = "<linear>"
# EvalFile's value once Engine.set_evaluation gave an evaluation from Python (no file).
PYTHON_EVALUATION = "<python>"


def names_builtin(value: str | os.PathLike) -> bool:
    """Whether an EvalFile value (or a command's evaluation argument) names the default
    evaluation: :data:`BUILTIN_WEIGHTS` in any case, spaces around ignored.

    >>> names_builtin("<Built-In> "), names_builtin("<linear>")
    (True, False)
    """
    return os.fspath(value).strip().lower() == BUILTIN_WEIGHTS.lower()


def check_level(level: int) -> int:
    """``level`` itself if it is a playing level; ValueError otherwise.

    >>> check_level(10)
    10
    >>> check_level(11)
    Traceback (most recent call last):
    ...
    ValueError: level must be 1 to 10, not 11
    """
    if not MIN_LEVEL <= level <= MAX_LEVEL:
        raise ValueError(f"level must be {MIN_LEVEL} to {MAX_LEVEL}, not {level}")
    return level


@dataclass
class Option:
    """One engine option: its type, default, bounds or choices, and current value.

    The line format is UHP's (docs/protocol-notes.md, "options"): ``Name;Type;Value;Default``
    then ``;Min;Max`` for ``int``/``double`` or ``;V1;V2;...`` for ``enum``. Only these
    four types exist and no field may be empty, or MzingaViewer rejects the whole reply.

    >>> Option("Level", "int", 10, 1, 10).line()
    'Level;int;10;10;1;10'
    """

    name: str
    kind: str  # "bool" | "int" | "double" | "enum" | "string"
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
        """The value ``text`` means for this option, before clamping; raises ValueError.

        Lenient the way clients need: bool and enum values in any letter case, and a
        decimal comma (a German viewer sends ``0,5``).
        """
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

    def check(self, value: object) -> object:
        """``value`` (a Python value, as :meth:`Engine.configure` takes it) if it is one
        of this option's, as stored; ValueError naming the option otherwise (no clamping).

        >>> Option("Level", "int", 10, 1, 10).check(11)
        Traceback (most recent call last):
        ...
        ValueError: Level must be an int from 1 to 10, not 11
        """
        if self.kind == "bool" and isinstance(value, bool):
            return value
        if self.kind == "enum" and isinstance(value, str):
            return self.parse(value)
        if self.kind == "string" and isinstance(value, str) and value.strip():
            return value.strip()
        if self.kind in ("int", "double") and isinstance(value, (int, float)) and not isinstance(value, bool):
            if (self.kind == "int" and isinstance(value, int)) or (self.kind == "double" and math.isfinite(value)):
                if self.low <= value <= self.high:
                    return value if self.kind == "int" else float(value)
        what = {"bool": "True or False", "enum": "one of " + ", ".join(self.choices), "string": "a non-empty str",
                "int": f"an int from {self.format(self.low)} to {self.format(self.high)}",
                "double": f"a number from {self.format(self.low)} to {self.format(self.high)}"}[self.kind]
        raise ValueError(f"{self.name} must be {what}, not {value!r}")


def default_options() -> list[Option]:
    """The engine's options, in the order ``options`` lists them."""
    return [
        # Print "move;depth;score" lines before the final answer (Mzinga's format).
        # Off by default: hive-hydra takes the *first* line as the move
        # (docs/protocol-notes.md, "Bot bridges"). Read by the UHP server.
        Option("ReportIntermediateBestMoves", "bool", False),
        # Fraction of a time budget the search aims to use (see hiveai.search.timeman).
        Option("TimeUsage", "double", TIME_USAGE, 0.1, 1.0),
        # Milliseconds kept back from a time budget for replying.
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
        # never reads stderr cannot fill the pipe and block the engine. Read by the UHP server.
        Option("LogLevel", "enum", "Warning", choices=("Debug", "Info", "Warning", "Error")),
        # Evaluation weights file (written by `hiveai tune`) or network file (`hiveai train`),
        # or BUILTIN_WEIGHTS, or LINEAR_WEIGHTS.
        Option("EvalFile", "string", BUILTIN_WEIGHTS, listed=False),
    ]


class Options:
    """The current option values, looked up by name in any letter case.

    Setting from text (:meth:`set`, what UHP's ``options set`` does) clamps numbers
    outside the range, as Mzinga does (MzingaViewer relies on it: the echoed line
    shows the value kept); values that do not parse are an error and leave the
    option unchanged. :class:`Engine` sets them and makes them take effect.

    >>> options = Options()
    >>> options["level"], options.set("Level", "12")
    (10, ('Level;int;10;10;1;10', 'Level "12" is outside 1 to 10: set to 10.'))
    """

    def __init__(self) -> None:
        self._by_key = {o.name.lower(): o for o in default_options()}

    def option(self, name: str) -> Option:
        """The option ``name`` (any letter case); KeyError with UHP's message if there is none."""
        try:
            return self._by_key[name.lower()]
        except KeyError:
            raise KeyError(f'The option "{name}" is not valid.') from None

    def __getitem__(self, name: str) -> object:
        return self.option(name).value

    def lines(self) -> list[str]:
        """The ``options`` reply: every listed option's line."""
        return [o.line() for o in self._by_key.values() if o.listed]

    def line(self, name: str) -> str:
        return self.option(name).line()

    def set(self, name: str, text: str) -> tuple[str, str | None]:
        """Set an option from its text form.

        Returns the updated option line and, when the value was out of range
        and clamped, a note saying so (None otherwise).
        """
        option = self.option(name)
        value = option.parse(text)
        option.value = option.clamp(value)
        if option.value == value:
            return option.line(), None
        return option.line(), (f'{option.name} "{text}" is outside {option.format(option.low)} to '
                               f"{option.format(option.high)}: set to {option.format(option.value)}.")


# --- the engine ------------------------------------------------------------------------------------

# Transposition table of the engine think() makes when none is given (MB):
# enough for a few seconds, quick to allocate.
THINK_TT_MB = 16
# Depth think() searches to when its limit is empty.
DEFAULT_DEPTH = 4


class Engine:
    """hiveai's engine: one object that decides a move, whichever front end asks.

    Every setting is also an option (:attr:`options`, as UHP's ``options`` lists
    them): ``threads`` (NumThreads), ``hash_mb`` (TranspositionTableSizeMB),
    ``level`` (Level, 1 to 10), ``use_book`` (UseBook), ``book_best_only``
    (BookBestMoveOnly), ``eval_file`` (EvalFile: a weights INI file, a network
    file, ``<built-in>`` or ``<linear>``). ``seed`` makes the book's and the weak
    levels' choices reproducible (None: they vary). One search at a time.

    >>> from hiveai import Board, Limit
    >>> engine = Engine(hash_mb=16, level=3, seed=7)
    >>> result = engine.play(Board("Base+MLP"), Limit(depth=30))  # level 3: its node budget ends it
    >>> result.source, engine.options["Level"]
    ('level', 3)
    >>> engine.configure({"Level": 10, "UseBook": False})
    >>> engine.play(Board("Base"), Limit(depth=2)).source
    'search'
    """

    def __init__(self, *, threads: int = 1, hash_mb: int = DEFAULT_TT_MB, level: int = MAX_LEVEL,
                 use_book: bool = True, book_best_only: bool = False, eval_file: str | os.PathLike | None = None,
                 seed: int | None = None) -> None:
        self.options = Options()
        self._rng = random.Random(seed)  # the book's and the weak levels' choices
        self._weights: np.ndarray | dict[str, np.ndarray] | None = None  # None: the default evaluation
        self._network: Network | None = None  # a network for every game type (EvalFile), or None
        self._searcher: Searcher | None = None
        self._preparing: threading.Thread | None = None  # a background warm(), until joined
        self._table_mb: int | None = None  # table size asked of the last warm()
        self._clear_pending = False  # new_game(): clear the table before the next search
        self._ponderer = Ponderer()
        self._running: StopHandle | None = None  # the running search's stop handle
        self.configure({"NumThreads": threads, "TranspositionTableSizeMB": hash_mb, "Level": level,
                        "UseBook": use_book, "BookBestMoveOnly": book_best_only})
        if eval_file is not None:
            self.load_eval_file(eval_file)

    # -- options -------------------------------------------------------------------------------

    def configure(self, options: Mapping[str, object]) -> None:
        """Set options from Python values (python-chess's ``engine.configure``): names in
        any letter case, ValueError for a value of the wrong type or out of range
        (nothing is clamped), KeyError for an unknown name.

        >>> engine = Engine(hash_mb=1)
        >>> engine.configure({"level": 4, "UseBook": False})
        >>> engine.options["Level"], engine.options["UseBook"]
        (4, False)
        >>> engine.configure({"Level": 0})
        Traceback (most recent call last):
        ...
        ValueError: Level must be an int from 1 to 10, not 0
        """
        for name, value in options.items():
            option = self.options.option(name)
            if option.name == "EvalFile":
                self.load_eval_file(value)
                continue
            option.value = option.check(value)
            self._option_changed(option.name)

    def set_option(self, name: str, text: str) -> tuple[str, str | None]:
        """Set an option from its text form, as UHP's ``options set Name Value`` does:
        the option's line and, when a number was out of range and clamped, a note
        saying so. KeyError for an unknown name, ValueError for a value that does
        not parse (the option keeps its value).

        >>> Engine(hash_mb=1).set_option("TimeUsage", "0,5")
        ('TimeUsage;double;0.5;0.9;0.1;1.0', None)
        """
        option = self.options.option(name)
        if option.name == "EvalFile":
            self.load_eval_file(text)
            return option.line(), None
        line, note = self.options.set(name, text)
        self._option_changed(option.name)
        return line, note

    def _option_changed(self, name: str) -> None:
        if name == "TranspositionTableSizeMB" and self._table_mb is not None \
                and self._table_mb != self.options["TranspositionTableSizeMB"]:
            self.warm(background=True)  # a table of the new size, ready for the next search
        elif name == "PonderDuringIdle" and self.options[name] == "Disabled":
            self._ponderer.forget()

    def load_eval_file(self, path: str | os.PathLike) -> None:
        """Evaluate with the weights of an INI file (as ``hiveai tune`` writes) or the
        network of a network file (as ``hiveai train`` writes), in every game type;
        ``<built-in>`` restores the default evaluation (the shipped network where it
        is the default, the built-in weights elsewhere), ``<linear>`` asks for the
        built-in weights in every game type. ValueError naming the file and the
        problem, the evaluation in use unchanged.

        >>> engine = Engine(hash_mb=1)
        >>> engine.load_eval_file("<linear>")
        >>> engine.options["EvalFile"], engine.network_for("Base+MLP")
        ('<linear>', None)
        >>> engine.load_eval_file("no-such-file.ini")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: EvalFile: ...; the evaluation in use is unchanged.
        """
        from hiveai.evaluation.linear import read_weights_file, weights_from_env
        from hiveai.evaluation.network import is_network_file, read_network

        path = os.fspath(path).strip()
        builtin = names_builtin(path)
        weights, network = self._weights, self._network
        try:
            if builtin:
                weights, network = None, None
            elif path.lower() == LINEAR_WEIGHTS.lower():
                weights, network = weights_from_env(), None
                path = LINEAR_WEIGHTS
            elif is_network_file(path):
                network = read_network(path)
            else:
                weights, network = read_weights_file(path), None
        except ValueError as e:
            raise ValueError(f"EvalFile: {e}; the evaluation in use is unchanged.") from None
        self._weights, self._network = weights, network
        self.options.option("EvalFile").value = BUILTIN_WEIGHTS if builtin else path

    def set_evaluation(self, *, weights: np.ndarray | dict[str, np.ndarray] | None = None,
                       network: Network | None = None) -> None:
        """Evaluate with ``network`` in every game type if one is given, else with the
        linear evaluation and ``weights`` (one array for every game type, or arrays by
        game type as :func:`hiveai.evaluation.linear.read_weights_file` returns them)
        in every game type; neither: the default evaluation. For evaluations made in
        Python (``hiveai tune``'s self-play); files go through :meth:`load_eval_file`.

        >>> from hiveai.evaluation.linear import default_weights
        >>> engine = Engine(hash_mb=1)
        >>> engine.set_evaluation(weights=default_weights())
        >>> engine.options["EvalFile"], engine.network_for("Base+MLP")
        ('<python>', None)
        """
        self._weights, self._network = weights, network
        given = weights is not None or network is not None
        self.options.option("EvalFile").value = PYTHON_EVALUATION if given else BUILTIN_WEIGHTS

    def network_for(self, game_type: str) -> Network | None:
        """The network that evaluates a ``game_type`` game at full strength (None: the
        linear evaluation). The levels below 10 always evaluate with the linear one.

        >>> engine = Engine(hash_mb=1)
        >>> engine.network_for("Base+MLP") is not None, engine.network_for("Base")
        (True, None)
        """
        from hiveai.search.searcher import chosen_network

        return chosen_network(game_type, self._network, self._weights)

    # -- the searcher's life cycle -------------------------------------------------------------

    @property
    def searcher(self) -> Searcher | None:
        """The :class:`~hiveai.search.searcher.Searcher` this engine searches with, as it
        stands (not waited for, cleared or set up): None until :meth:`warm` or a
        search made one."""
        return self._searcher

    def warm(self, background: bool = False) -> None:
        """Make the first search as fast as the later ones: make the searcher with a
        table of the asked size, load every search kernel from numba's cache (or
        compile it), and touch every page of the table. Nothing to do if a searcher
        with a table of that size exists. ``background``: in a thread, returning at
        once (the UHP server does this right after its banner, and again when the
        table size changes); the next search, :meth:`new_game` and :meth:`ready`
        wait for it.

        >>> engine = Engine(hash_mb=1)
        >>> engine.warm()
        >>> engine.searcher.tt_mb
        1
        """
        size = self._table_mb = self.options["TranspositionTableSizeMB"]
        self.ready()
        if self._searcher is not None and self._searcher.tt_mb == size:
            return

        def build() -> None:
            from hiveai.search.searcher import Searcher

            self._searcher = None  # free the old table before allocating the new one
            searcher = Searcher(tt_mb=size)
            searcher.warm()
            self._searcher = searcher

        if not background:
            build()
            return

        def build_quietly() -> None:
            try:
                build()
            except Exception:  # the next search makes one in the foreground, and reports the error
                log.exception("background warm-up failed")

        self._preparing = threading.Thread(target=build_quietly, name="hiveai-warmup", daemon=True)
        self._preparing.start()

    def ready(self) -> None:
        """Wait for a background :meth:`warm` to finish."""
        if self._preparing is not None:
            self._preparing.join()
            self._preparing = None

    def new_game(self) -> None:
        """A new game: nothing learnt carries over. Stops pondering, waits for a
        background :meth:`warm`, and clears the table before the next search."""
        self._ponderer.forget()
        self._clear_pending = True
        # Returns once the search is ready, so that a timed search asked for right
        # after it spends its whole budget searching.
        self.ready()

    def _prepared(self) -> Searcher:
        """The searcher, with a table of the size the option asks for, cleared if a
        new game began since its last search, with the evaluation and the threads asked for."""
        from hiveai.search.searcher import Searcher

        self.ready()
        size = self.options["TranspositionTableSizeMB"]
        if self._searcher is None or self._searcher.tt_mb != size:
            self._searcher = None  # free the old table before allocating the new one
            self._searcher = Searcher(tt_mb=size)
        elif self._clear_pending:
            self._searcher.clear()
        self._clear_pending = False
        if self._searcher.weights_asked is not self._weights:
            self._searcher.weights = self._weights  # None: back to the default evaluation
        self._searcher.network = self._network
        self._searcher.threads = self.options["NumThreads"]
        return self._searcher

    # -- searching ---------------------------------------------------------------------------------

    def _budget(self, limit: Limit, stop: StopHandle | None, started: float | None) -> Budget:
        return Budget.of(limit, stop or StopHandle(), started, usage=self.options["TimeUsage"],
                         margin=self.options["TimeMarginMs"] / 1000)

    def play(self, board: Board, limit: Limit = Limit(), *,
             on_iteration: Callable[[SearchInfo], None] | None = None, stop: StopHandle | None = None,
             started: float | None = None) -> SearchResult:
        """The move to play on ``board`` (left unchanged) within ``limit``, as a GUI gets it.

        At level 10: the book's move while the position is in it (``use_book``;
        not for an empty limit, which is analysis), else the running ponder search
        taken over on a ponder hit (a time limit), else the search. Levels 1 to 9:
        the level's choice (:mod:`hiveai.player.levels`; no book). ``result.source``
        says which: ``"book"``, ``"search"`` or ``"level"``.

        An empty ``limit`` searches until stopped. ``stop`` (a :class:`StopHandle`)
        ends the search from another thread, as :meth:`stop` does. ``started``:
        the ``time.monotonic()`` the time limit counts from (default: now; the UHP
        server gives the moment the command arrived). ``on_iteration`` is called
        after every completed iteration. ValueError on a finished game.

        >>> from hiveai import Board, Limit
        >>> engine = Engine(hash_mb=16, use_book=False)
        >>> engine.play(Board("Base"), Limit(depth=2)).depth
        2
        """
        from hiveai.search.searcher import BOOK, SearchResult

        start = time.monotonic()
        budget = self._budget(limit, stop, started)
        level = self.options["Level"]
        self._running = budget.stop
        try:
            if level == MAX_LEVEL and self.options["UseBook"] and not budget.infinite:
                move = self._book_move(board)
                if move is not None:
                    self._ponderer.forget()
                    return SearchResult(move, None, 0, 0, time.monotonic() - start, [move], source=BOOK)
            result = self._ponderer.take_over(board, budget, allowed=limit.nodes is None and level == MAX_LEVEL,
                                              on_iteration=on_iteration)
            if result is None:
                searcher = self._prepared()
                if level == MAX_LEVEL:
                    result = searcher.search(board, budget, 1, on_iteration)
                else:
                    from hiveai.player.levels import play_level

                    result = play_level(searcher, board, budget, level, self._rng, on_iteration=on_iteration)
        finally:
            self._running = None
        if self.options["PonderDuringIdle"] != "Disabled" and level == MAX_LEVEL:
            self._ponderer.predict(board, result.pv)
        return result

    def analyse(self, board: Board, limit: Limit = Limit(), *, multipv: int = 1,
                on_iteration: Callable[[SearchInfo], None] | None = None,
                stop: StopHandle | None = None) -> SearchResult:
        """Search ``board`` (left unchanged) at full strength within ``limit``: no book,
        no level. What analysis, labelling and book building use. ``multipv`` > 1
        ranks the next best moves too (``result.lines``, best first). An empty
        ``limit`` searches until stopped; ``stop`` and ``on_iteration`` as in
        :meth:`play`. ValueError on a finished game.

        >>> from hiveai import Board, Limit
        >>> result = Engine(hash_mb=16).analyse(Board("Base+MLP"), Limit(depth=2), multipv=3)
        >>> len(result.lines), result.lines[0].move == result.move
        (3, True)
        """
        self._ponderer.stop()
        budget = self._budget(limit, stop, None)
        searcher = self._prepared()
        self._running = budget.stop
        try:
            return searcher.search(board, budget, multipv, on_iteration)
        finally:
            self._running = None

    def stop(self) -> None:
        """Stop the running :meth:`play` or :meth:`analyse` now: it answers with the best
        move found so far. Safe from any thread or a signal handler; does nothing
        when no search runs."""
        handle = self._running
        if handle is not None:
            handle.stop()

    def _book_move(self, board: Board) -> Move | None:
        """The book's move for ``board``, or None: out of book, or the book missing or
        broken, which only costs the book."""
        from hiveai.player import book

        try:
            return book.book_move(board, best_only=self.options["BookBestMoveOnly"], rng=self._rng)
        except (OSError, ValueError) as e:
            log.warning("opening book unusable, searching instead: %s", e)
            return None

    # -- pondering ---------------------------------------------------------------------------------

    def ponder(self, game: Board | None) -> None:
        """Ponder, in the background, the position the last :meth:`play` predicts (after
        its move and the reply its line expects), while ``game`` can still reach it:
        call it once the answer is out, with the game as it then stands (our move
        played or not yet, the predicted reply played or not yet). Anything else
        (another reply, an undo, another game) drops the prediction. Nothing to do
        with the option PonderDuringIdle Disabled (the default), after a book move
        or a weak level's. A later :meth:`play` of the predicted position under a
        time limit takes the ponder search over; :meth:`stop_pondering` stops it."""
        mode = self.options["PonderDuringIdle"]
        if mode == "Disabled":
            self._ponderer.forget()
            return
        self._ponderer.start(game, self._prepared, single_threaded=mode == "SingleThreaded")

    def stop_pondering(self) -> None:
        """Stop the ponder search (if one runs) and wait until it has; the prediction is kept."""
        self._ponderer.stop()


def think(board: Board, limit: Limit = Limit(), *, multipv: int = 1, stop: StopHandle | None = None,
          engine: Engine | None = None, threads: int = 1,
          on_iteration: Callable[[SearchInfo], None] | None = None) -> SearchResult:
    """Search ``board`` (left unchanged) within ``limit``: the one-call search for library users.

    python-chess asks an engine ``engine.play(board, Limit(...))``; hiveai's own
    engine answers in-process. ``limit`` may combine time (seconds), depth
    (plies) and nodes: the search ends at the first reached (nodes count the
    main thread's). An empty limit searches to the default depth (4).
    ``multipv`` > 1 ranks the next best moves too. ``stop`` (a
    :class:`StopHandle`) ends the search early from another thread.
    ``on_iteration`` is called after every completed iteration. It is
    :meth:`Engine.analyse` (full strength, no book, no level) on ``engine``
    (pass one to keep its transposition table between moves, as a
    game-playing program should), else on a fresh one with ``threads``
    threads (one thread: reproducible). ValueError on a finished game.

    >>> from hiveai import Board, Limit
    >>> result = think(Board("Base"), Limit(depth=2))
    >>> result.move in Board("Base").legal_moves, result.depth, result.score.turn
    (True, 2, 0)

    The score is a :class:`~hiveai.search.score.PovScore`: ``result.score.white()`` is
    White's view, ``result.score.relative`` the side to move's, and a forced
    result is a :class:`~hiveai.search.score.Win` (plies), not a big number.

    >>> import threading
    >>> handle = StopHandle()
    >>> timer = threading.Timer(0.2, handle.stop)
    >>> timer.start()
    >>> result = think(Board("Base+MLP"), Limit(depth=40), stop=handle)
    >>> result.depth < 40, handle.is_set()
    (True, True)
    >>> think(Board("Base"), Limit(nodes=50)).nodes <= 60
    True
    """
    if limit.is_empty():
        limit = Limit(depth=DEFAULT_DEPTH)
    if engine is None:
        engine = Engine(threads=threads, hash_mb=THINK_TT_MB)
    return engine.analyse(board, limit, multipv=multipv, on_iteration=on_iteration, stop=stop)
