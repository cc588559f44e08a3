"""``hiveai uhp-check``: its data, its comparisons, and that it catches engines that break one thing.

The fake engines are tests/fake_engines/broken_uhp.py with ``--break WHAT``. The fast tests run
only the case that should catch each (``--case``); the slow ones run the default check against
every fake and against hiveai itself.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hiveai.rules.board import Board
from hiveai.cli import main
from hiveai.uhpcheck.check import CASES, FAIL, PASS, SKIP, Checker, run_checks
from hiveai.uhpcheck.harness import Hang, RepeatedHang
from hiveai.uhpcheck.reference import (
    compare_moves,
    game_string_problem,
    load_illegal_moves,
    load_reference_positions,
)

from uhp_client import HIVEAI

FAKE = Path(__file__).parent / "fake_engines" / "broken_uhp.py"

# What each fake breaks -> (the case that must catch it, words its message must contain).
BROKEN = {
    "crash": ("undo", "crashed"),
    "hang-bestmove": ("bestmove-depth", "hung"),
    "illegal-move": ("bestmove-depth", "not a legal move"),
    "extra-line": ("bestmove-depth", "2 lines"),
    "no-ok": ("options", "hung"),
    "accept-illegal": ("illegal-moves", "accepted"),
    "miss-spider": ("random-moves", "the engine lacks: "),
    "ignore-undo": ("undo", "expected"),
    "late-time": ("bestmove-time", "answered after"),
    "no-exit": ("eof", "still running"),
    "drop-ok": ("undo", "(after 'validmoves'); the reply came (1 line), the ok did not"),
}


def fake(broken: str, *more: str) -> list[str]:
    return [sys.executable, str(FAKE), "--break", broken, *more]


def by_name(results):
    return {r.name: r for r in results}


def test_reference_positions_are_mzingas_sets_and_hiveai_agrees():
    """The shipped sets parse, and hiveai's generator gives the same moves (an independent check)."""
    positions = load_reference_positions()
    assert len(positions) >= 30
    for game, moves in positions:
        board = Board.parse(game)
        assert not compare_moves(board, moves), game


def test_every_catalogued_move_is_illegal_for_hiveai():
    catalogue = load_illegal_moves()
    assert len({rule for rule, _, _ in catalogue}) >= 20
    for rule, game, move in catalogue:
        assert not Board.parse(game).is_legal(move), (rule, game, move)


def test_compare_moves_reads_any_reference_and_names_what_differs():
    board = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
    same = ";".join(m.text.replace("wS1", "WS1") for m in board.legal_moves)
    assert not compare_moves(board, same)
    d = compare_moves(board, "wQ -wS1;bogus")
    assert "wQ -wS1" not in d.engine_lacks and "bogus (names no move)" in d.engine_extra
    assert len(d.engine_lacks) == len(board.legal_moves) - 1


@pytest.mark.integration
def test_unbroken_fake_passes_the_targeted_cases():
    results = run_checks(fake("none"), ["undo", "bestmove-depth", "illegal-moves", "eof"], timeout=5)
    assert {r.name: r.status for r in results} == dict.fromkeys(["undo", "bestmove-depth", "illegal-moves", "eof"],
                                                                 PASS)


# The fakes caught only by waiting out a timeout (a hung search, an answer after its time, no exit at the end
# of input, a missing ok) cost several seconds each: they run in the slow step, as does
# test_default_run_catches_each_fake, which catches every fake, these four included, with the default run.
# test_a_missing_ok_is_waited_out_once below catches drop-ok in the fast run.
WAITED_OUT = {"hang-bestmove", "late-time", "no-exit", "drop-ok"}


@pytest.mark.integration
@pytest.mark.parametrize("broken", [pytest.param(b, marks=pytest.mark.slow) if b in WAITED_OUT else b
                                    for b in sorted(BROKEN)])
def test_each_fake_is_caught_by_its_case(broken):
    name, words = BROKEN[broken]
    results = by_name(run_checks(fake(broken), [name], quick=True, timeout=3, game_type=["Base"]))
    assert results[name].status == FAIL, results[name]
    assert words in results[name].message, results[name].message


@pytest.mark.integration
def test_a_missing_ok_is_waited_out_once():
    """The first missing ok fails its case, naming the command; a later case that meets it again
    stops as a skip that names the first case, instead of waiting out the timeout again."""
    results = by_name(run_checks(fake("drop-ok"), ["undo", "validmoves"], quick=True, timeout=4,
                                 game_type=["Base"]))
    undo, again = results["undo"], results["validmoves"]
    assert undo.status == FAIL, undo
    assert undo.message.startswith("hung: no 'ok' within 4 s (after 'validmoves'); the reply came (1 line)")
    assert undo.exchange[-2:-1] == ["> validmoves"]
    assert again.status == SKIP, again
    assert again.message.startswith("not checked: no 'ok' after 'validmoves' again, as reported under undo")


@pytest.mark.integration
def test_a_known_hang_is_judged_again_only_on_an_idle_engine():
    """With `validmoves` known to lose its ok, an engine that is slow but busy still gets the whole
    timeout; one that has answered and sits idle is judged at once, and killed."""
    board = Board("Base")
    slow = Checker(fake("none", "--busy", "1.5"), timeout=60)  # 1.5 s of CPU take longer on a loaded machine
    slow.hangs["validmoves"] = Hang("validmoves", "undo")  # as an earlier case would have found it
    try:
        slow.start(warm=False)
        slow.newgame(board)
        start = time.monotonic()
        assert not slow.validmoves(board)  # answered, with its ok, after 1.5 s of CPU
        assert time.monotonic() - start >= 1.5
    finally:
        slow.stop()
    idle = Checker(fake("drop-ok"), timeout=60)
    idle.hangs["validmoves"] = Hang("validmoves", "undo")
    try:
        idle.start(warm=False)
        idle.newgame(board)
        assert not idle.validmoves(board) and not idle.validmoves(board)  # the first two come with their ok
        judged = idle.engine
        with pytest.raises(RepeatedHang, match=r"no 'ok' after 'validmoves' again, as reported under undo "
                                               r"\(its reply came, then nothing for .* s, the engine idle\)"):
            idle.validmoves(board)
        assert not judged.alive()
    finally:
        idle.stop()


@pytest.mark.integration
def test_the_difference_is_shrunk_and_printed_as_a_game():
    result = by_name(run_checks(fake("miss-spider"), ["random-moves"], quick=True, timeout=5,
                                game_type=["Base"]))["random-moves"]
    game = next(ln for ln in result.message.splitlines() if ln.startswith("game: "))[6:]
    lacks = next(ln for ln in result.message.splitlines() if "the engine lacks" in ln).split(": ", 1)[1]
    board = Board.parse(game)
    assert all(board.is_legal(m) and m.startswith(("wS", "bS")) for m in lacks.split(";"))
    shrunk_from, shrunk_to = map(int, re.search(r"shrunk from (\d+) plies to (\d+)", result.message).groups())
    assert board.ply == shrunk_to <= shrunk_from


@pytest.mark.integration
def test_cli_json_and_exit_status():
    runner = CliRunner()
    out = runner.invoke(main, ["uhp-check", "--json", "--case", "undo", "--timeout", "5", "--", *fake("ignore-undo")])
    assert out.exit_code == 1
    data = json.loads(out.stdout)
    assert data["summary"]["fail"] == 1 and data["cases"][0]["name"] == "undo"
    bad = runner.invoke(main, ["uhp-check", "--case", "nonsense", "--", *fake("none")])
    assert bad.exit_code == 2 and "unknown case" in bad.output


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_default_run_catches_each_fake(broken):
    name, words = BROKEN[broken]
    results = by_name(run_checks(fake(broken), timeout=5))
    assert results[name].status == FAIL and words in results[name].message, results[name]


@pytest.mark.timing
@pytest.mark.integration
def test_an_engine_that_drops_an_ok_is_checked_within_two_minutes():
    """The whole default check of an engine that leaves out the ok after every third validmoves:
    the hang is waited out once (10 s), and the report names the command."""
    start = time.monotonic()
    results = by_name(run_checks(fake("drop-ok")))
    took = time.monotonic() - start
    assert results["undo"].status == FAIL and "(after 'validmoves')" in results["undo"].message
    assert [r.name for r in results.values() if r.status == FAIL] == ["undo"]
    assert took < 120, took


@pytest.mark.integration
@pytest.mark.slow
def test_hiveai_passes_its_own_default_check():
    results = run_checks(HIVEAI)
    assert [r.line() for r in results if r.status == FAIL] == []


def test_a_repetition_draw_is_recognised_by_the_position():
    """The threefold-repetition note: a Draw that only a thrice-seen position explains."""
    board = Board("Base")
    for move in ("wG1", "bG1 wG1-", "wQ -wG1", "bQ bG1-"):
        board.push(move)
    assert not board.is_repetition()
    for _ in range(2):
        for move in ("wQ \\wG1", "bQ bG1/", "wQ -wG1", "bQ bG1-"):
            board.push(move)
    assert board.is_repetition()
    claimed = board.game_string().replace("InProgress", "Draw")
    assert game_string_problem(claimed, board).startswith("Draw;")
