"""Parallel search (Lazy SMP): one thread keeps the bench signature, threads
share the table without corrupting it, stop together, and a stop asked for
before (or as) a search starts is not lost."""

from __future__ import annotations

import threading
import time

import pytest

import hiveai.player as options
from hiveai.search.bench import POSITIONS, run_bench
from hiveai.rules.board import Board
from hiveai.player import CPUS, Engine, Options, think, usable_cpus
from hiveai.search.searcher import Searcher
from hiveai.search.timeman import Limit, StopHandle

# hiveai bench's total nodes at its own depths (16 MB table, one thread), as
# `hiveai bench` prints it and docs/speed.md quotes it. Changes exactly when the
# search's behaviour does.
BENCH_SIGNATURE = 2_531_618
MIDGAME = [p for p in POSITIONS if p.midgame]


def test_one_thread_keeps_the_bench_signature():
    assert run_bench(threads=1).signature == BENCH_SIGNATURE


def test_two_threads_reach_the_depth_and_count_the_helpers_nodes():
    board = Board.parse(MIDGAME[0].game)
    one = Searcher(tt_mb=16).search(board, Limit(depth=4))
    two = Searcher(tt_mb=16, threads=2).search(board, Limit(depth=4))
    assert two.depth == 4 and two.move in board.legal_moves
    assert two.nodes > one.nodes // 2  # the helper's nodes are in the total


def tt_moves_are_legal(searcher: Searcher, board: Board, plies: int) -> int:
    """Walk every position up to ``plies`` plies from ``board``; each one the
    table knows must hold a move legal there. Returns the entries checked."""
    checked = 0
    legal = board.legal_move_ints()
    move = searcher.table_move(board)
    if move is not None:
        assert move in legal, (board.game_string(), move)
        checked += 1
    if plies > 0:
        for mv in legal:
            board.push(mv)
            if not board.is_game_over():
                checked += tt_moves_are_legal(searcher, board, plies - 1)
            board.pop()
    return checked


def stress(seconds: float, walk_plies: int) -> int:
    """Search bench positions with two threads for ``seconds`` (time-limited
    searches, so the threads race all the way), checking the table after each."""
    checked, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for p in MIDGAME:
            board = Board.parse(p.game)
            searcher = Searcher(tt_mb=1, threads=2)  # a small table: many replacements, many races
            searcher.search(board, Limit(time=0.3))
            checked += tt_moves_are_legal(searcher, board, walk_plies)
            if time.monotonic() >= end:
                break
    return checked


# Entries checked: a 0.3 s search of one mid-game position leaves 222 to 768 of
# them within two plies (measured on the seven MIDGAME positions, loaded 2-core
# machine), so even a single position searched passes 100; a minute checks thousands.
def test_two_threads_leave_no_corrupted_table_move():
    assert stress(1.0, 2) > 100


@pytest.mark.slow
def test_two_threads_leave_no_corrupted_table_move_for_a_minute():
    assert stress(60.0, 2) > 1000


@pytest.mark.timing
def test_threads_stop_together_at_once():
    board = Board.parse(MIDGAME[1].game)
    searcher = Searcher(tt_mb=16, threads=2)
    stop = StopHandle()
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", searcher.search(board, Limit(), stop=stop)))
    worker.start()
    time.sleep(0.5)
    asked = time.monotonic()
    stop.stop()
    worker.join(10)
    took = time.monotonic() - asked
    assert not worker.is_alive()
    assert not [t for t in threading.enumerate() if t.name.startswith("hiveai-helper")]  # every helper joined
    assert out["r"].depth >= 1
    assert took < 2.0, took  # generous: milliseconds on an idle machine (docs/engine.md, "Threads")


def test_a_stop_before_the_search_is_honoured_and_only_once():
    board = Board.parse(MIDGAME[0].game)
    for threads in (1, 2):
        searcher = Searcher(tt_mb=4, threads=threads)
        searcher.stop()
        stopped = searcher.search(board, Limit(depth=30))
        # Each thread enters the root (one node), sees the flag and returns: ``threads`` nodes, doubled as slack.
        assert stopped.depth == 0 and stopped.nodes <= 2 * threads
        assert searcher.search(board, Limit(depth=3)).depth == 3  # the request was used up


def test_a_stop_as_the_search_starts_is_never_lost():
    board = Board.parse(MIDGAME[0].game)
    searcher = Searcher(tt_mb=4, threads=2)
    for i in range(20):
        worker = threading.Thread(target=searcher.search, args=(board, Limit(depth=40)))
        worker.start()
        if i % 2:
            time.sleep(0.0005 * i)
        searcher.stop()
        worker.join(20)
        assert not worker.is_alive(), f"stop {i} was lost"
        searcher.search(board, Limit(depth=1))  # uses up a request that came after the search


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        Searcher(tt_mb=1, threads=0)


def test_a_search_can_run_on_fewer_threads_without_changing_the_searcher():
    board = Board.parse(MIDGAME[0].game)
    searcher = Searcher(tt_mb=16, threads=2)
    seen = []
    result = searcher.search(board, Limit(depth=4), threads=1,
                             on_iteration=lambda info: seen.append(searcher.threads))
    assert seen and set(seen) == {2} and searcher.threads == 2
    plain = think(board, Limit(depth=4))  # one thread, fresh 16 MB table: the same search
    assert (result.move, result.score, result.nodes) == (plain.move, plain.score, plain.nodes)
    with pytest.raises(ValueError, match="threads"):
        searcher.search(board, Limit(depth=1), threads=0)


def test_num_threads_defaults_to_the_cpus_the_process_may_use(monkeypatch):
    assert Options()["NumThreads"] == CPUS == usable_cpus()
    assert Engine().options["NumThreads"] == 1  # from Python: one thread unless asked (deterministic)
    with pytest.raises(ValueError, match="NumThreads"):
        Engine(threads=CPUS + 1)
    if hasattr(options.os, "sched_getaffinity"):
        assert CPUS == len(options.os.sched_getaffinity(0))
        monkeypatch.setattr(options.os, "sched_getaffinity", lambda pid: {0, 3, 5})  # as under `taskset -c 0,3,5`
        assert usable_cpus() == 3
        monkeypatch.delattr(options.os, "sched_getaffinity")
    monkeypatch.setattr(options.os, "cpu_count", lambda: 7)  # no affinity mask (macOS, Windows): the host's
    assert usable_cpus() == 7
    monkeypatch.setattr(options.os, "cpu_count", lambda: None)  # os.cpu_count() may not know
    assert usable_cpus() == 1
