"""Shared fixtures: UHP engine processes (see uhp_client.py)."""

from __future__ import annotations

import pytest
from uhp_client import COLD_TIMEOUT, MIDGAME, Engine


@pytest.fixture(scope="session")
def warm_cache():
    """Compile (or load) every kernel once before timed tests run.

    Runs the engine through the commands that touch all kernels, with a long
    timeout: on a cold numba cache this is where the compiling happens.
    """
    e = Engine()
    e.cmd(f"newgame {MIDGAME}", COLD_TIMEOUT)
    e.cmd("validmoves", COLD_TIMEOUT)
    e.cmd("bestmove depth 1", COLD_TIMEOUT)
    e.send("exit")
    e.close()


@pytest.fixture(scope="module")
def engine(warm_cache):
    """One engine shared by a test module; tests start their own games."""
    e = Engine()
    yield e
    if e.alive():
        e.send("exit")
        e.close()


@pytest.fixture
def fresh_engine(warm_cache):
    """A new engine per test, for tests about start-up, signals or exit."""
    engines: list[Engine] = []

    def start(*args: str, read_banner: bool = True, env: dict[str, str] | None = None) -> Engine:
        engines.append(Engine(args, read_banner=read_banner, env=env))
        return engines[-1]

    yield start
    for e in engines:
        if e.alive():
            e.proc.kill()
            e.proc.wait()
