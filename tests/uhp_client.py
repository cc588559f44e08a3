"""Drive a real ``hiveai`` UHP process over pipes, with timeouts.

``Engine`` starts ``python -m hiveai``, reads its stdout and stderr on
background threads (so a read can time out instead of hanging the test run),
and offers ``cmd(line)``: send one command, return the lines before its
``ok``. The fixtures built on it are in ``conftest.py``.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
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
    """One ``hiveai`` process; ``banner`` holds the lines of its start-up block."""

    def __init__(self, args: tuple[str, ...] = (), read_banner: bool = True,
                 env: dict[str, str] | None = None) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hiveai", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
            env=None if env is None else {**os.environ, **env},
        )
        self.lines: queue.Queue[tuple[float, bytes | None]] = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self._err), daemon=True).start()
        self.banner = self.reply(COLD_TIMEOUT) if read_banner else None

    @staticmethod
    def _pump(stream, put) -> None:
        for raw in iter(stream.readline, b""):
            put((time.monotonic(), raw))
        put((time.monotonic(), None))

    def _err(self, item: tuple[float, bytes | None]) -> None:
        if item[1] is not None:
            self.stderr.append(item[1])

    # -- raw I/O -------------------------------------------------------------

    def send(self, line: str, end: str = "\n") -> None:
        self.proc.stdin.write((line + end).encode())
        self.proc.stdin.flush()

    def read_line(self, timeout: float = TIMEOUT) -> str:
        """Next stdout line (without its newline); fails on timeout or EOF."""
        try:
            _, raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise EngineError(f"no output within {timeout} s; stderr: {self.stderr_text()[-2000:]}") from None
        if raw is None:
            raise EngineError(f"engine closed stdout; stderr: {self.stderr_text()[-2000:]}")
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
        """Nothing appears on stdout for ``seconds``."""
        try:
            _, raw = self.lines.get(timeout=seconds)
        except queue.Empty:
            return
        raise EngineError(f"unexpected output: {raw!r}")

    def sigint(self) -> None:
        self.proc.send_signal(signal.SIGINT)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_text(self) -> str:
        return b"".join(self.stderr).decode(errors="replace")

    def close(self, timeout: float = 10.0) -> int:
        """Close stdin and wait for the exit code (killing the process on timeout)."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise EngineError(f"engine did not exit within {timeout} s of EOF") from None

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
