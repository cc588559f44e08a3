"""The Universal Hive Protocol server: ``hiveai`` on stdin/stdout.

Protocol rules this module keeps (the UHP specification, UHP_SPEC_URL below,
and docs/protocol-notes.md, section 1):

* The ``info`` block is printed unprompted at start-up, *before* numba or
  :mod:`hiveai.rules.board` is imported; the viewer waits for it and nothing else.
  The board module is imported by the first command that needs a game.
* Every command line gets exactly one final ``ok``; ``exit`` gets none and
  blank lines get no output at all. Failures answer ``err <msg>`` (or
  ``invalidmove <msg>`` for a rejected MoveString) and leave the state as it was.
* stdout carries protocol lines only, each flushed at once. The real stdout
  file descriptor is kept private and fd 1 / ``sys.stdout`` are pointed at
  stderr, so a stray ``print`` or C-level write cannot corrupt a reply.
* SIGINT during ``bestmove`` stops the search, which answers its best move so
  far plus ``ok``; SIGINT at any other time is ignored. The search kernel runs
  in a worker thread without the GIL; the main thread waits, and the signal
  handler (which runs in the main thread) sets the stop handle it watches.
* End of input: the commands already read are finished, then exit code 0. A
  bare ``bestmove`` (think until SIGINT) whose input has ended, before the
  command or while it thinks, thinks for EOF_THINK_SECONDS from the command
  and answers, since no SIGINT can be coming: a reader thread watches stdin.
* Pondering (option ``PonderDuringIdle``): after a searched ``bestmove`` has
  answered and printed ``ok``, a ponder thread searches the position after
  the predicted reply (the PV's second move) into the shared table, printing
  nothing. Commands that leave the game and the settings alone (``info``,
  ``validmoves``, ``options`` but for ``options set``, and a ``play`` or
  ``pass`` along the prediction) run beside it, since it searches a copy of
  the position; any other line (including ``exit`` and the end of input)
  stops it before it runs. On a ponder hit, ``bestmove time T`` takes the
  running ponder search over.

This module parses the commands and answers them; it only translates. What
decides a move is the engine's (:class:`hiveai.player.Engine`: its options, the
book, the level, pondering, the searcher made in the background after the
banner, time management). What only UHP needs is here and in
:mod:`hiveai.uhp.interrupts` (SIGINT, the end-of-input timer, EOF_THINK_SECONDS),
with the node-budget switch (:func:`node_budget`).
"""

from __future__ import annotations

import logging
import os
import queue
import re
import signal
import sys
import threading
import time
from typing import Callable, Iterable, TextIO

from hiveai import ENGINE_NAME, __version__
from hiveai.errors import GAME_OVER, GameOverError, HiveError
from hiveai.player import CPUS, Engine
from hiveai.search.timeman import Limit, parse_timespan
from hiveai.switches import nodes_per_second
from hiveai.uhp.interrupts import Interrupts

log = logging.getLogger("hiveai.uhp")

CAPABILITIES = "Mosquito;Ladybug;Pillbug"

# The protocol's public specification, named in messages a user reads.
UHP_SPEC_URL = "https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol"

# Mzinga's wording, which clients and users already know.
NO_GAME = "No game in progress. Try 'newgame' to start a new game."
BESTMOVE_USAGE = "Usage: bestmove [time hh:mm:ss[.fffffff] | depth N]"

_UNSIGNED = re.compile(r"^\d+$")

# Commands that may run while a ponder search goes on: they change neither the
# engine's settings nor the game, except a play or pass, which is checked against
# the prediction once it has run (a miss stops the ponder search then).
# ``bestmove`` decides for itself (a ponder hit takes the search over).
BESIDE_PONDERING = frozenset({"info", "validmoves", "play", "pass", "bestmove"})


def node_budget(seconds: float) -> int | None:
    """The node limit that stands for ``bestmove time`` of ``seconds`` under
    $HIVEAI_NODESTIME (at least one node), or None when the switch is off.

    For tuning matches on a shared machine (cutechess's "nodestime"): the budget
    in nodes does not depend on the machine's speed or load. ValueError naming
    the variable when it is malformed (see :mod:`hiveai.switches`)."""
    rate = nodes_per_second()
    return max(1, int(seconds * rate)) if rate else None


def _runs_beside_pondering(line: str) -> bool:
    """Whether command ``line`` leaves a running ponder search alone (above);
    ``options`` does unless it sets one."""
    words = line.lower().split()
    if words[0] == "options":
        return len(words) < 2 or words[1] != "set"
    return words[0] in BESIDE_PONDERING


class CommandError(Exception):
    """Answered as ``err <message>``."""


class InvalidMove(Exception):
    """Answered as ``invalidmove <message>``."""


def _one_line(text: object) -> str:
    """A message squeezed onto one line, as Mzinga does."""
    return " ".join(str(text).split()) or "Unknown error."


class UhpServer:
    """Reads UHP commands, keeps the current game, writes replies.

    ``out`` receives protocol lines only. The server holds at most one
    :class:`hiveai.rules.board.Board`; every command either changes it completely
    or not at all. Its :attr:`engine` decides the moves and owns the options (all
    the CPUs by default, NumThreads' default).
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.board = None  # hiveai.rules.board.Board once a game exists
        self.engine = Engine(threads=CPUS)
        self.options = self.engine.options
        self.interrupts = Interrupts()  # the bestmove's stop handle: SIGINT, the end-of-input timer
        self._commands: dict[str, Callable[[list[str], str], Iterable[str]]] = {
            "info": self.cmd_info,
            "newgame": self.cmd_newgame,
            "play": self.cmd_play,
            "pass": self.cmd_pass,
            "validmoves": self.cmd_validmoves,
            "bestmove": self.cmd_bestmove,
            "undo": self.cmd_undo,
            "options": self.cmd_options,
        }

    # -- output ---------------------------------------------------------

    def emit(self, line: str) -> None:
        """Write one protocol line and flush it."""
        self.out.write(line + "\n")
        self.out.flush()

    # -- main loop ------------------------------------------------------

    def serve(self, inp: TextIO) -> int:
        """Print the banner, then answer commands until ``exit`` or EOF. Returns the exit code.

        A reader thread feeds the lines through a queue, so that the end of
        input is seen even while a bare ``bestmove`` is thinking.
        """
        self.execute("info")
        self.engine.warm(background=True)  # the banner is out already
        lines: queue.Queue = queue.Queue()

        def read() -> None:
            try:
                for line in iter(inp.readline, ""):
                    lines.put(line)
            finally:
                self.interrupts.input_ended()
                lines.put(None)

        threading.Thread(target=read, name="hiveai-stdin", daemon=True).start()
        try:
            while True:
                line = lines.get()
                if line is not None and not line.strip():
                    continue  # a blank line: no output at all (Mzinga), and pondering goes on
                if line is None or not _runs_beside_pondering(line):
                    self.engine.stop_pondering()
                if line is None or not self.execute(line):  # EOF or exit
                    return 0
                self.engine.ponder(self.board)
        finally:
            # Let a warm-up still loading kernels finish rather than exiting
            # under a thread that is inside numba.
            self.engine.ready()

    def execute(self, line: str) -> bool:
        """Answer one command line. Returns False for ``exit``."""
        self.interrupts.command_start = time.monotonic()  # bestmove's budget counts from here
        words = line.split()
        if not words:
            return True  # blank line: no output at all (Mzinga)
        keyword = words[0].lower()
        if keyword == "exit":
            return False
        # Everything after the keyword, for arguments that contain spaces.
        rest = line.strip()[len(words[0]):].strip()
        handler = self._commands.get(keyword)
        try:
            if handler is None:
                raise CommandError(f"Invalid command. The commands are {', '.join(self._commands)} and exit; "
                                   f"see {UHP_SPEC_URL}")
            for reply in handler(words[1:], rest):
                self.emit(reply)
        except CommandError as e:
            self.emit("err " + _one_line(e))
        except InvalidMove as e:
            self.emit("invalidmove " + _one_line(e))
        except Exception as e:  # a bug must not kill the engine or skip the ok
            log.exception("internal error on %r", line.strip())
            self.emit("err Internal error: " + _one_line(f"{type(e).__name__}: {e}"))
        self.emit("ok")
        return True

    def on_sigint(self, signum: int, frame: object) -> None:
        """SIGINT handler: stop a running bestmove, otherwise do nothing."""
        self.interrupts.interrupt()

    # -- helpers --------------------------------------------------------

    @staticmethod
    def _no_args(name: str, args: list[str]) -> None:
        if args:
            raise CommandError(f"'{name}' takes no arguments.")

    def _game(self, playable: bool = True):
        """The current board; with ``playable``, it must not be over."""
        if self.board is None:
            raise CommandError(NO_GAME)
        if playable and self.board.is_game_over():
            raise CommandError(GAME_OVER)
        return self.board

    def _play(self, text: str) -> Iterable[str]:
        board = self._game()
        try:
            board.play(text)
        except GameOverError:
            raise CommandError(GAME_OVER) from None
        except HiveError as e:  # MoveStringError, IllegalMoveError: the move was rejected
            raise InvalidMove(e) from None
        return [board.game_string()]

    # -- commands -------------------------------------------------------

    def cmd_info(self, args: list[str], rest: str) -> Iterable[str]:
        """``info``: identity and capability lines."""
        self._no_args("info", args)
        return [f"id {ENGINE_NAME} v{__version__}", CAPABILITIES]

    def cmd_newgame(self, args: list[str], rest: str) -> Iterable[str]:
        """``newgame [GameTypeString | GameString]``; a bad argument keeps the old game."""
        from hiveai.rules.board import (
            Board,  # first numba import happens here, after the banner
        )

        # Moves contain spaces: re-join the tokens with single spaces, as Mzinga does.
        text = " ".join(args) if args else "Base"
        try:
            board = Board.parse(text)
        except HiveError as e:
            raise CommandError(e) from None
        mismatch = board.head_mismatch(text)
        if mismatch:
            log.warning("newgame: %s Playing the moves, as Mzinga does.", mismatch)
        self.board = board
        self.engine.new_game()  # nothing learnt carries over; answered once the search is ready
        return [board.game_string()]

    def cmd_play(self, args: list[str], rest: str) -> Iterable[str]:
        """``play MoveString``: the new GameString, or ``invalidmove``."""
        self._game()
        if not args:
            raise CommandError("Missing MoveString. Usage: play MoveString")
        return self._play(rest)

    def cmd_pass(self, args: list[str], rest: str) -> Iterable[str]:
        """``pass``: same as ``play pass``."""
        self._no_args("pass", args)
        return self._play("pass")

    def cmd_validmoves(self, args: list[str], rest: str) -> Iterable[str]:
        """``validmoves``: all legal moves on one ``;``-separated line, or ``pass``."""
        self._no_args("validmoves", args)
        return [self._game().valid_moves_string()]

    def cmd_undo(self, args: list[str], rest: str) -> Iterable[str]:
        """``undo [N]``: take back N plies (default 1); works after the game ended."""
        board = self._game(playable=False)
        if len(args) > 1 or (args and not _UNSIGNED.match(args[0])):
            raise CommandError(f"Unable to undo '{rest}': expected a whole number of moves.")
        try:
            board.undo(int(args[0]) if args else 1)
        except HiveError as e:
            raise CommandError(e) from None
        return [board.game_string()]

    def cmd_options(self, args: list[str], rest: str) -> Iterable[str]:
        """``options``, ``options get Name``, ``options set Name Value``."""
        if not args:
            return self.options.lines()
        verb = args[0].lower()
        try:
            if verb == "get" and len(args) == 2:
                return [self.options.line(args[1])]
            if verb == "set" and len(args) >= 3 and args[1].lower() == "evalfile":
                # A path may hold spaces: everything after the name. The engine loads the weights
                # or the network, or keeps the evaluation in use and names the file and the problem.
                line, _ = self.engine.set_option("EvalFile", rest.split(None, 2)[2])
                return [line]
            if verb == "set" and len(args) == 3:
                line, note = self.engine.set_option(args[1], args[2])
                if note:
                    log.warning("options: %s", note)
                self.apply_log_level()
                return [line]
        except (KeyError, ValueError) as e:
            raise CommandError(e.args[0] if e.args else e) from None
        raise CommandError("Usage: options | options get Name | options set Name Value")

    def apply_log_level(self) -> None:
        """Make the LogLevel option take effect (the process's logging, on stderr)."""
        logging.getLogger("hiveai").setLevel(self.options["LogLevel"].upper())

    def cmd_bestmove(self, args: list[str], rest: str) -> Iterable[str]:
        """``bestmove [time T | depth N]``: the chosen move; the game is not changed.

        A bare ``bestmove`` thinks until SIGINT (or the end of input), like
        UCI's ``go infinite``. The engine decides: the book, the level, a ponder
        hit or the search (:meth:`hiveai.player.Engine.play`).
        """
        board = self._game()
        limit = self._limit(args)
        interrupts = self.interrupts
        interrupts.begin_bestmove(limit.is_empty())
        report = self._report if self.options["ReportIntermediateBestMoves"] else None
        try:
            result = self.engine.play(board, limit, on_iteration=report, stop=interrupts.stop,
                                      started=interrupts.command_start)
        finally:
            interrupts.end_bestmove()
        if result.source == "book":
            log.info("bestmove %s from the book", result.move_string)
        else:
            score = None if result.score is None else result.score.relative.to_int()
            log.info("bestmove %s score %s depth %s nodes %s in %.3f s", result.move_string,
                     score, result.depth, result.nodes, time.monotonic() - interrupts.command_start)
        return [result.move_string]

    def _report(self, info) -> None:
        """Mzinga's intermediate line: ``move;depth;score;pv...`` (ReportIntermediateBestMoves)."""
        if info.multipv == 1 and info.pv:
            pv = [str(m) for m in info.pv]
            self.emit(";".join([pv[0], str(info.depth), str(info.score), *pv]))

    def _limit(self, args: list[str]) -> Limit:
        """Parse ``time T`` / ``depth N`` / nothing into the engine's limit (empty: until stopped)."""
        if not args:
            return Limit()
        if len(args) != 2:
            raise CommandError(BESTMOVE_USAGE)
        mode, value = args[0].lower(), args[1]
        if mode == "depth":
            if not _UNSIGNED.match(value):
                raise CommandError(f"Depth must be a whole number >= 0, not '{value}'.")
            return Limit(depth=int(value))
        if mode == "time":
            try:
                seconds = parse_timespan(value)
            except ValueError as e:
                raise CommandError(e) from None
            if seconds < 0:
                raise CommandError(f"Time must not be negative, not '{value}'.")
            try:
                nodes = node_budget(seconds)
            except ValueError as e:
                raise CommandError(e) from None
            if nodes is not None:
                # A tuning match on a busy machine: the budget in nodes, not seconds.
                return Limit(nodes=nodes)
            return Limit(time=seconds)
        raise CommandError(BESTMOVE_USAGE)


def _claim_stdout() -> TextIO:
    """A private, line-flushed text stream on the real stdout; fd 1 then points at stderr.

    Protects the protocol from anything else that writes to stdout (a library
    ``print``, a C extension). Falls back to ``sys.stdout`` when it has no file
    descriptor (for example under a test harness).
    """
    try:
        fd = os.dup(sys.stdout.fileno())
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        sys.stdout.reconfigure(line_buffering=True)
        return sys.stdout
    sys.stdout = sys.stderr
    # Stay ASCII (docs/protocol-notes.md, "Framing"): echoed junk input is escaped, never crashes the writer.
    return open(fd, "w", encoding="ascii", errors="backslashreplace", newline="\n", buffering=1)


def main() -> int:
    """Run the UHP engine on stdin/stdout; returns the process exit code."""
    logging.basicConfig(stream=sys.stderr, format="%(name)s: %(levelname)s: %(message)s")
    out = _claim_stdout()
    server = UhpServer(out)
    # Python's default SIGINT handler raises KeyboardInterrupt, which would kill
    # the engine mid-reply; ours only stops a running search.
    signal.signal(signal.SIGINT, server.on_sigint)
    server.apply_log_level()
    # Undecodable bytes must not kill the loop; CRLF is handled by universal newlines.
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    try:
        return server.serve(sys.stdin)
    except BrokenPipeError:
        # The client went away; nothing left to answer. Silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        return 0
