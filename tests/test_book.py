"""Opening books: the shipped files, the symmetry key, the engine API, the builder.

What the shipped books promise, tested here: every line of every shipped book
replays legally; a position reached in any of the twelve orientations and at
any translation finds the same entry and maps the book move back; book moves
answer fast and vary; a build stopped midway resumes and loses nothing; an
installed (non-editable) hiveai finds the books.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from hiveai.player import book
from hiveai.rules.board import Board, Move
from hiveai.player.book import Book, Entry, StoredMove, book_dir, book_move, book_path, entry_moves, lookup, to_stored
from hiveai.training.bookbuild import ALL_GAME_TYPES, BuildSettings, build, child_key

SHIPPED = (*ALL_GAME_TYPES, "Critters")  # the books in openings/: every standard type and the variant
from hiveai.rules.bug import PIECE_NAMES, parse_game_type
from hiveai.records import read_games
from hiveai.rules.hex_grid import CELL_MASK, GRID, ORIGIN
from hiveai.rules.position import MOVE_PIECE_SHIFT, PASS, do_move, new_position
from hiveai.rules.symmetry import SYMMETRIES, frame_of, transform

REPO = Path(__file__).resolve().parent.parent
BOOK_PLIES = 8  # every line the engine plays from the book is covered this deep
# A small, fast build for the builder tests (depth 2 searches take milliseconds).
SMALL = BuildSettings(plies=3, depth=2, multipv=2, width=(2, 2, 1), named=False)


@pytest.fixture(autouse=True)
def _shipped_books(monkeypatch):
    """Every test starts with the shipped books and an empty cache."""
    monkeypatch.delenv(book.BOOK_DIR_ENV, raising=False)
    book.clear_cache()
    yield
    book.clear_cache()


def _replay(game_type: str, line: list[str]) -> Board:
    board = Board(game_type)
    for m in line:
        board.play(m)
    return board


def _shipped(game_type: str) -> Book:
    return Book.read(book_path(game_type, book_dir()))


# --- the shipped books ---------------------------------------------------------


def test_a_book_is_found_for_every_game_type():
    assert book_dir() is not None
    for gt in SHIPPED:
        b = book.load(parse_game_type(gt))
        assert b is not None and len(b) > 0, gt


@pytest.mark.parametrize("game_type", SHIPPED)
def test_every_line_of_the_shipped_book_is_legal(game_type):
    """Each entry's line replays to its key, and every stored move maps to a legal move."""
    shipped = _shipped(game_type)
    for entry in shipped.entries():
        board = _replay(game_type, entry.line)  # raises on an illegal move
        frame = frame_of(board.position_array)
        assert frame.key == entry.key, entry.line
        assert len(entry_moves(board, entry, frame)) == len(entry.moves), entry.line
    # And walking the tree from the empty board through every stored move.
    seen: set[str] = set()

    def walk(board: Board) -> None:
        frame = frame_of(board.position_array)
        entry = shipped.get(frame.key)
        if entry is None or frame.key in seen:
            return
        seen.add(frame.key)
        moves = entry_moves(board, entry, frame)
        assert len(moves) == len(entry.moves), board.game_string()
        for mv, _ in moves:
            board.push(mv)
            walk(board)
            board.pop()

    walk(Board(game_type))
    assert seen


@pytest.mark.parametrize("game_type", SHIPPED)
def test_every_engine_line_is_covered_to_ply_8(game_type):
    """Following book moves (weight > 0) from the empty board, the book never runs out before ply 8."""
    shipped = _shipped(game_type)
    todo, seen = [Board(game_type)], set()
    while todo:
        board = todo.pop()
        key = frame_of(board.position_array).key
        if key in seen or board.ply >= BOOK_PLIES or board.is_game_over():
            continue
        seen.add(key)
        entry = shipped.get(key)
        assert entry is not None, f"not in book: {board.game_string()}"
        playable = [mv for mv, m in entry_moves(board, entry) if m.weight > 0]
        assert playable, f"no book move: {board.game_string()}"
        for mv in playable:
            child = board.copy()
            child.push(mv)
            todo.append(child)


def test_named_openings_are_in_the_book_as_far_as_the_search_agrees():
    """The first move of each named opening is a book move unless the search scored it out."""
    shipped = _shipped("Base")
    root = shipped.get(frame_of(Board("Base").position_array).key)
    firsts = {r.moves[0] for r in read_games(REPO / "openings" / "named.txt") if r.game_type == "Base"}
    best = max(m.score for m in root.moves if m.weight > 0)
    by_name = {PIECE_NAMES[m.piece]: m for m in root.moves}
    for name in firsts:
        m = by_name.get(name)
        assert m is not None and m.depth > 0, name
        assert (m.weight > 0) == (best - m.score <= int(shipped.header["margin"])), name


# --- symmetry --------------------------------------------------------------------


def _offset(cell: int) -> tuple[int, int]:
    """(q, r) of a cell relative to the origin (opening positions stay near it)."""
    return cell % GRID - ORIGIN % GRID, cell // GRID - ORIGIN // GRID


def _moved(cell: int, sym: int, shift: tuple[int, int]) -> int:
    q, r = transform(sym, *_offset(cell))
    return (ORIGIN + q + shift[0] + GRID * (r + shift[1])) & CELL_MASK


def _moved_move(move: int, sym: int, shift: tuple[int, int]) -> int:
    if move == PASS:
        return move
    return ((move >> MOVE_PIECE_SHIFT) << MOVE_PIECE_SHIFT) | _moved(move & CELL_MASK, sym, shift)


def _moved_board(game_type: str, moves: list[int], sym: int, shift: tuple[int, int]) -> Board:
    """A Board whose position is the game ``moves`` turned by ``sym`` and shifted by ``shift``.

    Built by playing the moved moves on a position array (the game always
    starts at the origin, so a translated game cannot be played as UHP text).
    """
    b = new_position(parse_game_type(game_type))
    for mv in moves:
        do_move(b, _moved_move(mv, sym, shift))
    return Board.from_position_array(b)


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_same_entry_in_all_orientations_and_translations(game_type):
    shipped = _shipped(game_type)
    rng = random.Random(8)
    # Book positions at several depths, from the book's own lines.
    lines = sorted((e.line for e in shipped.entries() if e.ply in (1, 2, 3, 5, 7)), key=len)
    for line in lines[:: max(1, len(lines) // 12)]:
        original = Board(game_type)
        moves = [original.play(m).code for m in line]
        entry = shipped.get(frame_of(original.position_array).key)
        expected = {bm.move.code: bm for bm in lookup(original)}
        for sym in range(len(SYMMETRIES)):
            shift = (rng.randint(-40, 40), rng.randint(-40, 40))  # wraps round the 32 x 32 torus
            board = _moved_board(game_type, moves, sym, shift)
            assert frame_of(board.position_array).key == entry.key
            found = lookup(board)
            assert len(found) == len(expected)
            for bm in found:
                original_move = next((mv for mv in expected if _moved_move(mv, sym, shift) == bm.move.code), None)
                if original_move is None:
                    # Only for a symmetric position: a different but equivalent move.
                    assert any(child_key(board, bm.move.code) == child_key(board, _moved_move(mv, sym, shift))
                               for mv in expected)
                    continue
                assert expected[original_move].weight == bm.weight
                assert expected[original_move].score == bm.score


def test_black_first_replies_are_one_entry_in_all_six_directions():
    """Ply 1: the six cells around White's first piece are one position."""
    board = Board("Base")
    board.play("wG1")
    keys = set()
    for d in ("wG1-", "wG1/", "wG1\\", "-wG1", "/wG1", "\\wG1"):
        board.play("bS1 " + d)
        keys.add(frame_of(board.position_array).key)
        assert lookup(board) is not None
        board.pop()
    assert len(keys) == 1


def test_asymmetric_positions_get_different_keys():
    a = _replay("Base", ["wS1", "bS1 wS1-", "wQ -wS1"])
    b = _replay("Base", ["wS1", "bS1 wS1-", "wQ \\wS1"])
    c = _replay("Base", ["wS1", "bS1 wS1-", "wQ /wS1"])  # the mirror image of b
    assert frame_of(a.position_array).key != frame_of(b.position_array).key
    assert frame_of(b.position_array).key == frame_of(c.position_array).key


# --- the engine API ----------------------------------------------------------------


def test_book_move_is_legal_varies_and_best_only_is_fixed():
    for gt in SHIPPED:
        first = {book_move(Board(gt), rng=random.Random(seed)) for seed in range(10)}
        assert None not in first
        assert all(Board(gt).parse_move(m) is not None for m in first)
        assert len(first) > 1, gt  # ten fresh games do not all open alike
        board = Board(gt)
        best = book_move(board, best_only=True)
        assert isinstance(best, Move) and best in board.legal_moves
        assert all(isinstance(m.move, Move) and m.move_string == str(m.move) for m in lookup(board))
        by_string = {m.move_string: m for m in lookup(board)}
        best = str(best)
        assert by_string[best].weight > 0
        assert by_string[best].score == max(m.score for m in by_string.values() if m.weight > 0)
        assert {str(book_move(board, best_only=True, rng=random.Random(s))) for s in range(5)} == {best}


def test_out_of_book_and_without_a_book(tmp_path, monkeypatch):
    deep, rng = Board("Base"), random.Random(5)
    for _ in range(12):  # random play leaves the book
        deep.push(rng.choice(deep.legal_moves))
    assert frame_of(deep.position_array).key not in _shipped("Base")
    assert book_move(deep) is None
    assert lookup(deep) is None
    monkeypatch.setenv(book.BOOK_DIR_ENV, str(tmp_path))
    (tmp_path / "Base.tsv").write_text(Book(0).text())  # an empty Base book, no others
    book.clear_cache()
    assert book_move(Board("Base")) is None
    assert not book.book_path("Base+M").is_file()  # no book at all for Base+M
    assert book_move(Board("Base+M")) is None


@pytest.mark.timing
def test_loading_and_first_book_move_take_under_50_ms():
    board = Board("Base+MLP")
    board.legal_move_ints()  # kernels loaded, as after newgame in the engine
    times = []
    for _ in range(3):
        book.clear_cache()
        start = time.perf_counter()
        assert book_move(board) is not None
        times.append(time.perf_counter() - start)
    assert min(times) < 0.05, times


# --- the builder -----------------------------------------------------------------------


def test_build_stopped_midway_resumes_and_loses_nothing(tmp_path):
    progress = []
    whole = build(["Base"], tmp_path / "whole", SMALL, progress=lambda *p: progress.append(p))
    assert not whole.stopped
    expected = book_path("Base", tmp_path / "whole").read_text()
    # Progress: each ply's searches counted from 0 to their total, plies in order, every search once.
    labels = list(dict.fromkeys(label for label, _, _ in progress))
    assert labels == [f"ply {i}" for i in range(len(labels))] and len(labels) > 1
    for label in labels:
        counts = [(done, total) for lb, done, total in progress if lb == label]
        assert counts == [(i, counts[0][1]) for i in range(counts[0][1] + 1)]
    assert len(progress) - len(labels) == whole.searched["Base"]

    # Searches spread over workers (hiveai.backend) finish in any order: same book.
    build(["Base"], tmp_path / "parallel", SMALL, concurrency=2)
    assert book_path("Base", tmp_path / "parallel").read_text() == expected

    saved = []

    def stop_after_five(entry):
        saved.append(entry.to_line())
        if len(saved) == 5:
            raise KeyboardInterrupt

    part = build(["Base"], tmp_path / "part", SMALL, on_entry=stop_after_five)
    assert part.stopped and part.searched["Base"] == 5
    on_disk = Book.read(book_path("Base", tmp_path / "part"))
    assert sorted(on_disk.get(k).to_line() for k in on_disk.keys()) == sorted(saved)

    resumed = build(["Base"], tmp_path / "part", SMALL)
    assert not resumed.stopped
    assert resumed.searched["Base"] == whole.searched["Base"] - 5  # nothing searched twice
    assert book_path("Base", tmp_path / "part").read_text() == expected


def test_a_second_build_on_the_same_out_stops_at_once_naming_the_first(tmp_path):
    """Two builds on one folder would interleave their appends: the second is refused before it searches."""
    from click.testing import CliRunner

    from hiveai.cli import main
    from hiveai.durable import DirectoryLock, LockedError

    with DirectoryLock(tmp_path):  # what a running build holds
        with pytest.raises(LockedError, match=rf"in use by another process \(pid {os.getpid()}\)"):
            build(["Base"], tmp_path, SMALL)
        result = CliRunner().invoke(main, ["book", "build", "Base", "--out", str(tmp_path), "--plies", "1"])
        assert result.exit_code == 1 and "another book build is writing there" in result.output
    assert not book_path("Base", tmp_path).exists()
    assert not build(["Base"], tmp_path, SMALL).stopped  # once the other build is gone


def test_a_line_cut_short_by_a_kill_is_ignored_then_dropped(tmp_path):
    build(["Base"], tmp_path, SMALL, on_entry=_stop_at(3))
    path = book_path("Base", tmp_path)
    with open(path, "a") as f:
        f.write("0123456789abcdef\t2\twS1,0,")  # what a kill mid-write would leave
    assert len(Book.read(path)) == 3
    report = build(["Base"], tmp_path, SMALL)
    assert not report.stopped
    assert all(Book.read(path).get(k) is not None for k in Book.read(path).keys())
    assert "0123456789abcdef" not in path.read_text()


def _stop_at(n):
    count = [0]

    def hook(entry):
        count[0] += 1
        if count[0] == n:
            raise KeyboardInterrupt

    return hook


def test_named_lines_and_records_become_book_moves(tmp_path, monkeypatch):
    (tmp_path / "named.txt").write_text("# a test line\nBase;InProgress;White[3];wB1;bB1 wB1-;wQ -wB1\n")
    records = read_games(
        "Base;WhiteWins;White[3];wG1;bA1 wG1-;wQ -wG1;bQ bA1-\n"
        "Base;BlackWins;White[3];wG1;bA1 /wG1;wQ \\wG1\n"  # the same two first plies, turned
    )
    settings = BuildSettings(plies=2, depth=2, multipv=1, width=(1,), named=True, margin=10**6, min_count=2)
    build(["Base"], tmp_path, settings, records=records)
    monkeypatch.setenv(book.BOOK_DIR_ENV, str(tmp_path))
    book.clear_cache()

    def move(line, text):
        # A bare piece name matches any move of that piece: at ply 0 and 1 all its moves are
        # equivalent, stored once, and which of them comes back depends on the frame.
        (found,) = [m for m in lookup(_replay("Base", line)) if text in (m.move_string, m.move_string.split()[0])]
        return found

    assert move([], "wB1").weight > 0  # named
    assert move(["wB1"], "bB1").weight > 0  # named
    assert move(["wB1", "bB1 wB1-"], "wQ -wB1").weight > 0  # named, past --plies: a named line goes on
    g = move([], "wG1")
    assert g.weight > 0 and (g.count, g.points) == (2, 1.0)  # played twice: wanted
    reply = move(["wG1"], "bA1")
    assert reply.weight > 0 and (reply.count, reply.points) == (2, 1.0)  # the turned reply counts too


def test_cli_show_and_stats(tmp_path):
    build(["Base"], tmp_path, SMALL)
    from click.testing import CliRunner

    from hiveai.cli import main

    runner = CliRunner()
    shown = runner.invoke(main, ["book", "show", "--dir", str(tmp_path), "Base;NotStarted;White[1]"])
    assert shown.exit_code == 0, shown.output
    listed = lookup(Board("Base"), Book.read(book_path("Base", tmp_path)))
    assert "weight" in shown.output and listed
    assert all(f"\n{m.move_string} " in shown.output for m in listed)
    stats = runner.invoke(main, ["book", "stats", "--dir", str(tmp_path)])
    assert stats.exit_code == 0, stats.output
    assert "Base" in stats.output


def test_cli_shows_a_won_line_as_a_win_not_as_a_number(tmp_path):
    """Book scores are search scores: a forced win is 'win in N', as analyse prints it."""
    from click.testing import CliRunner

    from hiveai.cli import main
    from hiveai.search.score import WIN

    board = Board("Base")
    frame = frame_of(board.position_array)
    move = board.legal_move_ints()[0]
    book = Book(board.game_type)
    book.put(Entry(frame.key, 0, [StoredMove(*to_stored(frame, move), 100, WIN - 3, 6)], []))
    book_path("Base", tmp_path).write_text(book.text())
    shown = CliRunner().invoke(main, ["book", "show", "--dir", str(tmp_path), "Base"])
    assert shown.exit_code == 0, shown.output
    assert "win in 2" in shown.output and "9999" not in shown.output


# --- installation ----------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.slow
def test_a_non_editable_install_finds_the_books(tmp_path):
    """`pip install .` ships the books: build a wheel, install it into a fresh venv, load them there.
    The repository's labelled-position dataset (data/) stays out of the wheel."""
    import importlib.util
    import zipfile

    # Build from a copy, so no build/ directory of an earlier build can leak into the wheel.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "hiveai", "openings", "data"):
        if not (REPO / name).exists():
            continue
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, src / name)
    wheel_cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(src)]
    if all(importlib.util.find_spec(m) is not None for m in ("setuptools", "wheel")):  # else pip fetches them
        wheel_cmd.insert(5, "--no-build-isolation")
    subprocess.run(wheel_cmd, check=True, cwd=tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    wheel = next((tmp_path / "dist").glob("hiveai-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("hiveai/openings/") for n in names)
    assert not [n for n in names if n.startswith("data/") or ".jsonl.gz" in n], names
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True)
    # numpy and numba come from this environment, after the venv's own site-packages.
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "outer.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {k: v for k, v in os.environ.items() if k not in (book.BOOK_DIR_ENV, "PYTHONPATH")}
    code = ("import hiveai.player.book as b; d = b.book_dir(); print(b.__file__); print(d); "
            "assert all(b.load(gt) is not None and len(b.load(gt)) > 0 for gt in range(9))")  # 8: Critters
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path,
                         env=env).stdout.split("\n")
    assert Path(out[0]).is_relative_to(venv), out  # the installed copy, not this checkout
    assert Path(out[1]).is_relative_to(venv), out


def test_cli_build_draws_progress_and_reports(tmp_path):
    from click.testing import CliRunner

    from hiveai.cli import main

    out = tmp_path / "books"
    result = CliRunner().invoke(main, ["book", "build", "Base", "--out", str(out), "--plies", "2", "--depth", "1",
                                       "--multipv", "1", "--width", "1", "--no-named"])
    assert result.exit_code == 0, result.output
    assert "ply 0" in result.output and "ply 1" in result.output  # one bar per ply, on stderr
    assert "book build finished" in result.output and len(Book.read(book_path("Base", out))) == 2
