"""Pondering (the engine's option ``PonderDuringIdle``): search while the opponent thinks.

The engine (:class:`hiveai.player.Engine`) owns a :class:`Ponderer`. After a searched
move has been played (:meth:`Engine.play <hiveai.player.Engine.play>`), the ponderer
remembers the position the search predicts (after our move and the PV's reply,
:meth:`Ponderer.predict`), and once the answer is out (:meth:`Engine.ponder
<hiveai.player.Engine.ponder>`; over UHP, after the command's ``ok``) a ponder
thread searches it into the shared table, printing nothing. The UHP server (see
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

from hiveai.search.timeman import Budget, Limit, StopHandle

if TYPE_CHECKING:
    from hiveai.rules.board import Board
    from hiveai.search.searcher import SearchInfo, SearchResult, Searcher

log = logging.getLogger("hiveai.player")


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
    """The ponder search of one engine: what to ponder, the thread pondering it, and its last iteration."""

    def __init__(self) -> None:
        self._report: Callable[[SearchInfo], None] | None = None  # a bestmove's on_iteration, once it took over
        self._board: Board | None = None  # the position to ponder: after our move and the predicted reply
        self._thread: threading.Thread | None = None
        self._searcher: Searcher | None = None  # the one the ponder thread searches with
        self._stop = StopHandle()
        self._limits: Budget | None = None  # the running ponder search's, until a bestmove takes it
        self._result: SearchResult | None = None  # its result, once it has ended
        # Guards the ponder search's last iteration and whether its iterations are
        # reported yet (only once a bestmove has taken it over).
        self._lock = threading.Lock()
        self._info: SearchInfo | None = None

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

    def start(self, game: Board | None, make_searcher: Callable[[], Searcher], single_threaded: bool) -> None:
        """Ponder the predicted position while ``game`` can still reach it: the
        client's ``play`` of our move, other queries, and the predicted reply
        itself (a ponder hit) keep it; anything else (another reply, undo,
        newgame) drops it. ``make_searcher`` hands out the engine's searcher, asked
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
        searcher = self._searcher = make_searcher()
        threads = 1 if single_threaded else None
        self._stop.clear()
        limits = self._limits = Budget.of(Limit(), self._stop)
        self._result = None
        with self._lock:
            self._info, self._report = None, None

        def on_iteration(info: SearchInfo) -> None:
            with self._lock:
                self._info = info
                if self._report is not None:
                    self._report(info)
            log.debug("pondering: depth %s done, %s nodes", info.depth, info.nodes)

        def ponder() -> None:
            try:
                result = searcher.search(board, limits, on_iteration=on_iteration, threads=threads)
                log.info("pondered %s to depth %s, %s nodes", board.game_string(), result.depth, result.nodes)
                self._result = result
            except Exception:  # pondering is a bonus: never let it break the engine
                log.exception("pondering failed")

        self._thread = threading.Thread(target=ponder, name="hiveai-ponder", daemon=True)
        self._thread.start()

    def take_over(self, board: Board, limits: Budget, allowed: bool,
                  on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult | None:
        """On a ponder hit under a clock, let the running ponder search go on as
        this move's search, with its deadlines and stop handle, and return
        its result: its unfinished iteration is kept, not searched again.
        ``on_iteration`` (if given) sees its iterations from now on, the deepest
        one so far first. Returns None, with pondering stopped, when that does not apply:
        no ponder search, another position, no deadline, or not ``allowed``
        (the caller's: a node limit, a weak level)."""
        thread, ponder_limits = self._thread, self._limits
        hit = (thread is not None and thread.is_alive() and ponder_limits is not None
               and self._board is not None and self._board.move_history == board.move_history
               and limits.hard is not None and allowed)
        if not hit:
            self.stop()
            return None
        ponder_limits.take_over(limits)
        with self._lock:
            self._report = on_iteration
            if on_iteration is not None and self._info is not None:
                on_iteration(self._info)  # the deepest iteration pondered so far
        log.info("ponder hit: the ponder search goes on as this bestmove's")
        self._thread = None
        thread.join()
        return self._result

    def stop(self) -> None:
        """Stop pondering (if it runs) and wait until it has."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.stop()
        self._searcher.stop()  # at once, without waiting for the search's next poll
        thread.join()
        # Had the search ended before the request reached it, the request would
        # stop the next search, a bestmove's, at once.
        self._searcher.forget_stop()
