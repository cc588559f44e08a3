"""The search's driver: iterative deepening and time in Python, over the compiled kernel,
and what a search reports (:class:`SearchResult`, :class:`Line`, :class:`SearchInfo`).

The search is split as Stockfish splits its own: move ordering
(:mod:`hiveai.search.movepick`), the negamax kernel (:mod:`hiveai.search.negamax`), each
thread's arrays (:mod:`hiveai.search.scratch`), the helper threads and their busy
table (:mod:`hiveai.search.threads`, :mod:`hiveai.search.abdada`), the transposition table
(:mod:`hiveai.search.tt`), time management (:mod:`hiveai.search.timeman`), and here the
driver. The tuning switches it reads are in :mod:`hiveai.switches`. The engine
(:class:`hiveai.player.Engine`) is the layer above: the book, the playing levels and
pondering are its, and it owns a :class:`Searcher`. The searcher knows nothing of them.

**Driver** (:class:`Searcher`): one kernel call per iteration (and per
multipv line), run in a worker thread; the kernels release the GIL
(``nogil=True``). The calling thread waits, and on a stop request (a
:class:`~hiveai.search.timeman.StopHandle`, SIGINT) or the hard deadline it sets the
stop flag in the shared ``ctl`` array, which the kernel reads at every node, so the
answer comes within milliseconds: the best move of the last completed iteration, or
the current iteration's best root move if one was fully searched (it is at least
as good, having been searched deeper), with the line the kernel found for it.

**Threads** (Lazy SMP): with ``threads`` > 1 the driver starts helper threads
(:mod:`hiveai.search.threads`) before the main worker. They only fill the table;
``stop()`` sets every thread's stop flag, and when the main worker ends the
helpers are stopped and joined. The iteration and time decisions
(``_iterate``) are the main thread's alone.

The one-call search for library users is :func:`hiveai.think`; the engine that plays
games is :class:`hiveai.player.Engine`. :class:`Searcher` is the layer below both
(``hiveai bench`` calls it directly).
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from hiveai.search.abdada import new_busy_table
from hiveai.rules.board import Board, Move
from hiveai.rules.board import warmup as board_warmup
from hiveai.evaluation.linear import WEIGHT_NAMES, weights_for, weights_from_env
from hiveai.search.negamax import _leaf_score, search_root
from hiveai.evaluation.network import Network, default_network
from hiveai.rules.notation import move_to_string, parse_game_type_string
from hiveai.rules.position import HASH, do_move, new_position
from hiveai.search.scratch import (
    CTL_GENERATION, CTL_ITER_DEPTH, CTL_NODE_LIMIT, CTL_NODES, CTL_NULL_MOVE, CTL_RFP, CTL_ROOT_MOVE,
    CTL_ROOT_SCORE, CTL_ROOT_VALID, CTL_SHARED, CTL_STOP, CTL_TT_HITS, CTL_TT_PROBES, MAX_PLY, Scratch,
)
from hiveai.search.score import WIN, PovScore, Score, is_win_score
from hiveai.switches import search_switches, weight_overrides
from hiveai.search.threads import Helper
from hiveai.search.timeman import Budget, Limit, StopHandle
from hiveai.search.tt import entry_move, new_table, tt_probe

__all__ = ["Line", "SearchInfo", "SearchResult", "Searcher", "ThinkResult", "warmup"]

# What warm() searches to depth 2 with two lines: a small Base+MLP position, so
# every kernel of the search is called (multipv exclusions included).
WARM_GAME = "Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-"
# Where a played move came from (SearchResult.source): the search, the opening book
# (hiveai.player.book), or a playing level's choice among the searched moves (hiveai.player.levels).
SEARCH, BOOK, LEVEL = "search", "book", "level"
# How long warmup() waits for the process compiling the evaluation's kernels (cold, about a
# minute on a 2-core machine) before it stops it and compiles the rest itself.
WARM_HELPER_SECONDS = 600.0
# How often the waiting thread checks the clock and the stop flag (seconds).
POLL_INTERVAL = 0.002
# The ctl slot each search switch (hiveai.switches.SEARCH_SWITCHES) is written to.
SWITCH_SLOTS = {"rfp": CTL_RFP, "nullmove": CTL_NULL_MOVE}


@dataclass
class Line:
    """One principal variation: a root move, its score and the line it leads to.

    >>> from hiveai import Board, Limit, think
    >>> line = think(Board("Base+MLP"), Limit(depth=2), multipv=2).lines[1]
    >>> line.pv[0] == line.move, line.score.turn
    (True, 0)
    """

    move: Move
    score: PovScore  # seen from the side to move of the searched position
    pv: list[Move]  # from the searched position; pv[0] is move

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``)."""
        return str(self.move)


@dataclass
class SearchInfo:
    """A completed iteration (one per multipv line), for progress output.

    ``score`` is the search's int from the side to move's view (hundredths, or
    ``WIN - plies``: :mod:`hiveai.search.score`; ``Score.from_int(info.score)`` is
    its :class:`~hiveai.search.score.Score`), as UHP's intermediate lines print it.

    >>> from hiveai import Board, Limit, think
    >>> seen = []
    >>> _ = think(Board("Base"), Limit(depth=2), on_iteration=seen.append)
    >>> [(info.depth, info.multipv) for info in seen]
    [(1, 1), (2, 1)]
    """

    depth: int
    multipv: int  # 1-based line number
    score: int
    nodes: int
    seconds: float
    nps: float
    pv: list[Move]  # from the searched position
    tt_hits: int = 0
    tt_probes: int = 0


@dataclass
class SearchResult:
    """What a search found: the move to play and how it got there (the one result type
    of :func:`hiveai.think`, :class:`hiveai.player.Engine` and :class:`Searcher`).

    ``move`` is the move to play; ``score`` its :class:`~hiveai.search.score.PovScore`
    (None when nothing was searched: a book move, a zero time or depth); ``depth``
    the last completed iteration; ``pv`` the principal variation (``pv[0] == move``);
    ``lines`` the multipv lines, best first; ``source`` where the move came from:
    ``"search"``, ``"book"`` (the opening book) or ``"level"`` (a playing level's
    choice, :mod:`hiveai.player.levels`).

    >>> from hiveai import Board, Limit, think
    >>> result = think(Board("Base"), Limit(depth=2))
    >>> result.move in Board("Base").legal_moves, result.pv[0] == result.move, result.source
    (True, True, 'search')
    """

    move: Move
    score: PovScore | None
    depth: int  # last completed iteration (0: no search, the fallback move)
    nodes: int
    seconds: float
    pv: list[Move] = field(default_factory=list)  # from the searched position; pv[0] is move
    lines: list[Line] = field(default_factory=list)  # multipv, best first
    tt_hits: int = 0
    tt_probes: int = 0
    source: str = SEARCH

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``), what UHP's ``bestmove`` answers."""
        return str(self.move)

    @property
    def nps(self) -> float:
        """Nodes per second."""
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


#: The name :func:`hiveai.think`'s result had before it was the one result type.
ThinkResult = SearchResult


class Searcher:
    """A search engine with its own transposition table, reused between moves.

    ``threads`` > 1 runs Lazy SMP: helper threads search the same position into
    the shared table (see docs/engine.md, "Threads", for why Lazy SMP and what it
    gains); the answer always comes from the main thread's deepest completed
    iteration. One thread is deterministic: the same search gives the same
    nodes and moves every time.

    >>> from hiveai import Board, Limit
    >>> s = Searcher(tt_mb=16)
    >>> s.search(Board("Base"), Limit(depth=2)).depth
    2
    """

    def __init__(self, tt_mb: int, weights: np.ndarray | dict[str, np.ndarray] | None = None,
                 threads: int = 1, network: Network | None = None) -> None:
        """A searcher with a ``tt_mb`` MB table and ``threads`` search threads
        (the calling thread only waits).

        The evaluation: a ``network`` (hiveai.evaluation.network) in every game type if one
        is given; else the linear evaluation with ``weights`` in every game type
        if they are given (one array for every game type, or arrays by game type
        as :func:`hiveai.evaluation.linear.read_weights_file` returns them), or if
        $HIVEAI_WEIGHTS sets any; else the default: the shipped network where a
        match made it the default (:func:`hiveai.evaluation.network.default_network`), the
        linear evaluation with hiveai.evaluation.linear's weights elsewhere.
        :meth:`network_for` says which network a game type gets."""
        _check_threads(threads)
        self.tt_mb = tt_mb
        self.threads = threads
        self.network = network  # evaluates every game type (None: none given; see network_for)
        self._evaluating: Network | None = None  # the network of the last search (None: linear)
        self.weights = weights
        self.switches = search_switches()  # with the linear evaluation
        self.network_switches = search_switches(network=True)  # with a network
        self._keys, self._data = new_table(tt_mb)
        self._busy = new_busy_table()  # shared by the threads (Simplified ABDADA)
        self._generation = 0
        self._main = Scratch()
        self.ctl = self._main.ctl
        self._helpers: list[Helper] = []  # grown on demand, kept for their history tables
        self._active = 1  # threads of the running (or last) search
        self._stop_requested = False

    @property
    def weights(self) -> np.ndarray | dict[str, np.ndarray]:
        """The linear evaluation's weights. Setting weights makes the linear
        evaluation the one of every game type (unless :attr:`network` is set);
        setting None goes back to the default evaluation (see :attr:`weights_asked`)."""
        return self._weights

    @weights.setter
    def weights(self, weights: np.ndarray | dict[str, np.ndarray] | None) -> None:
        self._weights_asked = weights
        self._weights = weights_from_env() if weights is None else weights

    @property
    def weights_asked(self) -> np.ndarray | dict[str, np.ndarray] | None:
        """The weights last set (the very object), or None if the default
        evaluation was asked for.

        >>> s = Searcher(tt_mb=1)
        >>> s.weights_asked is None
        True
        >>> w = s.weights
        >>> s.weights = w
        >>> s.weights_asked is w
        True
        """
        return self._weights_asked

    def network_for(self, game_type: str) -> Network | None:
        """The network that evaluates a ``game_type`` game (a GameTypeString);
        None: the linear evaluation, with :attr:`weights`.

        >>> s = Searcher(tt_mb=1)
        >>> s.network_for("Base+MLP") is not None, s.network_for("Base")
        (True, None)
        >>> s.weights = s.weights  # weights asked for: linear everywhere
        >>> s.network_for("Base+MLP")
        """
        return chosen_network(game_type, self.network, self._weights_asked)

    def clear(self) -> None:
        """Forget everything learnt (new game): empty table, history, killers."""
        # Zeroed in place, not mapped anew: a fresh table's pages fault in one by
        # one during the next search (0.06 s per 64 MB here, 0.28 s for 256 MB,
        # out of that move's budget), while rewriting resident pages costs 2 ms
        # per 64 MB.
        self._keys.fill(0)
        self._data.fill(0)
        for scratch in [self._main, *self._helpers]:
            scratch.sd[:] = 0

    def warm(self) -> None:
        """Make the first real search as fast as the later ones: load every search
        kernel from numba's cache (or compile it) with a tiny search, and touch
        every page of the table (:meth:`clear`). The UHP engine does this in the
        background after its banner."""
        self.search(Board.parse(WARM_GAME), Limit(depth=2), multipv=2)
        self.clear()

    def table_move(self, board: Board) -> int | None:
        """The best move the table holds for ``board``'s position, as a move int
        (one of ``board.legal_move_ints()`` unless the table is corrupt), or
        None if it holds none."""
        d = tt_probe(self._keys, self._data, np.int64(board.position_array[HASH]))
        return None if d == 0 or entry_move(d) < 0 else int(entry_move(d))

    def stop(self) -> None:
        """Stop the running search now, or the next one if none is running
        (safe from any thread; each request ends one search)."""
        # Request first, then the flags: search() clears the flags as it
        # starts and then looks at the request, so one of the two always sees it.
        self._stop_requested = True
        self.ctl[CTL_STOP] = 1
        for helper in self._helpers:
            helper.stop()

    def forget_stop(self) -> None:
        """Drop a stop request no search has taken (call only with no search
        running): one that came after its search had ended would stop the next."""
        self._stop_requested = False

    def _total(self, slot: int) -> int:
        """A counter (CTL_NODES, ...) summed over the main thread and the helpers of this search."""
        return int(self.ctl[slot]) + sum(int(h.ctl[slot]) for h in self._helpers[: self._active - 1])

    def search(self, board: Board, limit: Limit | Budget, multipv: int = 1,
               on_iteration: Callable[[SearchInfo], None] | None = None, *,
               stop: StopHandle | None = None, threads: int | None = None, linear: bool = False,
               switches: Mapping[str, int] | None = None) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limit``; blocks until done.

        ``limit``'s nodes cap the main thread's nodes (deterministic, unlike
        time); an empty limit searches until stopped (:meth:`stop`, or
        ``stop``, a :class:`~hiveai.search.timeman.StopHandle` another thread may
        set). The engine gives a :class:`~hiveai.search.timeman.Budget` instead
        (deadlines counted from when its command arrived, its time options).
        ``on_iteration`` is called in this thread after every completed
        iteration, once per multipv line. ``threads`` runs this one search
        with that many threads instead of :attr:`threads` (the playing levels
        ask for one, which is deterministic). ``linear`` evaluates with
        :attr:`weights` whatever :meth:`network_for` says (the playing levels
        below full strength, calibrated with the linear evaluation).
        ``switches`` are this one search's switches (every name of
        hiveai.switches.SEARCH_SWITCHES) instead of the evaluation's
        (:attr:`switches` or :attr:`network_switches`). Raises ValueError on a
        finished game.
        """
        start = time.monotonic()
        limits = limit if isinstance(limit, Budget) else Budget.of(limit, stop or StopHandle(), start)
        legal = board.legal_move_ints()
        if not legal:
            raise ValueError("the game is over: there is no move to search")
        first = board.legal_moves[0]
        fallback = SearchResult(first, None, 0, 0, 0.0, [first])
        if limits.depth == 0 or limits.out_of_time():
            self._stop_requested = False
            return fallback
        max_depth = MAX_PLY - 2 if limits.depth is None else min(limits.depth, MAX_PLY - 2)
        if len(legal) == 1 and limits.depth is None and not limits.infinite:
            max_depth = 1  # a forced move: one ply to score it is enough
        multipv = max(1, min(multipv, len(legal)))
        self._active = _check_threads(self.threads if threads is None else threads)

        self._generation = (self._generation + 1) & 63
        self.ctl[:] = 0
        if self._stop_requested:  # asked before the flag was cleared
            self.ctl[CTL_STOP] = 1
        self.ctl[CTL_GENERATION] = self._generation
        self.ctl[CTL_NODE_LIMIT] = 0 if limits.nodes is None else max(1, limits.nodes)
        self.ctl[CTL_SHARED] = int(self._active > 1)
        self._busy.fill(0)  # a race can leave an entry behind; it must not outlive its search
        network = None if linear else self.network_for(board.game_type_string)
        if switches is None:
            switches = self.switches if network is None else self.network_switches
        for name, slot in SWITCH_SLOTS.items():
            self.ctl[slot] = switches[name]
        if network is not self._evaluating:
            self.clear()  # the table and the evaluation cache hold the other evaluation's scores
            self._evaluating = network
        self._main.new_search()
        self._main.use_network(network)

        b = board.position_array.copy()
        game = np.array(board.position_hashes(), dtype=np.uint64).view(np.int64)  # the kernels' bit pattern
        path = np.zeros(len(game) + MAX_PLY + 2, dtype=np.int64)
        path[: len(game)] = game
        hp = len(game) - 1
        irrev = hp - board.plies_since_placement()  # no position before this one can occur again

        infos: queue.Queue = queue.Queue()
        state = _IterationState()

        weights = weights_for(self.weights, board.game_type_string)

        def work() -> None:
            try:
                self._iterate(board, b, path, hp, irrev, limits, max_depth, multipv, start, infos, state, weights)
            except BaseException as e:  # surfaced in the calling thread
                state.error = e
            finally:
                infos.put(None)

        helpers = self._start_helpers(b, path, hp, irrev, max_depth, weights, network)
        worker = threading.Thread(target=work, name="hiveai-search", daemon=True)
        worker.start()
        try:
            while True:
                try:
                    item = infos.get(timeout=POLL_INTERVAL)
                except queue.Empty:
                    item = False
                if item is None:
                    break
                if item and on_iteration is not None:
                    on_iteration(item)
                if limits.stopped():
                    self.stop()
        except BaseException:
            self.stop()
            self._join(worker, helpers)
            self._stop_requested = False
            raise
        self._join(worker, helpers)
        if state.error is not None:
            self._stop_requested = False
            raise state.error
        # A bare "bestmove" answers only when told to stop, even after the search is exhausted.
        while limits.infinite and not limits.stop.is_set() and not self._stop_requested:
            time.sleep(POLL_INTERVAL * 5)
        self._stop_requested = False
        return self._result(board, state, fallback, start)

    @staticmethod
    def _join(worker: threading.Thread, helpers: list[Helper]) -> None:
        worker.join()
        for helper in helpers:  # the main thread is done: the helpers stop with it
            helper.join()

    def _start_helpers(self, b, path, hp: int, irrev: int, max_depth: int, weights, network) -> list[Helper]:
        """Start the search's ``threads - 1`` helper threads; returns them."""
        while len(self._helpers) < self._active - 1:
            self._helpers.append(Helper())
        helpers = self._helpers[: self._active - 1]
        for index, helper in enumerate(helpers, 1):
            helper.start(index, b, path, hp, irrev, self.ctl, self._keys, self._data, self._busy, weights,
                         network, max_depth)
        return helpers

    def _iterate(self, board, b, path, hp, irrev, limits, max_depth, multipv, start, infos, state, weights) -> None:
        """Iterative deepening, in the worker thread."""
        ctl, main = self.ctl, self._main
        excl_all = np.zeros(multipv, dtype=np.int32)
        for depth in range(1, max_depth + 1):
            # A new iteration starts whenever the soft deadline has not passed, even
            # if it cannot finish: its first root move is the last best (the TT
            # move), and any root move it proves better is kept (state.partial), so
            # the time up to the hard deadline is spent improving the answer, never
            # thrown away. A per-move budget cannot be saved for later.
            if depth > 1 and limits.soft is not None and time.monotonic() >= limits.soft:
                break
            ctl[CTL_ITER_DEPTH] = depth
            lines: list[tuple[int, int, list[int]]] = []
            for k in range(multipv):
                excl = np.ascontiguousarray(excl_all[:k])
                score = int(search_root(b, main.ws, weights, main.net, main.moves, main.order, main.sd, path,
                                        self._keys, self._data, self._busy, ctl, excl, np.int64(depth),
                                        np.int64(hp), np.int64(irrev)))
                if ctl[CTL_STOP]:
                    if k == 0 and ctl[CTL_ROOT_VALID]:
                        # The root's PV row was written with CTL_ROOT_MOVE and is
                        # left alone by the moves searched after it: the move's line.
                        code, line = int(ctl[CTL_ROOT_MOVE]), main.root_line()
                        state.partial = (code, int(ctl[CTL_ROOT_SCORE]), line if line[:1] == [code] else [code])
                    break
                pv = main.root_line()
                if not pv:  # cannot happen with a full window, but never answer nothing
                    break
                excl_all[k] = pv[0]
                lines.append((pv[0], score, pv))
                elapsed = time.monotonic() - start
                nodes = self._total(CTL_NODES)
                infos.put(SearchInfo(depth, k + 1, score, nodes, elapsed, nodes / elapsed if elapsed > 0 else 0.0,
                                     _pv_moves(board, pv), self._total(CTL_TT_HITS),
                                     self._total(CTL_TT_PROBES)))
            if ctl[CTL_STOP] or len(lines) < multipv:
                break
            state.depth = depth
            state.lines = lines
            state.partial = None
            if limits.depth is None and is_win_score(lines[0][1]) and WIN - abs(lines[0][1]) <= depth:
                break  # a forced result, proven within the horizon: deeper adds nothing

    def _result(self, board: Board, state: _IterationState, fallback: SearchResult, start: float) -> SearchResult:
        seconds = time.monotonic() - start
        nodes, hits, probes = self._total(CTL_NODES), self._total(CTL_TT_HITS), self._total(CTL_TT_PROBES)
        turn = board.turn
        lines = []
        for _, s, pv in state.lines:
            moves = _pv_moves(board, pv)
            lines.append(Line(moves[0], PovScore(Score.from_int(s), turn), moves))
        if state.partial is not None and (not lines or state.partial[0] != lines[0].move.code):
            # The unfinished iteration fully searched a move that beat the old best.
            _, score, pv = state.partial
            moves = _pv_moves(board, pv)
            mv = moves[0]
            pov = PovScore(Score.from_int(score), turn)
            return SearchResult(mv, pov, state.depth, nodes, seconds, moves,
                                [Line(mv, pov, moves)] + [x for x in lines if x.move != mv],
                                hits, probes)
        if not lines:
            fallback.nodes, fallback.seconds = nodes, seconds
            return fallback
        best = lines[0]
        return SearchResult(best.move, best.score, state.depth, nodes, seconds,
                            best.pv, lines, hits, probes)


def chosen_network(game_type: str, network: Network | None = None,
                   weights: np.ndarray | dict[str, np.ndarray] | None = None) -> Network | None:
    """The network that evaluates a ``game_type`` game when ``network`` and ``weights``
    are asked for (None: the linear evaluation): ``network`` in every game type if
    given; else the linear evaluation everywhere if ``weights`` are given or
    $HIVEAI_WEIGHTS sets any; else the default, the shipped network where a match
    made it the default (:func:`hiveai.evaluation.network.default_network`).

    >>> chosen_network("Base+MLP") is not None, chosen_network("Base")
    (True, None)
    """
    if network is not None:
        return network
    if weights is not None or weight_overrides(WEIGHT_NAMES):
        return None
    return default_network(game_type)


@dataclass
class _IterationState:
    depth: int = 0
    lines: list = field(default_factory=list)  # (move, score, pv ints) of the last full iteration
    partial: tuple[int, int, list[int]] | None = None  # (move, score, pv ints) fully searched in an unfinished one
    error: BaseException | None = None


def _check_threads(threads: int) -> int:
    """``threads`` itself if it is a thread count; ValueError otherwise."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    return threads


def _pv_moves(board: Board, pv: list[int]) -> list[Move]:
    """A line of move ints played from ``board`` as :class:`Move` values, each
    named as MoveStrings name it in the position it is played in."""
    b = board.position_array.copy()
    out = []
    for mv in pv:
        out.append(Move(mv, move_to_string(b, mv)))
        do_move(b, mv)
    return out


def _evaluation_args() -> tuple:
    """Arguments for the search's leaf score (negamax._leaf_score) of an empty
    Base+MLP board with the built-in network, of the types the search passes."""
    searcher = Searcher(tt_mb=1)
    main = searcher._main
    main.use_network(searcher.network_for("Base+MLP"))
    b = new_position(parse_game_type_string("Base+MLP"))
    return (b, main.ws, weights_for(searcher.weights, "Base+MLP"), main.net, main.sd, np.zeros(4, dtype=np.int64),
            searcher.ctl, np.int64(1), np.int64(1), np.int64(0), np.int64(-1))


def warm_evaluation() -> None:
    """Compile (or load from numba's cache) the evaluation's kernels, network and
    linear, as the search calls them: one leaf score (see :func:`warmup`)."""
    _leaf_score(*_evaluation_args())


def _evaluation_cached() -> bool:
    """Whether numba's cache holds the leaf score, and with it the evaluation's
    kernels, for the search's argument types (numba's own lookup, which also
    checks the source file's stamp). True when numba's JIT is off."""
    cache = getattr(_leaf_score, "_cache", None)
    if cache is None:
        return True
    signature = tuple(_leaf_score.typeof_pyval(a) for a in _evaluation_args())
    return cache.load_overload(signature, _leaf_score.targetctx) is not None


def warmup() -> None:
    """Compile (or load from numba's cache) every kernel the engine uses.

    From a cold cache that is a minute or more of numba's typing and LLVM's
    optimisation, one kernel at a time (numba compiles under one global lock).
    The rules' entry points (move generation, perft, make and unmake) and the
    evaluation's (features, network, linear) call few kernels in common, so a
    second Python process compiles the evaluation's
    (:func:`warm_evaluation`) into the same disk cache while this one compiles
    the rules'; the search's own kernels then load both halves from the cache.
    If that process cannot run or fails, or the cache cannot be written, this
    process compiles what is missing itself: the same kernels, only later. With
    the evaluation already in the cache no second process starts.
    """
    helper = None
    if not _evaluation_cached():
        package_root = str(Path(__file__).resolve().parents[2])  # where this hiveai is imported from
        code = (f"import sys; sys.path.insert(0, {package_root!r}); "
                "from hiveai.search.searcher import warm_evaluation; warm_evaluation()")
        try:
            helper = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL)
        except OSError:
            pass
    try:
        board_warmup()
    finally:
        if helper is not None:
            try:
                helper.wait(timeout=WARM_HELPER_SECONDS)
            except subprocess.TimeoutExpired:
                helper.kill()
                helper.wait()
    Searcher(tt_mb=1).warm()
