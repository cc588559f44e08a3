"""Installing hiveai: the books, weights and puzzles are found in every install layout, and type
checkers see the library's names (slow: each test builds and installs the package).

* ``pip install --target DIR .`` and ``pip install --prefix DIR .``: the installed engine
  (not this checkout) answers ``bestmove`` in the opening with the book's best move.
* ``mypy --strict`` on a small user script, against a non-editable install, reports no
  missing names or untyped calls.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from hiveai.player import book
from hiveai.rules.board import Board
from hiveai.engine import popen_uhp
from hiveai.search.timeman import Limit

REPO = Path(__file__).resolve().parent.parent
# A fresh install compiles every kernel anew (numba caches by source path): minutes on a loaded machine.
COLD = 1800.0

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def source_copy(tmp_path: Path) -> Path:
    """The files a build needs, copied (so no build/ directory of this checkout leaks in)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "hiveai", "openings"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
        elif (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    return src


def pip_install(src: Path, *args: str, python: Path | None = None) -> None:
    """``pip install`` the copy ``src`` (into ``python``'s environment if given).

    ``--ignore-installed``: without it, ``pip install --prefix DIR`` first uninstalls the
    hiveai of the environment running the tests, which every later test then misses.
    """
    into = [] if python is None else ["--python", str(python)]
    subprocess.run([sys.executable, "-m", "pip", *into, "install", "--no-deps", "--ignore-installed", "-q", *args,
                    str(src)],
                   check=True, cwd=src.parent)


def clean_env(path_entry: Path) -> dict[str, str]:
    """This environment (numba, numpy) with ``path_entry`` first, and no book override."""
    env = {k: v for k, v in os.environ.items() if k not in (book.BOOK_DIR_ENV, "PYTHONPATH")}
    env["PYTHONPATH"] = str(path_entry)
    return env


def installed_plays_book_moves(path_entry: Path, cwd: Path) -> None:
    env = clean_env(path_entry)
    where = subprocess.run([sys.executable, "-c", "import hiveai, hiveai.player.book as b; print(hiveai.__file__); "
                            "print(b.book_dir())"], check=True, capture_output=True, text=True, env=env,
                           cwd=cwd).stdout.split("\n")
    assert Path(where[0]).is_relative_to(path_entry), where  # the installed copy, not this checkout
    assert Path(where[1]).is_relative_to(path_entry), where  # ... and its own books
    # The puzzle collection is package data too (read without replaying: no kernels needed).
    count = subprocess.run([sys.executable, "-c", "import hiveai.puzzles as p; print(len(p.shipped(replay=False)))"],
                           check=True, capture_output=True, text=True, env=env, cwd=cwd).stdout
    assert int(count) >= 600, count
    for game_type in ("Base", "Base+MLP"):
        board = Board(game_type)
        board.push(book.book_move(board, best_only=True))  # the book's own first move: its reply is a book move
        expected = book.book_move(board, best_only=True)
        assert expected is not None
        with popen_uhp([sys.executable, "-m", "hiveai"], env=env, cwd=cwd, timeout=COLD,
                       startup_timeout=COLD) as engine:
            engine.configure({"BookBestMoveOnly": True, "NumThreads": 1})
            # A depth no search reaches in the time allowed: only the book can answer.
            assert engine.play(board, Limit(depth=60), timeout=COLD).move == expected


def test_pip_install_target_plays_book_moves(tmp_path):
    target = tmp_path / "target"
    pip_install(source_copy(tmp_path), "--target", str(target))
    installed_plays_book_moves(target, tmp_path)


def test_pip_install_prefix_plays_book_moves(tmp_path):
    prefix = tmp_path / "prefix"
    pip_install(source_copy(tmp_path), "--prefix", str(prefix))
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)}))
    assert (purelib / "hiveai" / "openings" / "Base.tsv").is_file()
    installed_plays_book_moves(purelib, tmp_path)


USER_SCRIPT = '''
from __future__ import annotations

import sys

import hiveai
import hiveai.engine
from hiveai import BLACK, WHITE, Board, Cell, Direction, Limit, Move, Outcome, PovScore, think


def best(board: Board) -> Move:
    result = think(board, Limit(depth=2, nodes=10_000))
    score: PovScore | None = result.score
    if score is not None and score.white().is_win():
        print("White wins in", score.white().plies())
    return result.move


def main() -> None:
    board = Board("Base+MLP")
    board.push(best(board))
    origin: Cell = Cell(0, 0)
    print(board.piece_at(origin), board.stack_at(origin.neighbour(Direction.E)), board.turn == BLACK)
    outcome: Outcome | None = board.outcome()
    winner: int | None = outcome.winner if outcome is not None else None
    print(winner == WHITE, [str(p) for p in board.pieces_in_hand(WHITE)])
    with hiveai.engine.popen_uhp([sys.executable, "-m", "hiveai"]) as engine:
        engine.configure({"UseBook": False})
        reply: hiveai.engine.PlayResult = engine.play(board, Limit(depth=1))
        move: Move = reply.move
        print(engine.id, move)


if __name__ == "__main__":
    main()
'''


def test_mypy_strict_sees_every_name_of_a_non_editable_install(tmp_path):
    """A fresh venv with hiveai installed from a copy (numpy and numba from this one, after
    its own site-packages); mypy checks the script with that venv's interpreter."""
    pytest.importorskip("mypy")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip_install(source_copy(tmp_path), python=python)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "outer.pth").write_text(sysconfig.get_path("purelib") + "\n")
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(USER_SCRIPT))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH", book.BOOK_DIR_ENV)}
    where = subprocess.run([str(python), "-c", "import hiveai; print(hiveai.__file__)"], check=True,
                           capture_output=True, text=True, env=env, cwd=tmp_path).stdout.strip()
    assert Path(where).is_relative_to(venv), where  # the installed copy, not this checkout
    checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                              "--python-executable", str(python), str(script)],
                             capture_output=True, text=True, env=env, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The check can fail: a misspelt name is reported (hiveai's lazy __getattr__ is hidden from mypy).
    typo = tmp_path / "typo_script.py"
    typo.write_text("from hiveai import Boart\nimport hiveai.engine\nhiveai.engine.popen_uhq(['x'])\n")
    failed = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                             "--python-executable", str(python), str(typo)],
                            capture_output=True, text=True, env=env, cwd=tmp_path)
    assert failed.returncode == 1 and '"Boart"' in failed.stdout and "popen_uhq" in failed.stdout, failed.stdout
    # The script runs, too, against the same install.
    ran = subprocess.run([str(python), str(script)], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=COLD)
    assert ran.returncode == 0, ran.stderr


def venv_python(path: Path) -> Path:
    """A fresh virtual environment at ``path``; its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    return path / "bin" / "python"


def test_release_wheel_and_sdist_pass_twine_and_the_wheel_plays_in_a_clean_venv(tmp_path):
    """The release as a user gets it: ``python -m build`` makes a wheel and an sdist named by
    the version, ``twine check`` passes both, and the wheel, installed with its dependencies
    into a clean venv, plays a game over UHP against itself."""
    import hiveai

    tools = venv_python(tmp_path / "tools")
    subprocess.run([str(tools), "-m", "pip", "install", "-q", "build", "twine"], check=True)
    dist = tmp_path / "dist"
    subprocess.run([str(tools), "-m", "build", "--outdir", str(dist), str(source_copy(tmp_path))], check=True,
                   capture_output=True)
    version = hiveai.__version__
    wheel, sdist = dist / f"hiveai-{version}-py3-none-any.whl", dist / f"hiveai-{version}.tar.gz"
    assert sorted(dist.iterdir()) == sorted([wheel, sdist])
    checked = subprocess.run([str(tools), "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                             capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr

    clean = venv_python(tmp_path / "clean")
    subprocess.run([str(clean), "-m", "pip", "install", "-q", str(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in (book.BOOK_DIR_ENV, "PYTHONPATH")}
    board = Board("Base+MLP")
    with popen_uhp([str(clean.parent / "hiveai")], env=env, cwd=tmp_path, timeout=COLD,
                   startup_timeout=COLD) as engine:
        assert engine.id == f"hiveai v{version}"
        engine.configure({"NumThreads": 1})
        while len(board.move_history) < 16 and not board.is_game_over():
            move = engine.play(board, Limit(depth=2), timeout=COLD).move
            assert move in board.legal_moves
            board.push(move)
    assert len(board.move_history) == 16 or board.is_game_over()
