"""Drive a real ``hiveai`` UHP process over pipes, with timeouts.

``Engine`` is a test helper over the library's UHP client,
:class:`hiveai.engine.UhpEngine`: it starts ``python -m hiveai`` and offers
``cmd(line)``: send one command, return the lines before its ``ok``. It checks
what a conformance test cares about and the client forgives: every line ends
in ``\\n`` alone and is ASCII, and ``ok`` is exactly ``ok``. A hang, a dead
engine or a bad line fails the test with an AssertionError (EngineError)
carrying the engine's stderr. The fixtures built on it are in ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from hiveai import engine as uhp

REPO = Path(__file__).resolve().parent.parent
# The installed hiveai engine, as a command line (the tests start it with the running Python).
HIVEAI = [sys.executable, "-m", "hiveai"]
# Replies normally take milliseconds; this only turns a hang into a failure.
TIMEOUT = 30.0
# The first numba import may compile every kernel when the cache is cold.
COLD_TIMEOUT = 900.0
# A mid-game position used by several tests (Base+MLP, white to move, ply 8).
MIDGAME = ("Base+MLP;InProgress;White[5];wL;bS1 /wL;wQ wL-;bM /bS1;wA1 wQ/;bQ bM\\;"
           "wA1 bQ-;bA1 \\bM")




class EngineError(AssertionError):
    """The engine hung, died or answered out of protocol."""


class Engine:
    """One ``hiveai`` process; ``banner`` holds the lines of its start-up block,
    ``client`` the :class:`hiveai.engine.UhpEngine` under it, ``proc`` its process."""

    def __init__(self, args: tuple[str, ...] = (), read_banner: bool = True,
                 env: dict[str, str] | None = None) -> None:
        self.started = time.monotonic()
        # All of stderr is kept: tests look for what the engine logged.
        self.client = uhp.popen_uhp([*HIVEAI, *args], cwd=REPO, read_banner=False,
                                    env=None if env is None else {**os.environ, **env}, stderr_kept=None)
        self.proc = self.client.proc
        self.banner = self.reply(COLD_TIMEOUT) if read_banner else None

    @contextlib.contextmanager
    def _failing(self) -> Iterator[None]:
        """The client's errors as test failures, with the engine's stderr."""
        try:
            yield
        except uhp.EngineError as e:
            raise EngineError(f"{e}; stderr: {self.stderr_text()[-2000:]}") from None

    # -- raw I/O -------------------------------------------------------------

    def send(self, line: str, end: str = "\n") -> None:
        with self._failing():
            self.client.send(line, end)

    def read_line(self, timeout: float = TIMEOUT) -> str:
        """Next stdout line (without its newline); fails on timeout (the engine is
        killed) or EOF, and on a line ending other than ``\\n``."""
        with self._failing():
            raw = self.client.read_raw_line(timeout)
        assert raw.endswith(b"\n") and not raw.endswith(b"\r\n"), f"bad line ending: {raw!r}"
        return raw[:-1].decode("ascii")

    def reply(self, timeout: float = TIMEOUT) -> list[str]:
        """Lines up to (not including) the next ``ok``."""
        deadline = time.monotonic() + timeout
        out = []
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line == "ok":
                return out
            out.append(line)

    def cmd(self, line: str, timeout: float = TIMEOUT) -> list[str]:
        """Send one command and return its reply lines."""
        self.send(line)
        return self.reply(timeout)

    def cmd1(self, line: str, timeout: float = TIMEOUT) -> str:
        """Send a command whose reply is exactly one line; return it."""
        out = self.cmd(line, timeout)
        assert len(out) == 1, f"{line!r} -> {out!r}"
        return out[0]

    def assert_silent(self, seconds: float = 0.3) -> None:
        """Nothing appears on stdout for ``seconds`` (nor does it close)."""
        with self._failing():
            line = self.client.poll_line(seconds)
        if line is not None:
            raise EngineError(f"unexpected output: {line!r}")

    def sigint(self) -> None:
        self.client.send_signal(signal.SIGINT)

    def alive(self) -> bool:
        return self.client.alive()

    def stderr_text(self) -> str:
        return self.client.stderr_text()

    def close(self, timeout: float = 10.0) -> int:
        """Close stdin and wait for the exit code (killing the process on timeout)."""
        code = self.client.quit(timeout, send_exit=False)
        if code == -signal.SIGKILL:
            raise EngineError(f"engine did not exit within {timeout} s of EOF")
        assert code is not None
        return code

    def kill(self) -> None:
        """Kill and reap the process."""
        self.client.kill()

    # -- UHP helpers ---------------------------------------------------------

    def game_string(self) -> str:
        """The current GameString of an unfinished game, read without changing it.

        UHP has no query for it, so this plays the first valid move and undoes it;
        ``undo`` answers the GameString as it was.
        """
        first = self.cmd1("validmoves").split(";")[0]
        assert not first.startswith("err"), first
        played = self.cmd1(f"play {first}")
        assert not played.startswith(("err", "invalidmove")), played
        return self.cmd1("undo")
