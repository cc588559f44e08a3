"""Shared fixtures: UHP engine processes (see uhp_client.py); and the test tiers.

The tiers, told apart by markers (pyproject.toml registers them):

* unit tests, unmarked: the public API and the kernels, in this process;
* ``integration``: the test starts a process: a UHP engine (hiveai's or a fake one from
  ``fake_engines/``), the command line, a fresh interpreter, pip, Ray. A test that asks for an
  engine fixture (anything built on :func:`warm_cache`) is marked so here; any other test that
  starts a process says so itself, and one that does not fails (:func:`tiers_are_declared`);
* ``browser``: the test drives a real browser (Chromium).

``pytest -m "not slow and not timing and not integration and not browser"`` runs the unit tier
alone (a ``-m`` given on the command line replaces pyproject's).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from uhp_client import COLD_TIMEOUT, MIDGAME, Engine

# --doctest-modules would import this file as a module named ``conftest``, which
# docs/conftest.py (the pages' doctests) already is; it holds no examples.
collect_ignore = ["conftest.py"]


# The fixtures that start processes: a test asking for one (directly or through another fixture)
# is an integration test.
PROCESS_FIXTURES = {"warm_cache", "ray_instance"}
STARTED: list[str] = []  # the programs this process started, in order (the audit hook below)


def _count_processes(event: str, args: tuple) -> None:
    if event == "subprocess.Popen":
        STARTED.append(str(args[0]))


sys.addaudithook(_count_processes)  # Python's audit events: every subprocess.Popen raises one


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def tiers_are_declared(request: pytest.FixtureRequest):
    """A test that starts a process (its own or a function-scoped fixture's) must be marked
    ``integration`` or ``browser``, so that the unit tier stays in this process."""
    before = len(STARTED)
    yield
    started = STARTED[before:]
    if started and not any(request.node.get_closest_marker(tier) for tier in ("integration", "browser")):
        pytest.fail(f"{request.node.nodeid} started {started[0]}: mark it @pytest.mark.integration "
                    "(tests/conftest.py says what each tier holds)", pytrace=False)


def pytest_configure(config: pytest.Config) -> None:
    """Compile the kernels once before parallel workers start, and take the docstring examples from
    the hiveai package that the tests import."""
    compile_before_workers(config)
    doctests_of_the_installed_package(config)


def compile_before_workers(config: pytest.Config) -> None:
    """With pytest-xdist workers (pyproject's ``-n auto``), compile every kernel here first.

    On a cold numba cache (a fresh clone) each worker, and each engine process it starts, would
    otherwise compile the same kernels at the same time, the two cores doing one job twice. Here,
    in the controlling process before any worker exists, they are compiled once into the disk
    cache, which the workers and their engines then load. With ``-n 0`` the tests compile as
    they go, in their own process.
    """
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # a worker, or no workers
    from hiveai.rules.board import Board
    from hiveai.play.hint import reason
    from hiveai.search.searcher import warmup

    warmup()  # the engine's kernels
    # ... and the win-in-one checks of the levels and the play page's hints, which a test gives a few
    # seconds: a worker compiling them there would miss that.
    board = Board.parse(MIDGAME)
    reason(board, board.legal_moves[0], None)


def doctests_of_the_installed_package(config: pytest.Config) -> None:
    """Take the docstring examples from the hiveai package that the tests import.

    pyproject's testpaths name the source tree's hiveai/ for --doctest-modules.
    When hiveai is installed as a copy (CI runs ``pip install .``), collecting
    those files would clash with the installed modules of the same names
    (pytest's "import file mismatch"), so arguments naming the source package
    are pointed at the installed one: the examples then check what is installed.
    """
    import hiveai  # cheap: numba loads only when a board is used

    installed = Path(hiveai.__file__).resolve().parent
    source = (config.rootpath / "hiveai").resolve()
    if installed == source:
        return
    # The engines the tests start (``python -m hiveai``, ``python -c``) run from this folder, whose
    # hiveai/ would come first on their sys.path: they would check the source tree, not the install,
    # and compile every numba kernel a second time (numba caches beside each copy's files). Python's
    # safe-path mode leaves the working directory off sys.path (docs.python.org, "PYTHONSAFEPATH").
    os.environ["PYTHONSAFEPATH"] = "1"
    for i, arg in enumerate(config.args):
        path, sep, rest = arg.partition("::")
        full = (config.invocation_params.dir / path).resolve()
        if full == source or source in full.parents:
            config.args[i] = str(installed / full.relative_to(source)) + sep + rest


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
        e.kill()
