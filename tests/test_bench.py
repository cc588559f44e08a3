"""``hiveai bench`` (hiveai.search.bench): the positions are what they claim, the
signature is deterministic and printed, and --json parses. Runs at reduced
depth so the whole module takes a few seconds."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from hiveai.search.bench import POSITIONS, BenchPosition, PositionResult, run_bench
from hiveai.rules.board import Board
from hiveai.cli import main
from tactics import crowd

# Two plies below the real bench: the same code paths, ~1/10 of the nodes.
QUICK = ["--depth-offset", "-2"]
SIGNATURE = re.compile(r"^signature: (\d+) nodes$", re.MULTILINE)
# The pinned signature of `hiveai bench --depth-offset -2` (the full bench's is pinned in
# test_threads.py, BENCH_SIGNATURE; Stockfish's "Bench: N"), default table size. It changes exactly
# when the search's behaviour does (move ordering, pruning, evaluation, TT replacement). A change
# meant to alter the search updates both deliberately, in the same commit, and quotes the new
# `hiveai bench` signature in its message; a change not meant to must leave them alone.
QUICK_SIGNATURE = 117_145


def test_positions_cover_what_the_bench_promises():
    boards = {p.name: Board.parse(p.game) for p in POSITIONS}
    assert all(not b.is_game_over() for b in boards.values())
    starts = {b.game_type_string for p, b in zip(POSITIONS, boards.values()) if b.ply == 0}
    assert {"Base", "Base+MLP"} <= starts
    midgame_types = {b.game_type_string for p, b in zip(POSITIONS, boards.values()) if p.midgame}
    assert {"Base", "Base+MLP", "Base+M", "Base+L", "Base+P"} <= midgame_types
    assert all(b.ply >= 10 for p, b in zip(POSITIONS, boards.values()) if p.midgame)
    # Some queen with five neighbours (and none with six: the game goes on).
    assert any(5 in (crowd(b.position_array, 0), crowd(b.position_array, 1))
               for b in boards.values())


def test_signature_is_deterministic_and_json_parses():
    runner = CliRunner()
    text = runner.invoke(main, ["bench", *QUICK])
    assert text.exit_code == 0, text.output
    found = SIGNATURE.findall(text.output)
    assert len(found) == 1, text.output
    assert text.output.rstrip().splitlines()[-1].startswith("signature: ")
    for p in POSITIONS:
        assert p.name in text.output

    again = runner.invoke(main, ["bench", *QUICK, "--json"])
    assert again.exit_code == 0, again.output
    report = json.loads(again.output)
    assert report["signature"] == int(found[0]) == QUICK_SIGNATURE  # same searches, same nodes
    assert report["signature"] == sum(p["nodes"] for p in report["positions"])
    assert [p["name"] for p in report["positions"]] == [p.name for p in POSITIONS]
    assert [p["depth"] for p in report["positions"]] == [max(1, p.depth - 2) for p in POSITIONS]
    assert report["perft"]["leaves"] > 0 and report["midgame_nps"] > 0


def test_run_bench_records_every_iteration_and_repeats_itself():
    queen5 = next(p for p in POSITIONS if p.name == "Queen 5 neighbours")
    positions = (BenchPosition("Base+MLP start", "Base+MLP", 3, False),
                 BenchPosition("Queen 5", queen5.game, 3, True))
    seen: list[PositionResult] = []
    a = run_bench(tt_mb=1, positions=positions, on_position=seen.append)
    b = run_bench(tt_mb=1, positions=positions)
    assert [r.name for r in seen] == ["Base+MLP start", "Queen 5"]
    assert a.signature == b.signature
    for r in a.positions:
        assert [d for d, _, _ in r.iterations] == [1, 2, 3]
        assert r.iterations[-1][1] == r.nodes
        assert 0 <= r.tt_hit_rate <= 1 and r.ebf > 1
    assert a.perft.positions == 1


def test_threads_option_runs_lazy_smp_and_says_so():
    runner = CliRunner()
    out = runner.invoke(main, ["bench", "--depth-offset", "-4", "--threads", "2", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["threads"] == 2 and all(p["depth"] == max(1, p_.depth - 4)
                                          for p, p_ in zip(report["positions"], POSITIONS))
    text = runner.invoke(main, ["bench", "--depth-offset", "-4", "--threads", "2"])
    assert "2 threads (Lazy SMP" in text.output.splitlines()[0]
    assert runner.invoke(main, ["bench", "--threads", "0"]).exit_code != 0

