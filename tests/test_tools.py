"""The maintained tools in tools/ run, each once in a quick mode, and print what they measure.

These tests check that a tool works end to end (its command line, the engine processes it starts, the
table or figures it prints), not its figures: timings belong to the dated records of docs/measurements/.
docs/development.md ("Tools") lists the tools and their full commands. A tool that needs nokamute gets a
stand-in: a script that runs hiveai, which speaks the same protocol.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "tools"
TIMEOUT = 600  # a hang guard: quick modes take seconds
pytestmark = pytest.mark.integration  # each test runs a tool as a user would: a process


def run_tool(name: str, *args: str, cwd: Path | None = None, exit_codes: tuple[int, ...] = (0,)) -> str:
    """Run ``tools/NAME`` with ``args`` as a user would; its stdout (the test fails on another exit status)."""
    env = dict(os.environ)
    # tools/ on the path for the tools that share bench_uhp's client, also under PYTHONSAFEPATH
    # (tests/conftest.py sets it when hiveai is installed as a copy), which leaves the script's folder off.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TOOLS), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, str(TOOLS / name), *args], cwd=cwd or REPO, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode in exit_codes, f"{name} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture
def nokamute_stand_in(tmp_path: Path) -> Path:
    """An executable that ignores its arguments (``uhp --num-threads=1``) and runs hiveai's UHP engine."""
    script = tmp_path / "nokamute"
    script.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m hiveai\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_bench_perft_counts_match_the_reference_tables():
    out = run_tool("bench_perft.py", "--quick", "--no-compile", "--repeat", "1")
    rows = [line for line in out.splitlines() if "perft" in line and line.rstrip().endswith(("ok", "WRONG"))]
    assert len(rows) == 3 and all(row.rstrip().endswith("ok") for row in rows), out


def test_bench_convert_writes_every_game():
    out = run_tool("bench_convert.py", "--count", "12", "--repeat", "1")
    assert re.search(r"^12 games \(\d+ plies, [\d.]+ a game\) -> 12 pgn files$", out, re.MULTILINE), out


def test_bench_svg_times_the_pictures_and_a_review():
    out = run_tool("bench_svg.py", "--positions", "2", "--repeat", "2", "--depth", "1")
    assert re.search(r"svg\.board: 2 Base\+MLP positions .* median [\d.]+ ms", out), out
    assert re.search(r"review of 66 moves at depth 1: searches [\d.]+ s, HTML page [\d.]+ s", out), out


def test_bench_threads_compares_one_thread_with_two():
    out = run_tool("bench_threads.py", "--runs", "1", "--depth-offset", "-3")
    assert re.search(r"run 1: 1 thread [\d,]+ nodes .* 2 threads: main thread [\d,]+ nodes \([\d.]+x\)", out), out


def test_named_coverage_counts_the_named_lines_in_the_books():
    out = run_tool("named_coverage.py")
    found = re.search(r"^(\d+) of (\d+) pairs of named line and game type are book moves", out, re.MULTILINE)
    assert found and 0 < int(found.group(1)) <= int(found.group(2)), out


def test_bench_uhp_measures_start_up_and_round_trips():
    out = run_tool("bench_uhp.py", "--runs", "1", "--positions", "1", "--timed-moves", "0")
    for figure in ("banner (spawn -> ok of info block)", "bot bridge", "validmoves, mid-game Base+MLP"):
        assert figure in out, out


def test_bench_book_plays_book_moves_over_uhp():
    # It exits 1 when a latency misses its budget, which a loaded machine may cause: a figure, not a failure.
    out = run_tool("bench_book.py", "--runs", "1", "--engines", "2", exit_codes=(0, 1))
    assert out.rstrip().splitlines()[-1] in ("within budget", "BUDGET MISSED"), out
    assert "first book move, fresh process" in out and "UHP bestmove time 00:00:05, book position" in out, out
    assert re.search(r"first moves of 2 fresh engines +\S+ \S+ \(\d distinct\)", out), out


def test_bench_time_reports_time_use_and_the_first_move():
    out = run_tool("bench_time.py", "--budgets", "0.2", "--positions", "1")
    assert re.search(r"bestmove time 0\.2 s: mean [\d.]+ s \(\d+% of the budget\)", out), out
    assert re.search(r"first move of a process, bestmove time 1 s: depths \[\d+\]; later in the process: \[\d+\]", out), out


def test_bench_ponder_reports_the_depth_a_ponder_hit_gains():
    out = run_tool("bench_ponder.py", "--idle", "0.2", "--move-time", "00:00:00.1", "--positions", "1")
    assert re.search(r"mean depth gain [+-][\d.]+ plies \(min [+-]\d+\), [01] of 1 positions at least one ply deeper",
                     out), out
    assert "round trip, validmoves while pondering" in out, out


def test_bench_depth_times_both_engines(nokamute_stand_in: Path):
    out = run_tool("bench_depth.py", "--nokamute", str(nokamute_stand_in), "--runs", "1", "--depth", "2")
    assert re.search(r"Base\+MLP mid-game to depth 2: hiveai faster in [01] of 1 runs", out), out


DEPTH_COST_LINE = r"^Base\+MLP mid-game depth {depth} \(network\): nodes (\d+) evals (\d+) eval-cache hits (\d+) score -?\d+"


def test_depth_cost_searches_to_a_fixed_depth_natively():
    """The quick mode without valgrind: the search it counts, run natively (the same line callgrind's run prints)."""
    out = run_tool("depth_cost.py", "--depth", "3")
    found = re.search(DEPTH_COST_LINE.format(depth=3), out, re.MULTILINE)
    assert found and int(found.group(1)) >= int(found.group(2)) > 0, out
    assert run_tool("depth_cost.py", "--none") == ""  # everything but the search: nothing to print


@pytest.mark.slow  # numba compiles for a fixed CPU (about 35 s), then a run under callgrind (about 30 s)
def test_depth_cost_counts_instructions_per_kernel_under_callgrind(tmp_path: Path):
    """docs/measurements/2026-12-05-evalcost.md's procedure at depth 4: a native run fills a cache for the
    fixed CPU, callgrind counts a search, and --annotate names the JIT code's functions from --symbols."""
    if not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
        pytest.skip("needs valgrind (Debian's valgrind package): callgrind and callgrind_annotate")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), NUMBA_CPU_NAME="haswell",
               NUMBA_CPU_FEATURES="+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+lzcnt,+mmx,+movbe,+popcnt,"
                                  "+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave")
    tool = str(TOOLS / "depth_cost.py")
    native = subprocess.run([sys.executable, tool, "--depth", "2"], env=env, cwd=REPO, capture_output=True,
                            text=True, timeout=TIMEOUT)
    assert native.returncode == 0, native.stderr[-3000:]
    cg, syms = tmp_path / "cg.out", tmp_path / "syms.txt"
    counted = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", sys.executable, tool,
                              "--depth", "4", "--symbols", str(syms)], env=env, cwd=REPO, capture_output=True,
                             text=True, timeout=TIMEOUT)
    assert counted.returncode == 0, counted.stderr[-3000:]
    found = re.search(DEPTH_COST_LINE.format(depth=4), counted.stdout, re.MULTILINE)
    assert found, counted.stdout
    assert re.search(r"Collected : \d+", counted.stderr), counted.stderr[-3000:]
    out = run_tool("depth_cost.py", "--annotate", str(cg), str(syms), found.group(1))
    per_node = dict((line[12:], float(line[:10])) for line in out.splitlines())
    assert "PROGRAM TOTALS" in per_node and len(per_node) == 40, out
    # The kernels' names come from the symbols file: callgrind knows only their addresses.
    assert any(name.startswith("hiveai.") and cost > 0 for name, cost in per_node.items()), out


def test_label_rate_times_labelling_on_the_kept_dataset():
    out = run_tool("label_rate.py", "data", "Base", "1", "2")
    assert re.match(r"1 games of Base; load average [\d.]+ on \d+ cores\n", out), out
    (line,) = [json.loads(text) for text in out.splitlines()[1:]]
    assert line["game_type"] == "Base" and line["depth"] == 2 and line["positions"] > 0 and line["nodes_each"] > 0, out


@pytest.mark.slow  # a refereed tournament of 2 games: about 15-20 s on 2 cores
def test_ladder_plays_a_rung_and_prints_its_table(tmp_path: Path, nokamute_stand_in: Path):
    out = run_tool("ladder.py", "--nokamute", str(nokamute_stand_in), "--rungs", "d2", "--game-types", "Base",
                   "--games", "2", "--time", "0.1", "--concurrency", "2", "--out", str(tmp_path / "ladder"),
                   cwd=tmp_path)
    assert re.search(r"^\| nokamute depth 2 \| Base \| 2 \| \d \| \d \| \d \|", out, re.MULTILINE), out
    assert (tmp_path / "ladder" / "d2-Base" / "games.jsonl").read_text().count("\n") == 2


@pytest.mark.slow  # a refereed tournament of 2 games: about 15-20 s on 2 cores
def test_levels_plays_a_step_and_prints_its_table(tmp_path: Path):
    out = run_tool("levels.py", "--levels", "2-2", "--games", "2", "--out", str(tmp_path / "levels"),
                   cwd=tmp_path)
    assert re.search(r"^\| L2 vs L1 \| 2 \| \d \| \d \| \d \|", out, re.MULTILINE), out


@pytest.mark.slow  # headless Chromium renders a review page
@pytest.mark.browser
def test_screenshots_render_the_docs_pictures(tmp_path: Path):
    sys.path.insert(0, str(TOOLS))
    import screenshots

    if not screenshots.have_chromium():
        pytest.skip("needs Debian's chromium package")
    out = run_tool("screenshots.py", "--out", str(tmp_path), "--depth", "1")
    assert "wrote" in out and (tmp_path / "board.svg").read_text().startswith("<svg")
    for png in ("review.png", "puzzles.png", "puzzles-refuted.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
