"""The small modules several others share: durable record files (hiveai.durable),
the GameString reader (hiveai.rules.notation), the torus unwrap (hiveai.rules.hex_grid), the
score formatter (hiveai.search.score), and which modules load numba."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hiveai.rules.board import Board
from hiveai.rules.bug import N_PIECES
from hiveai.durable import (
    DirectoryLock,
    LineAppender,
    LockedError,
    RecordLineError,
    append_json_line,
    append_line,
    complete_lines,
    read_json_lines,
    replace_atomically,
    trim_partial_line,
)
from hiveai.errors import GameStringError
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET, GRID, ORIGIN, hive_coordinates, torus_offset, unwrap
from hiveai.rules.notation import FINISHED, STATES, parse_state, read_game_string
from hiveai.rules.position import POS
from hiveai.search.score import MATE_BOUND, WIN, format_score, is_win_score
from hiveai.rules.symmetry import frame_of

# --- durable records -----------------------------------------------------------------


@pytest.mark.integration
def test_a_directory_lock_has_one_holder_at_a_time_across_processes(tmp_path):
    d = tmp_path / "out" / "run"
    code = ("import sys, time; from hiveai.durable import DirectoryLock; "
            "lock = DirectoryLock(sys.argv[1]); lock.acquire(); print('held', flush=True); time.sleep(60)")
    other = subprocess.Popen([sys.executable, "-c", code, str(d)], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        with pytest.raises(LockedError, match=rf"in use by another process \(pid {other.pid}\)"):
            DirectoryLock(d).acquire()
    finally:
        other.kill()
        other.wait()
    with DirectoryLock(d):  # the OS gave the lock up with the process
        with pytest.raises(LockedError):
            DirectoryLock(d).acquire()  # also within one process: a second holder is refused
    with DirectoryLock(d):  # released at the end of the block
        pass


def test_appends_survive_and_a_cut_short_last_line_is_trimmed(tmp_path):
    path = tmp_path / "records.jsonl"
    assert trim_partial_line(path) == b""  # missing: empty, and not created
    assert not path.exists()
    append_line(path, '{"id": 1}')
    with LineAppender(path) as out:
        out.append('{"id": 2}')
    assert path.read_bytes() == b'{"id": 1}\n{"id": 2}\n'
    with open(path, "ab") as f:  # what a kill in the middle of a write leaves
        f.write(b'{"id": 3, "wh')
    assert complete_lines(path.read_text()) == ['{"id": 1}', '{"id": 2}']  # readers skip it
    assert trim_partial_line(path) == b'{"id": 1}\n{"id": 2}\n'  # writers cut it off
    assert path.read_bytes() == b'{"id": 1}\n{"id": 2}\n'
    append_line(path, '{"id": 3}')
    assert complete_lines(path.read_text()) == ['{"id": 1}', '{"id": 2}', '{"id": 3}']


def test_replace_atomically_leaves_no_temporary_file_and_checks_the_encoding(tmp_path):
    path = tmp_path / "sub" / "book.tsv"
    replace_atomically(path, "one\n", "ascii")
    replace_atomically(path, "two\nlines\n", "ascii")
    assert path.read_bytes() == b"two\nlines\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["book.tsv"]
    with pytest.raises(UnicodeEncodeError):
        replace_atomically(path, "caf\u00e9\n", "ascii")
    assert path.read_bytes() == b"two\nlines\n"  # the old file is untouched
    assert sorted(p.name for p in path.parent.iterdir()) == ["book.tsv"]
    if os.name == "posix":  # the mode of any new file, not the temporary file's private 0600
        umask = os.umask(0o022)
        os.umask(umask)
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_replace_atomically_writes_a_temporary_file_of_its_own_and_removes_it_on_error(tmp_path, monkeypatch):
    path = tmp_path / "standings.txt"
    replace_atomically(path, "old\n")
    temporary = []

    def full_disk(src, dst):  # the rename fails after the temporary file is written
        temporary.append(Path(src))
        assert Path(src).parent == path.parent and Path(src).read_bytes() == b"new\n"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    for _ in range(2):
        with pytest.raises(OSError, match="No space left"):
            replace_atomically(path, "new\n")
    monkeypatch.undo()
    assert temporary[0] != temporary[1] and path.name + ".tmp" not in {t.name for t in temporary}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["standings.txt"] and path.read_text() == "old\n"


def test_two_writers_replacing_one_file_at_once_do_not_collide(tmp_path):
    """With one shared temporary name, one writer's rename would take the other's file away."""
    import threading

    path = tmp_path / "report.html"
    errors: list[BaseException] = []

    def writer(text: str) -> None:
        try:
            for _ in range(100):
                replace_atomically(path, text)
        except BaseException as e:  # noqa: BLE001 - reported by the assert below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(text,)) for text in ("a\n" * 1000, "b\n" * 1000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and path.read_text() in ("a\n" * 1000, "b\n" * 1000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_json_lines_resume_where_a_kill_left_them(tmp_path):
    path = tmp_path / "games.jsonl"
    assert read_json_lines(path) == [] and not path.exists()  # missing: empty, and not created
    append_json_line(path, {"id": "g1"})
    with open(path, "ab") as f:
        f.write(b'\n{"id": "g2", "wh')  # a blank line, then what a kill mid-append leaves
    assert read_json_lines(path) == [(1, {"id": "g1"})]  # the cut-short line is gone from the file too
    append_json_line(path, {"id": "g2"})
    assert read_json_lines(path) == [(1, {"id": "g1"}), (3, {"id": "g2"})]
    path.write_text(path.read_text() + "not json\n")
    with pytest.raises(RecordLineError, match=r"games\.jsonl:4: not JSON") as caught:
        read_json_lines(path)
    assert caught.value.line == 4 and isinstance(caught.value, ValueError)


# --- GameString fields -------------------------------------------------------------


def test_read_game_string_fields_states_and_turns():
    fields = read_game_string(" Base+MLP ; inprogress ; Black[2] ; wS1 ; bS1 wS1- ; wQ -wS1 ")
    assert (fields.game_type, fields.state, fields.turn, fields.ply) == ("Base+MLP", "InProgress", "Black[2]", 3)
    assert fields.moves == ["wS1", "bS1 wS1-", "wQ -wS1"]
    assert read_game_string("Base;NotStarted;White[1]").moves == []
    for bad, why in [("Base", "expected GameType;State;Turn"), ("Base;Won;White[1]", 'unknown game state "Won"'),
                     ("Base;Draw;Red[1]", r'bad turn "Red\[1\]"')]:
        with pytest.raises(GameStringError, match=why):
            read_game_string(bad)
    assert [parse_state(s.upper()) for s in STATES] == list(STATES) and parse_state("over") is None
    assert FINISHED == {"WhiteWins", "BlackWins", "Draw"}


def test_read_game_string_as_written_keeps_every_field_and_never_raises():
    """check=False: the fields as an engine wrote them, for a checker that compares them."""
    fields = read_game_string(" Base+M; inprogress ;Black[2];wS1;bS1 wS1-\n", check=False)
    assert (fields.game_type, fields.state, fields.turn, fields.ply) == ("Base+M", " inprogress ", "Black[2]", 3)
    assert fields.moves == ["wS1", "bS1 wS1-"]
    for bad in ("Base", "Base;Won;White[1]", "Base;Draw;Red[1]", "", "Base;InProgress;White[1];;"):
        fields = read_game_string(bad, check=False)
        assert ";".join([fields.game_type, fields.state, fields.turn, *fields.moves]).rstrip(";") == bad.rstrip(";")
    assert read_game_string("Base;Draw;Red[1]", check=False).ply is None
    assert read_game_string("Base;InProgress;White[1];;", check=False).moves == ["", ""]


# --- torus unwrap -----------------------------------------------------------------


def test_unwrap_across_the_seam_and_of_a_disconnected_hive():
    corner = 0  # (q, r) = (0, 0): its west and north neighbours wrap around the torus
    west, north_west = (corner + DIR_OFFSET[5]) & CELL_MASK, (corner + DIR_OFFSET[0]) & CELL_MASK
    assert unwrap({corner, west, north_west}, corner) == {corner: (0, 0), west: (-1, 0), north_west: (0, -1)}
    far = (ORIGIN + 5 + 3 * GRID) & CELL_MASK
    assert torus_offset(ORIGIN, far) == (5, 3) and torus_offset(far, ORIGIN) == (-5, -3)
    assert torus_offset(corner, west) == (-1, 0)
    # Not connected: the lone cell is placed by its shortest torus offset, never dropped.
    assert unwrap({ORIGIN, far}, ORIGIN) == {ORIGIN: (0, 0), far: (5, 3)}


def test_render_and_the_book_key_share_one_unwrap_even_for_a_disconnected_hive():
    board = Board.from_game_string("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    b = board.position_array.copy()
    key = frame_of(b).key
    pieces = [p for p in range(N_PIECES) if b[POS + p] >= 0]
    cells = [int(b[POS + p]) for p in pieces]
    assert hive_coordinates(b[POS : POS + N_PIECES]) == unwrap(cells, cells[0]) == frame_of(b).coords
    # Put the last piece far away by hand: no legal position does this, both still see every piece.
    far = (cells[0] + 7 + 5 * GRID) & CELL_MASK
    moved = b.copy()
    moved[POS + pieces[-1]] = far
    coords = hive_coordinates(moved[POS : POS + N_PIECES])
    assert coords[far] == (7, 5) and frame_of(moved).coords == coords and frame_of(moved).key != key


# --- scores -------------------------------------------------------------------------


def test_one_win_bound_and_one_formatter():
    from hiveai.evaluation import linear as evaluate
    from hiveai.search import searcher as search, tt

    assert search.WIN == tt.WIN == WIN and tt.MATE_BOUND == MATE_BOUND
    assert search.is_win_score is is_win_score and not hasattr(search, "format_score")  # score.py's, not a copy
    assert not hasattr(evaluate, "WIN")
    assert format_score(WIN - 3) == "win in 2"  # a won book line, not +9999.97
    assert is_win_score(-(WIN - 10)) and not is_win_score(int(np.int64(MATE_BOUND)))


# --- what loads numba ------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("module", ["hiveai.tournament.standings", "hiveai.rules.outcome",
                                    "hiveai.durable", "hiveai.search.score", "hiveai.cli"])
def test_light_modules_do_not_import_numba(module):
    code = f"import sys, {module}; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": ""})
    assert out.stdout.strip() == "False", out.stderr
