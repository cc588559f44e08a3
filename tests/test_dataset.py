"""The labelled-position dataset (hiveai.training.dataset) and its compressed record files
(hiveai.durable's gzip members): a round trip, malformed files refused naming the line,
appending after a kill, duplicates, and `hiveai data` on the command line."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from hiveai.cli import main
from hiveai.durable import (
    DirectoryLock,
    LockedError,
    RecordLineError,
    append_gzip_lines,
    read_gzip_lines,
    rewrite_gzip_lines,
)
from hiveai.training.dataset import (
    Dataset,
    LabelledGame,
    check_moves,
    read_dataset,
    read_shard,
    shard_name,
    shard_paths,
    split_holdout,
    summary,
)

MOVES = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 /wS1", "bG1 bQ/", "wA1 \\wQ", "bA1 bQ-", "wA1 bA1/", "bG1 \\wQ"]


def game(i: int, *, depth: int = 4, eval_id: str = "linear:0123456789ab", moves: list[str] | None = None,
         run: str = "selfplay/test/s1") -> LabelledGame:
    """A labelled game (its moves legal in Base; ``i`` varies its length, result, id and scores)."""
    return LabelledGame("Base", list(moves or MOVES[: 5 + i % 6]), ("WhiteWins", "BlackWins", "Draw")[i % 3], run,
                        f"Base-{i:05d}", "hiveai test", eval_id, depth, [(2, 10 * i, 100 + i), (5, -7 * i, 200)])


def test_a_labelled_game_round_trips_through_a_shard_and_gzip_reads_it(tmp_path):
    games = [game(i) for i in range(6)]
    games[5].positions = [(3, 42, None)]  # a label imported without its nodes
    with Dataset.open(tmp_path) as data:
        assert [data.add(g) for g in games] == [True] * 5 + [True]
    (shard,) = shard_paths(tmp_path)
    assert shard.name == shard_name("Base", "linear:0123456789ab", 4) == "Base-d4-linear-0123456789ab.jsonl.gz"
    back = [g for _, g in read_shard(shard)]
    assert back == games
    # Plain gzip reads a file of members as one text: a line per game, the documented fields.
    lines = gzip.decompress(shard.read_bytes()).decode().splitlines()
    assert [json.loads(line)["game"] for line in lines] == [g.game for g in games]
    assert list(json.loads(lines[0])) == ["v", "game_type", "result", "run", "game", "engine", "eval", "depth",
                                          "moves", "positions"]
    assert json.loads(lines[5])["positions"] == [[3, 42]]
    # Repacked into one member: the same games, fewer bytes.
    size = shard.stat().st_size
    with Dataset.open(tmp_path) as data:
        assert data.compact() == [] and data.compact(every_shard=True) == [shard]
    assert [g for _, g in read_shard(shard)] == games and shard.stat().st_size < size
    assert summary(back)[0] == {"game_type": "Base", "eval": "linear:0123456789ab", "depth": 4, "games": 6,
                                "positions": 11, "mean_nodes": round(sum(100 + i + 200 for i in range(5)) / 10),
                                "engines": ["hiveai test"]}


def test_a_repeated_game_is_skipped_on_adding_and_counted_on_reading(tmp_path):
    with Dataset.open(tmp_path) as data:
        assert data.add(game(1)) and not data.add(game(1))  # the same game, evaluation and depth
        assert data.add(game(1, depth=5)) and data.add(game(1, eval_id="network:0123456789ab"))
    assert len(read_dataset([tmp_path])[0]) == 3
    # The same shard copied in twice (two branches merged): each game used once, the repeats named.
    (shard,) = [p for p in shard_paths(tmp_path) if "-d4-linear" in p.name]
    copy = tmp_path / ("copy-" + shard.name)
    copy.write_bytes(shard.read_bytes())
    games, report = read_dataset([tmp_path])
    assert len(games) == 3 and report.lines == 4
    assert [(d[0].name, d[1], d[2].name, d[3]) for d in report.duplicates] == [(copy.name, 1, shard.name, 1)]
    result = CliRunner().invoke(main, ["data", "check", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"{copy}:1 repeats {shard}:1" in result.output and "1 repeated game" in result.output


@pytest.mark.parametrize("line, problem", [
    ("not json", "not JSON"),
    ('["a list"]', "not a labelled game"),
    ('{"v": 2}', "format version 2, this hiveai reads version 1"),
    ("MISSING", "no depth"),
    ("EXTRA", "unknown field colour"),
    ("RESULT", "result 'Won' is not one of WhiteWins, BlackWins, Draw"),
    ("DEPTH", "depth 0 is not a positive whole number"),
    ("POSITION", "position 2 is not [ply, score, nodes] or [ply, score]"),
    ("PLY", "position 2: ply 2 is not after the last one (2)"),
    ("LATE", "position 1: ply 99 is not after the last one (-1) and within the game's 5 moves"),
])
def test_a_malformed_line_is_refused_naming_the_file_and_the_line(tmp_path, line, problem):
    good = json.loads(game(0).to_json())
    broken = dict(good)
    if line == "MISSING":
        del broken["depth"]
    elif line == "EXTRA":
        broken["colour"] = "white"
    elif line == "RESULT":
        broken["result"] = "Won"
    elif line == "DEPTH":
        broken["depth"] = 0
    elif line == "POSITION":
        broken["positions"] = [[2, 1, 3], [4, "1", 3]]
    elif line == "PLY":
        broken["positions"] = [[2, 1, 3], [2, 1, 3]]
    elif line == "LATE":
        broken["positions"] = [[99, 1, 3]]
    text = json.dumps(broken) if line.isupper() else line
    shard = tmp_path / "Base-d4-x.jsonl.gz"
    append_gzip_lines(shard, [game(1).to_json(), game(2).to_json()])
    append_gzip_lines(shard, [text])
    with pytest.raises(RecordLineError, match=rf"Base-d4-x\.jsonl\.gz:3: {__import__('re').escape(problem)}") as e:
        read_dataset([tmp_path])
    assert e.value.line == 3
    with pytest.raises(RecordLineError, match=r":3: "):
        Dataset.open(tmp_path)  # a writer refuses it too, and appends nothing after it
    assert len(read_gzip_lines(shard)) == 3


def test_damaged_compressed_data_is_refused_naming_the_line_and_the_byte(tmp_path):
    shard = tmp_path / "s.jsonl.gz"
    for i in range(3):
        append_gzip_lines(shard, [game(i).to_json()])
    data = bytearray(shard.read_bytes())
    second = data.index(b"\x1f\x8b", 1)  # the second member's header
    data[second + 40] ^= 0xFF  # a flipped byte inside its compressed body
    shard.write_bytes(bytes(data))
    with pytest.raises(RecordLineError, match=rf"s\.jsonl\.gz:2: damaged compressed data at byte {second}"):
        read_shard(shard)
    # A member whose text stops in the middle of a line (not something this code writes).
    other = tmp_path / "t.jsonl.gz"
    other.write_bytes(gzip.compress(b'{"v": 1}\n{"v"', mtime=0))
    with pytest.raises(RecordLineError, match=r"t\.jsonl\.gz:2: the compressed member at byte 0 ends in the middle"):
        read_gzip_lines(other)


def test_the_moves_are_checked_by_replaying_them(tmp_path):
    bad = game(0, moves=MOVES[:5] + ["wQ bS1-"] + MOVES[6:8])  # wQ is on the board: it cannot be placed again
    shard = tmp_path / "s.jsonl.gz"
    append_gzip_lines(shard, [game(1).to_json(), bad.to_json()])
    with pytest.raises(RecordLineError, match=r"s\.jsonl\.gz:2: move 6 \(wQ bS1-\)"):
        check_moves((shard, no, g) for no, g in read_shard(shard))
    result = CliRunner().invoke(main, ["data", "check", str(shard)])
    assert result.exit_code == 1 and "s.jsonl.gz:2: move 6 (wQ bS1-)" in result.output


def test_appending_after_a_kill_at_any_byte_of_the_last_write(tmp_path):
    """A kill in the middle of an append leaves a prefix of the last member, whatever its length:
    readers see the games before it, a writer cuts it off and appends after them."""
    whole = [game(i).to_json() for i in range(3)]
    shard = tmp_path / shard_name("Base", "linear:0123456789ab", 4)
    append_gzip_lines(shard, whole[:2])  # a compacted part: two lines in one member
    good = shard.read_bytes()
    append_gzip_lines(shard, [whole[2]])
    last = shard.read_bytes()[len(good):]
    for cut in range(len(last)):  # from the first byte of the header to one short of the trailer
        shard.write_bytes(good + last[:cut])
        assert [t for _, t in read_gzip_lines(shard)] == whole[:2]
        assert shard.read_bytes() == good + last[:cut]  # a reader leaves the file alone
        assert [t for _, t in read_gzip_lines(shard, trim=True)] == whole[:2]
        assert shard.read_bytes() == good  # a writer cuts the partial member off
    with Dataset.open(tmp_path) as data:
        assert data.add(game(2))
    assert [g.to_json() for _, g in read_shard(shard)] == whole


@pytest.mark.integration
def test_a_process_killed_while_appending_loses_at_most_the_game_it_was_writing(tmp_path):
    """SIGKILL a writer in a loop of appends: what is on disk is a prefix of what it wrote, whole."""
    code = ("import sys\n"
            "from hiveai.durable import append_gzip_lines\n"
            "i = 0\n"
            "while True:\n"
            "    append_gzip_lines(sys.argv[1], [('{\"n\": %d, \"pad\": \"%s\"}' % (i, 'x' * (i % 5000)))])\n"
            "    if i == 20: print('going', flush=True)\n"
            "    i += 1\n")
    path = tmp_path / "s.jsonl.gz"
    writer = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "going"
    finally:
        writer.kill()
        writer.wait()
    lines = read_gzip_lines(path, trim=True)
    assert len(lines) > 20
    assert [json.loads(t)["n"] for _, t in lines] == list(range(len(lines)))
    append_gzip_lines(path, ['{"n": -1}'])
    assert [t for _, t in read_gzip_lines(path)][-1] == '{"n": -1}' and len(read_gzip_lines(path)) == len(lines) + 1


def test_one_writer_at_a_time(tmp_path):
    with DirectoryLock(tmp_path):
        with pytest.raises(LockedError, match=rf"pid {os.getpid()}"):
            Dataset.open(tmp_path)
    assert read_dataset([tmp_path])[0] == []  # reading needs no lock


def test_every_tenth_game_of_each_run_is_held_out_whatever_else_is_added():
    first = [game(i, run="a") for i in range(30)]
    _, held = split_holdout(first)
    _, held_after = split_holdout(first + [game(i, run="b") for i in range(30)])
    assert [g.game for g in held] == ["Base-00009", "Base-00019", "Base-00029"]
    assert [g.game for g in held_after if g.run == "a"] == [g.game for g in held]


def test_rewrite_packs_lines_atomically(tmp_path):
    path = tmp_path / "s.jsonl.gz"
    for i in range(4):
        append_gzip_lines(path, [f"line {i}"])
    rewrite_gzip_lines(path, [t for _, t in read_gzip_lines(path)])
    assert gzip.decompress(path.read_bytes()) == b"line 0\nline 1\nline 2\nline 3\n"
    assert path.read_bytes().count(b"\x1f\x8b\x08") == 1
    with pytest.raises(ValueError, match="newline"):
        append_gzip_lines(path, ["two\nlines"])


def test_data_stats_on_the_command_line(tmp_path):
    with Dataset.open(tmp_path) as data:
        for i in range(3):
            data.add(game(i))
    result = CliRunner().invoke(main, ["data", "stats", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.splitlines()[0])["positions"] == 6
    result = CliRunner().invoke(main, ["data", "stats", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "does not exist" in result.output
