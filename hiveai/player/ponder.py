"""Pondering for the UHP engine (option ``PonderDuringIdle``): search while the opponent thinks.

After a searched ``bestmove`` has answered, :class:`Ponderer` remembers the
position the search predicts (after our move and the PV's reply,
:meth:`Ponderer.predict`), and once the command's ``ok`` is out a ponder
thread searches it into the shared table, printing nothing. The server (see
:mod:`hiveai.uhp.server`) stops it before any command that changes the game or the
settings; the stop flag is read at every node, so that command runs within
milliseconds. Commands that leave both alone run beside it, since it searches
a copy of the position, and so does a ``play`` or ``pass`` along the
prediction: pondering goes on until the game leaves the predicted line. It
prints nothing on stdout; on stderr, each iteration it completes is a Debug
line (``pondering: depth N done``) and its end an Info line (``pondered``).

On a ponder hit under a clock, ``bestmove time T`` takes the running ponder
search over under its own deadlines (:meth:`Ponderer.take_over`) instead of
starting again: a restarted search redoes most of the deepest iteration,
whose table entries were overwritten or bound another window.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Callable, Sequence

from hiveai.search import timeman

if TYPE_CHECKING:
    from hiveai.rules.board import Board
    from hiveai.search.searcher import SearchInfo, SearchResult, Searcher

log = logging.getLogger("hiveai.uhp")


def predicted(board: Board, pv: Sequence[str]) -> Board | None:
    """The position after our move and the reply the PV expects (as far as the
    PV goes), or None when there is nothing to ponder."""
    if not pv:
        return None
    after = board.copy()
    for move in pv[:2]:
        after.play(move)
        if after.is_game_over():
            return None
    return after


class Ponderer:
    """The ponder search of one engine: what to ponder, the thread pondering it, and its last iteration.

    ``report`` prints an iteration as the engine's intermediate line; it is
    called only once a ``bestmove`` has taken the ponder search over (and
    asked for intermediate lines).
    """

    def __init__(self, report: Callable[[SearchInfo], None]) -> None:
        self._report = report
        self._board: Board | None = None  # the position to ponder: after our move and the predicted reply
        self._thread: threading.Thread | None = None
        self._searcher: Searcher | None = None  # the one the ponder thread searches with
        self._stop = timeman.StopFlag()
        self._limits: timeman.Limits | None = None  # the running ponder search's, until a bestmove takes it
        self._result: SearchResult | None = None  # its result, once it has ended
        # Guards the ponder search's last iteration and whether its iterations are
        # printed yet (only once a bestmove has taken it over).
        self._lock = threading.Lock()
        self._info: SearchInfo | None = None
        self._reporting = False

    @property
    def prediction(self) -> Board | None:
        """The position pondered, or to be pondered once the command running ends (None: nothing to ponder)."""
        return self._board

    def predict(self, board: Board, pv: Sequence[str]) -> None:
        """Ponder, after this command, the position ``pv`` (the answer's line on ``board``) predicts."""
        self._board = predicted(board, pv)

    def forget(self) -> None:
        """Stop pondering and drop the prediction (the answer came from elsewhere, e.g. the book)."""
        self.stop()
        self._board = None

    def start(self, game: Board | None, searcher: Callable[[], Searcher], single_threaded: bool) -> None:
        """Ponder the predicted position while ``game`` can still reach it: the
        client's ``play`` of our move, other queries, and the predicted reply
        itself (a ponder hit) keep it; anything else (another reply, undo,
        newgame) drops it. ``searcher`` hands out the engine's searcher, asked
        for only when a search starts; ``single_threaded``: ponder on one thread."""
        board = self._board
        if board is None:
            return
        history = game.move_history if game is not None else None
        if (history is None or game.game_type_string != board.game_type_string
                or history != board.move_history[: len(history)]):
            self.forget()  # a reply other than the predicted one
            return
        if self._thread is not None and self._thread.is_alive():
            return  # it goes on: the command ran beside it
        self.stop()  # a ponder search that failed: joined, and tried again
        engine = self._searcher = searcher()
        threads = 1 if single_threaded else None
        self._stop.clear()
        limits = self._limits = timeman.infinite_limits(self._stop)
        self._result = None
        with self._lock:
            self._info, self._reporting = None, False

        def on_iteration(info: SearchInfo) -> None:
            with self._lock:
                self._info = info
                if self._reporting:
                    self._report(info)
            log.debug("pondering: depth %s done, %s nodes", info.depth, info.nodes)

        def ponder() -> None:
            try:
                result = engine.search(board, limits, on_iteration=on_iteration, threads=threads)
                log.info("pondered %s to depth %s, %s nodes", board.game_string(), result.depth, result.nodes)
                self._result = result
            except Exception:  # pondering is a bonus: never let it break the engine
                log.exception("pondering failed")

        self._thread = threading.Thread(target=ponder, name="hiveai-ponder", daemon=True)
        self._thread.start()

    def take_over(self, board: Board, limits: timeman.Limits, allowed: bool, reporting: bool) -> SearchResult | None:
        """On a ponder hit under a clock, let the running ponder search go on as
        this ``bestmove``'s search, with its deadlines and stop flag, and return
        its result: its unfinished iteration is kept, not searched again.
        ``reporting``: print its iterations from now on, the deepest one so far
        first. Returns None, with pondering stopped, when that does not apply:
        no ponder search, another position, no deadline, or not ``allowed``
        (the caller's: a node limit, a weak level)."""
        thread, ponder_limits = self._thread, self._limits
        hit = (thread is not None and thread.is_alive() and ponder_limits is not None
               and self._board is not None and self._board.move_history == board.move_history
               and limits.hard is not None and allowed)
        if not hit:
            self.stop()
            return None
        # Deadlines first, the infinite mark last: the search's driver reads them
        # without a lock, and must never see "not infinite" with no deadline.
        ponder_limits.hard, ponder_limits.soft, ponder_limits.stop = limits.hard, limits.soft, limits.stop
        ponder_limits.infinite = False
        with self._lock:
            self._reporting = reporting
            if self._reporting and self._info is not None:
                self._report(self._info)  # the deepest iteration pondered so far
        log.info("ponder hit: the ponder search goes on as this bestmove's")
        self._thread = None
        thread.join()
        return self._result

    def stop(self) -> None:
        """Stop pondering (if it runs) and wait until it has."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        self._searcher.stop()  # at once, without waiting for the search's next poll
        thread.join()
        # Had the search ended before the request reached it, the request would
        # stop the next search, a bestmove's, at once.
        self._searcher.forget_stop()
