"""Puzzles (hiveai.puzzles): the proof, the file format, ratings, solving, the build and the shipped collection.

The proof is checked three ways: against Mzinga's forced-win puzzle cases (an
independent implementation's answers, tests/data/puzzles/), against a plain
brute-force AND/OR search over the rules kernels (so the kernel's shortcuts
cannot hide a defence), and on known positions of each kind (a unique win,
two winning first moves, a save).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from tactics import POSITIONS, moves_of, side_to_move, win_code

from hiveai.cli import main
from hiveai.puzzles import (
    Puzzle, PuzzleFileError, Rating, attempt, find_puzzle, format_line, make_prover, parse_line, read_cases,
    read_puzzles, shipped, try_move, verify_puzzle, write_puzzles,
)
from hiveai.puzzles.build import DEFAULT_TARGETS, GameTask, build, mine_game, order_for_variety
from hiveai.puzzles.prove import check_save, check_win, fastest_win
from hiveai.puzzles.puzzlefile import puzzle_by_id
from hiveai.puzzles.rating import update
from hiveai.puzzles.suite import playout, solve
from hiveai.rules.board import Board
from hiveai.rules.position import IN_PROGRESS, do_move, game_result, undo_move
from hiveai.rules.symmetry import frame_of
from hiveai.search.timeman import Limit

DATA = Path(__file__).parent / "data" / "puzzles"
FAKE_ENGINES = Path(__file__).parent / "fake_engines"
MZINGA = DATA / "mzinga_forced_win.tsv"


def mzinga_cases() -> list[tuple[str, int, str]]:
    rows = []
    for line in MZINGA.read_text().splitlines():
        if line and not line.startswith("#"):
            game, depth, move = line.split("\t")
            rows.append((game, int(depth), move))
    return rows


@pytest.fixture(scope="module")
def prover():
    return make_prover()


# --- The proof -----------------------------------------------------------------


@pytest.mark.parametrize("game,depth,move", mzinga_cases(), ids=lambda v: str(v)[:12] if isinstance(v, str) else None)
def test_mzinga_forced_wins_have_the_one_winning_move_mzinga_names(game, depth, move, prover):
    """Each of Mzinga's cases: exactly one first move wins within its depth (Mzinga's
    rule), and it is Mzinga's; the fastest win is no longer than that depth."""
    board = Board(game)
    b = board.position_array
    me = board.turn
    winners = []
    for mv in board.legal_move_ints():
        token = do_move(b, mv)
        result = int(game_result(b))
        if result != IN_PROGRESS:
            wins = result == win_code(me)
        else:
            wins = depth > 1 and prover.wins(b, depth - 1, me)
        undo_move(b, mv, token)
        if wins:
            winners.append(board.move_to_string(mv))
    assert winners == [board.move_to_string(board.parse_move(move).code)]
    assert fastest_win(board, prover, depth) <= depth


def brute_wins(b, plies: int, attacker: int) -> bool:
    """Can ``attacker`` force the enemy queen surrounded within ``plies``? Every move played."""
    moves = moves_of(b)
    attacking = side_to_move(b) == attacker
    for mv in moves:
        token = do_move(b, mv)
        result = int(game_result(b))
        if result != IN_PROGRESS:
            ok = result == win_code(attacker)
        else:
            ok = plies > 1 and brute_wins(b, plies - 1, attacker)
        undo_move(b, mv, token)
        if attacking and ok:
            return True
        if not attacking and not ok:
            return False
    return not attacking


def tactical_positions(step: int) -> list[tuple[str, str]]:
    out = []
    for (cat, gt), rows in sorted(POSITIONS.items()):
        if cat in ("win1", "win2", "block", "five", "throw_win", "throw_save"):
            out += [(gt, gs) for _, gs in rows[::step]]
    return out


@pytest.mark.parametrize("gt,gs", tactical_positions(2), ids=lambda v: v if "+" in v or v == "Base" else None)
def test_the_kernel_agrees_with_brute_force_for_both_sides(gt, gs, prover):
    """Up to two plies for both attackers (three where it is cheap), on the tactics
    positions of every game type: the shortcuts of hiveai.search.proof change nothing."""
    board = Board(gs)
    b = board.position_array
    for attacker in (0, 1):
        for plies in (1, 2):
            assert prover.wins(b, plies, attacker) == brute_wins(b.copy(), plies, attacker), (attacker, plies)
    if len(moves_of(b)) <= 25:
        me = board.turn
        assert prover.wins(b, 3, me) == brute_wins(b.copy(), 3, me)


@pytest.mark.slow
@pytest.mark.parametrize("gt,gs", tactical_positions(1), ids=lambda v: v if "+" in v or v == "Base" else None)
def test_the_kernel_agrees_with_brute_force_at_three_plies(gt, gs, prover):
    board = Board(gs)
    b = board.position_array
    for attacker in (0, 1):
        assert prover.wins(b, 3, attacker) == brute_wins(b.copy(), 3, attacker), attacker


def test_a_unique_win_is_a_win_puzzle_with_its_solution_line(prover):
    game, _, move = mzinga_cases()[9]  # a win in three plies (Mzinga's "4 ply" case)
    board = Board(game)
    found = find_puzzle(board, prover)
    assert (found.kind, found.depth, found.line[0]) == ("win", 3, move)
    assert len(found.line) == 3 and check_win(board, 3, found.line, prover) is None
    end = board.copy()
    for m in found.line:
        end.push(m)
    assert end.outcome().winner == board.turn


def test_two_winning_first_moves_are_not_a_puzzle(prover):
    gs = next(gs for note, gs in POSITIONS["win1", "Base"] if note.count("/bA1") == 2)  # wA1 /bA1 and wB1 /bA1
    board = Board(gs)
    assert fastest_win(board, prover) == 1
    assert find_puzzle(board, prover) is None
    reason = check_win(board, 1, ["wA1 /bA1"], prover)
    assert reason.startswith("the winning first moves are") and "wA1 /bA1" in reason and "wB1 /bA1" in reason


SAVE = ("Base+MLP;InProgress;Black[17];wS1;bA1 /wS1;wA1 \\wS1;bG1 -bA1;wQ wS1-;bP -bG1;wP wQ/;bQ bP\\;wA1 bQ\\;"
        "bS1 bA1\\;wB1 /wA1;bB1 /bP;wB1 wA1;bS2 \\bG1;wB1 bQ;bB1 wB1;wB2 /wA1;bB2 bS2/;wB2 /bB1;bB2 -wS1;wB2 bB1;"
        "bB2 wS1;wS2 /wB2;bL -bB2;wB2 bP;bA2 \\bL;wG1 wS2\\;bA2 wG1\\;wL /wS2;bA2 /wL;wG1 bG1\\;bG1 bB2\\;wG2 -wB2")


def test_a_defensive_puzzle_has_exactly_one_saving_move(prover):
    board = Board(SAVE)
    found = find_puzzle(board, prover, max_moves=2)
    assert (found.kind, found.line) == ("save", ["bS2 -wG2"])
    assert check_save(board, found.depth, found.line, prover) is None
    wrong = next(m for m in board.legal_moves if str(m) != "bS2 -wG2")
    assert "does not stop the loss" in check_save(board, found.depth, [str(wrong)], prover)
    # Every other move loses: after it, White forces the win.
    after = board.copy()
    after.push(wrong)
    assert fastest_win(after, prover, found.depth - 1) is not None


def test_a_node_limit_makes_a_proof_void_not_wrong():
    from hiveai.puzzles import ProofLimitError

    game, depth, _ = mzinga_cases()[-1]
    with pytest.raises(ProofLimitError):
        find_puzzle(Board(game), make_prover(node_limit=1000))


# --- The file format -----------------------------------------------------------


def some_puzzles() -> list[Puzzle]:
    return shipped()[:5]


def test_lines_round_trip_and_files_too(tmp_path):
    puzzles = some_puzzles()
    for p in puzzles:
        assert format_line(parse_line(format_line(p))) == format_line(p)
    path = tmp_path / "p.txt"
    write_puzzles(path, puzzles)
    assert [format_line(p) for p in read_puzzles(path)] == [format_line(p) for p in puzzles]
    assert path.read_text().startswith("# hiveai puzzles:")


def _with(line: str, field: int, value: str) -> str:
    parts = line.split("\t")
    parts[field] = value
    return "\t".join(parts)


@pytest.mark.parametrize("change,reason", [
    (lambda ln: ln.replace("\t", " ", 1), "expected 9 tab-separated fields"),
    (lambda ln: _with(ln, 0, "XYZ"), "id 'XYZ' is not 16 lowercase hex digits"),
    (lambda ln: _with(ln, 3, "mate"), "kind 'mate' is not one of win, save"),
    (lambda ln: _with(ln, 4, "in1,fork"), "unknown theme 'fork'"),
    (lambda ln: _with(ln, 5, "x"), "depth 'x' is not a whole number"),
    (lambda ln: _with(ln, 5, "12"), "depth 12 is not 1 to 9"),
    (lambda ln: _with(ln, 7, "-5"), "rating -5 is not 0 to 4000"),
    (lambda ln: _with(ln, 8, " "), "the source is empty"),
    (lambda ln: _with(ln, 1, "Base;InProgress;White[2];wS1;wS2"), "bad GameString"),
    (lambda ln: _with(ln, 2, "wQ wQ-"), "move 1 of the solution (wQ wQ-) is not legal"),
    (lambda ln: _with(ln, 2, "wA1;;wA2"), "is not MoveStrings joined by ';'"),
])
def test_a_malformed_line_is_refused_with_file_line_and_reason(tmp_path, change, reason):
    good = [format_line(p) for p in some_puzzles()]
    path = tmp_path / "bad.txt"
    path.write_text("# a comment\n" + good[0] + "\n\n" + change(good[1]) + "\n" + good[2] + "\n")
    with pytest.raises(PuzzleFileError) as e:
        read_puzzles(path)
    assert (e.value.path, e.value.line) == (str(path), 4)
    assert reason in e.value.reason
    result = CliRunner().invoke(main, ["puzzles", "verify", str(path)])
    # verify refuses a malformed line, and reports an illegal solution (and goes on).
    shown = "is not legal" if "solution (" in reason else reason
    assert result.exit_code == 1 and f"{path}:4: " in result.output and shown in result.output


def test_a_repeated_id_is_refused(tmp_path):
    line = format_line(some_puzzles()[0])
    path = tmp_path / "twice.txt"
    path.write_text(line + "\n" + line + "\n")
    with pytest.raises(PuzzleFileError, match=r"twice.txt:2: id [0-9a-f]{16} repeats line 1"):
        read_puzzles(path)


def test_verify_reports_a_puzzle_that_is_not_a_forced_win(tmp_path, prover):
    """A well-formed line whose solution is legal but wrong is reported by verify, with its line."""
    p = next(p for p in shipped() if p.kind == "win" and p.depth == 3)
    board = p.board()
    other = next(str(m) for m in board.legal_moves if str(m) != p.solution[0])
    bad = parse_line(format_line(p))
    bad.solution = [other]
    assert "winning first moves are" in verify_puzzle(bad, prover)
    deeper = parse_line(format_line(p))
    deeper.depth = 5
    assert "faster than 5 plies" in verify_puzzle(deeper, prover)
    path = tmp_path / "wrong.txt"
    path.write_text(format_line(shipped()[0]) + "\n" + format_line(bad) + "\n")
    result = CliRunner().invoke(main, ["puzzles", "verify", "-q", str(path)])
    assert result.exit_code == 1
    assert f"{path}:2: {p.id}: the winning first moves are" in result.output
    assert f"{path}:1:" not in result.output


def test_plain_lists_read_in_either_column_order(tmp_path):
    cases = read_cases(MZINGA)
    assert len(cases) == len(mzinga_cases())
    assert (cases[0].answers, cases[0].depth) == (["wA2 \\wA3"], 1)
    path = tmp_path / "mine.tsv"
    game, depth, move = mzinga_cases()[6]
    path.write_text(f"{game}\t{move}\n{game}\t{move}\t{depth}\n")
    mine = read_cases(path)
    assert [(c.answers, c.depth) for c in mine] == [([move], None), ([move], depth)]
    path.write_text(f"{game}\tbQ wQ\n")
    with pytest.raises(PuzzleFileError, match="mine.tsv:1: the best move 'bQ wQ' is not legal"):
        read_cases(path)


# --- Ratings ---------------------------------------------------------------------


def test_glicko2_matches_the_worked_example_of_glickmans_paper():
    """"Example of the Glicko-2 system": 1500/200/0.06 against 1400/30 (won),
    1550/100 (lost) and 1700/300 (lost), tau 0.5, gives 1464.06, 151.52, 0.05999."""
    after = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
                                            (Rating(1700, 300), 0.0)], tau=0.5)
    # The paper rounds its intermediate values, hence its last digit.
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_failed_attempt_is_a_win_for_the_puzzle():
    player, puzzle = Rating(1500, 100), Rating(1500, 100)
    p2, z2 = attempt(player, puzzle, solved=False)
    assert p2.rating < 1500 < z2.rating
    assert update(player, []).rd > player.rd  # a period without games: only the deviation grows


# --- Solving -----------------------------------------------------------------------


def test_try_move_judges_by_proof_and_answers_with_the_best_defence(prover):
    p = next(p for p in shipped() if p.kind == "win" and p.depth == 5)
    step = try_move(p, [], p.solution[0], prover)
    assert step.right and not step.solved and step.reply == p.solution[1]
    played = p.solution[:2]
    step = try_move(p, played, p.solution[2], prover)
    assert step.right and step.reply == p.solution[3]
    step = try_move(p, p.solution[:4], p.solution[4], prover)
    assert step.right and step.solved
    wrong = next(str(m) for m in p.board().legal_moves if str(m) != p.solution[0])
    step = try_move(p, [], wrong, prover)
    assert not step.right and len(step.refutation) == 1
    with pytest.raises(ValueError, match="not a legal move"):
        try_move(p, [], "wQ wQ", prover)


@pytest.mark.integration
def test_solve_runs_hiveai_on_puzzles_and_on_a_plain_list():
    easy = [p for p in shipped() if p.kind == "win" and p.depth <= 3][:3]
    from hiveai.puzzles.puzzlefile import Case

    cases = [Case(p.game, [p.solution[0]], None, p.id, proof_depth=p.depth) for p in easy]
    report = solve(cases, limit=Limit(depth=4))
    assert report.solved == 3 and all(r.played for r in report.results)
    data = report.to_json()
    assert data["total"] == 3 and sum(v[1] for v in data["by_depth"].values()) == 3
    # A plain list with a wrong "best move": reported as a failure with the move played.
    game, depth, move = mzinga_cases()[0]
    board = Board(game)
    wrong = next(str(m) for m in board.legal_moves if str(m) != move)
    report = solve(read_cases(MZINGA)[:1] + [cases[0].__class__(game, [wrong], None, "x")], limit=Limit(depth=2))
    assert [r.solved for r in report.results] == [True, False]
    assert report.results[1].played == move


@pytest.mark.integration
def test_solve_command_prints_the_tables_and_json(tmp_path):
    path = tmp_path / "two.tsv"
    path.write_text("\n".join(MZINGA.read_text().splitlines()[2:4]) + "\n")
    result = CliRunner().invoke(main, ["puzzles", "solve", str(path), "--depth", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["solved"], data["total"]) == (2, 2) and data["by_game_type"] == {"Base": [2, 2]}


@pytest.mark.integration
def test_playout_against_hiveai_wins_every_puzzle():
    chosen = [p for p in shipped() if p.kind == "win" and p.depth == 3][:2]
    results = playout(chosen, limit=Limit(depth=1))
    assert [r.won for r in results] == [True, True]
    assert all(len(r.line) <= 3 for r in results)


@pytest.mark.integration
def test_playout_leaves_a_puzzle_the_engine_refuses_unplayed_and_goes_on(tmp_path):
    """An engine that answers ``invalidmove`` to a puzzle's position (nokamute does for a few of the
    collection's) costs that puzzle alone: it is reported not played, neither won nor lost, and the
    engine is started again for the next."""
    wins = [p for p in shipped() if p.kind == "win" and p.depth == 3]
    base = [p for p in wins if p.game_type == "Base"][:2]
    mlp = [p for p in wins if p.game_type == "Base+MLP"][:1]
    broken = [sys.executable, str(FAKE_ENGINES / "broken_uhp.py"), "--break", "refuse-mlp"]
    results = playout([base[0], mlp[0], base[1]], broken, Limit(depth=1))
    assert [(r.won, bool(r.error)) for r in results] == [(True, False), (False, True), (True, False)]
    refused = results[1]
    assert "invalidmove" in refused.error and refused.reason == ""
    assert refused.line == mlp[0].solution[: len(refused.line)] and len(refused.line) < mlp[0].depth

    path = tmp_path / "three.txt"
    write_puzzles(path, [base[0], mlp[0], base[1]])
    cli = CliRunner().invoke(main, ["puzzles", "playout", str(path), "--engine", shlex.join(broken), "--depth", "1"])
    assert cli.exit_code == 0, cli.output
    assert "2/2 puzzles won" in cli.stdout and "1 not played" in cli.stdout


def test_show_draws_text_and_svg():
    runner = CliRunner()
    text = runner.invoke(main, ["puzzles", "show", "1", "--solution"])
    assert text.exit_code == 0 and "to move" in text.output and "solution: " in text.output
    first = shipped()[0]
    svg = runner.invoke(main, ["puzzles", "show", first.id[:10], "--svg"])
    assert svg.exit_code == 0 and svg.output.startswith("<svg")
    assert runner.invoke(main, ["puzzles", "show", "0"]).exit_code == 2
    wrong = runner.invoke(main, ["puzzles", "show", "zz12"])
    assert wrong.exit_code == 2 and "4 to 16 hex digits" in wrong.output


def test_a_puzzle_is_found_by_the_start_of_its_id_and_only_when_one_matches():
    first = shipped(replay=False)[0]
    twins = [dataclasses.replace(first, id="abcd" + "0" * 12), dataclasses.replace(first, id="abcd" + "1" * 12)]
    assert puzzle_by_id(twins, "abcd1").id == "abcd" + "1" * 12
    for text, problem in [("abcd", "2 puzzles have ids starting abcd"), ("abce", "No puzzle has an id starting abce"),
                          ("ab", "4 to 16 hex digits"), ("ABCD", "4 to 16 hex digits")]:
        with pytest.raises(LookupError, match=problem):
            puzzle_by_id(twins, text)


# --- The build -----------------------------------------------------------------------


def test_mining_a_record_finds_proven_puzzles(prover):
    game, _, _ = mzinga_cases()[14]  # a win in 3 moves (case 15 has a second first move winning in 3)
    moves = tuple(game.split(";")[3:])
    record = mine_game(GameTask("records:test#0", "Base", 0, moves))
    assert record["lines"], record
    for line in record["lines"]:
        p = parse_line(line)
        assert p.source.startswith("records:test#0:") and verify_puzzle(p, prover) is None


def test_a_build_resumes_after_a_kill(tmp_path):
    out = tmp_path / "b"
    first = build(out, {"Base": 50}, seed=3, max_games=1)
    assert first.mined_now == 1
    with open(out / "mined.jsonl", "a") as f:
        f.write('{"task": "cut short')  # what a kill mid-append leaves
    second = build(out, {"Base": 50}, seed=3, max_games=1)
    records = [json.loads(line) for line in (out / "mined.jsonl").read_text().splitlines()]
    assert second.games == 2 and len({r["task"] for r in records}) == 2
    assert read_puzzles(out / "collection.txt") is not None


def test_variety_order_keeps_games_apart():
    made = [Puzzle(f"{i:016x}", "Base;InProgress;White[1]", ["wS1"], "win", [], 1, 1, 700, f"g{i // 2}:{i}")
            for i in range(6)]
    ordered = order_for_variety(made)
    assert all(a.game_id != b.game_id for a, b in zip(ordered, ordered[1:]))


# --- The shipped collection -----------------------------------------------------------


def test_the_shipped_collection_has_its_counts_and_variety():
    puzzles = shipped()
    counts = {gt: sum(p.game_type == gt for p in puzzles) for gt in DEFAULT_TARGETS}
    assert len(puzzles) >= 600 and counts["Base+MLP"] >= 250 and counts["Base"] >= 150
    assert all(counts[gt] > 0 for gt in DEFAULT_TARGETS), counts
    assert len({p.id for p in puzzles}) == len(puzzles)
    for a, b in zip(puzzles, puzzles[1:]):
        assert a.game_id != b.game_id or a.game_type != b.game_type, (a.source, b.source)


@pytest.mark.slow
def test_verify_reproves_the_whole_shipped_collection():
    """Every puzzle re-proven; no two equal under the board's symmetries (each id is its
    position's canonical key, checked by verify, and no id repeats)."""
    result = CliRunner().invoke(main, ["puzzles", "verify", "-q"])
    assert result.exit_code == 0, result.output
    puzzles = shipped()
    assert len({frame_of(p.board().position_array).key for p in puzzles}) == len(puzzles)
