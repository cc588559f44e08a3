"""``hiveai tournament``: schedule, referee, records, resume, Ray and SPRT, with
real engine processes: hiveai itself and the misbehaving fake engines in
tests/fake_engines (crash, illegal move, hang, garbage, false result, ...).

HIVEAI_TEST_ENGINE, if set, is the command line used for "hiveai" (to run
these tests against another build); by default it is this installed engine.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from hiveai.backend import make_backend
from hiveai.rules.board import Board
from hiveai.rules.bug import N_PIECES, PIECE_NAMES
from hiveai.cli import TournamentCommand, parse_sprt
from hiveai.records import read_game
from hiveai.rules.hex_grid import hive_coordinates
from hiveai.rules.outcome import Termination
from hiveai.rules.position import POS, TOP
from hiveai.tournament import referee
from hiveai.tournament.layout import CONFIG_FILE, GAMES_FILE, REPORT_FILE, STANDINGS_FILE, pgn_path, replay_path
from hiveai.tournament.preflight import check_engine
from hiveai.tournament.runner import TournamentError, fairness_warnings, load_records, run
from hiveai.tournament.schedule import (
    EngineSpec,
    ScheduledGame,
    build_config,
    configure_engines,
    make_schedule,
    pairings,
    parse_engine,
    random_openings,
)
from hiveai.tournament.standings import standings_notes
from hiveai.tournament.stats import Sprt

REPO = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).parent / "fake_engines" / "fake_uhp.py"
HIVEAI = os.environ.get("HIVEAI_TEST_ENGINE", "hiveai")
# hiveai's opening book picks weighted random moves; off, hiveai at a fixed depth is deterministic,
# which the resume, Ray and self-play tests rely on.
NO_BOOK = "UseBook=False"
# Short games keep the suite fast; the rules are the same at any length.
MAX_PLIES = 80


def fake(*flags: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, str(FAKE), *flags))


def fake_spec(name: str, *flags: str, options: tuple = (), go: str = "depth 1") -> EngineSpec:
    return EngineSpec(name, (sys.executable, str(FAKE), *flags), options, go)


def game_task(white: EngineSpec, black: EngineSpec, rules: referee.Rules, game_id: str = "g00000") -> referee.GameTask:
    game = ScheduledGame(game_id, 0, 0, (white.name, black.name), white.name, black.name,
                         "Base+MLP;NotStarted;White[1]")
    return referee.GameTask(game, white, black, rules)


def running(pid_file: Path) -> list[int]:
    """The processes listed in ``pid_file`` that still exist (a zombie, killed but not reaped, counts)."""
    alive = []
    for pid in map(int, pid_file.read_text().split()):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        alive.append(pid)
    return alive


def wait_gone(pid_file: Path, seconds: float = 10.0) -> list[int]:
    """``running(pid_file)`` once it is empty, or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while running(pid_file) and time.monotonic() < deadline:
        time.sleep(0.05)
    return running(pid_file)


def config(engines: list[str], **kw):
    args = dict(options=[], go=[], time=None, depth=1, game_type="Base+MLP", games=2, openings=None,
                random_plies=None, seed=1, gauntlet=False, sprt=None, max_plies=MAX_PLIES, repetition=True,
                time_tolerance=referee.TIME_TOLERANCE, time_tolerance_ms=referee.TIME_TOLERANCE_MS,
                hang_timeout=referee.DEPTH_HANG_TIMEOUT, restart=False)
    args.update(kw)
    hiveais = [e.split("=")[0] for e in engines if e.endswith("=" + HIVEAI)]
    args["options"] = args["options"] + [f"{name}:{NO_BOOK}" for name in hiveais]
    return build_config(engines=engines, **args)


def play(cfg, out: Path, **kw) -> tuple[list[dict], str]:
    screen = io.StringIO()
    records = run(cfg, out, stream=screen, **kw)
    return records, screen.getvalue()


def essence(records: list[dict]) -> dict[str, tuple]:
    """What must not depend on how or when a game was played."""
    return {r["id"]: (r["white"], r["black"], r["result"], r["reason"], r["forfeit"], r["game_string"])
            for r in records}


def check_saved_games(out: Path, records: list[dict]) -> None:
    """Every game replays legally, and its PGN reads back identically."""
    for r in records:
        board = Board.from_game_string(r["game_string"])
        assert board.ply == r["plies"]
        assert board.game_string().split(";")[3:r["opening_plies"] + 3] == r["opening"].split(";")[3:]
        path = pgn_path(out, r)
        record = read_game(path)
        assert record.to_pgn() == path.read_text()
        assert record.to_board().game_string() == r["game_string"]
        assert (record.result, record.tags["White"], record.tags["Black"]) == (r["result"], r["white"], r["black"])


# --- schedule ---------------------------------------------------------------------


def test_pairings_and_schedule():
    assert pairings(["a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairings(["a", "b", "c"], gauntlet=True) == [("a", "b"), ("a", "c")]
    games = make_schedule(["a", "b", "c"], ["o1", "o2"])
    assert len(games) == 2 * 3 * 2 and [g.id for g in games][:2] == ["g00000", "g00001"]
    assert len({g.id for g in games}) == len(games)
    for first, second in zip(games[::2], games[1::2]):  # a game pair: same opening, colours swapped
        assert (first.pair, first.pairing, first.opening) == (second.pair, second.pairing, second.opening)
        assert (first.white, first.black) == (second.black, second.white) == first.pairing


def test_random_openings_are_reproducible_legal_and_distinct():
    a = random_openings("Base+MLP", 4, 12, seed=7)
    assert a == random_openings("Base+MLP", 4, 12, seed=7)
    assert a != random_openings("Base+MLP", 4, 12, seed=8)
    assert len(set(a)) == 12
    for gs in a:
        assert Board.from_game_string(gs).ply == 4


def test_openings_file_cycles_and_must_match_the_game_type(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("Base;NotStarted;White[1];wS1\nBase;NotStarted;White[1];wG1;bG1 wG1-\n")
    cfg = config(["a=" + fake(), "b=" + fake()], game_type="Base", openings=str(path), games=6)
    assert [len(o.split(";")) - 3 for o in cfg.openings] == [1, 2, 1]
    with pytest.raises(ValueError, match="opening 1 is a Base game"):
        config(["a=" + fake(), "b=" + fake()], openings=str(path))


def test_engine_flags():
    specs = configure_engines(["d1=hiveai", "x=" + fake("--first")], ["x:Style=sharp"], ['x:time 00:00:01'],
                              None, 2)
    assert specs[0].command == (sys.executable, "-m", "hiveai") and specs[0].go == "depth 2"
    assert specs[1].command[-1] == "--first" and specs[1].options == (("Style", "sharp"),)
    assert specs[1].go == "time 00:00:01"
    assert configure_engines(["hiveai", "b=hiveai"], [], [], 0.25, None)[0].go == "time 00:00:00.2500000"
    for engines, options, go, error in [
        (["a=x", "a=y"], [], [], "unique"),
        (["a=x", "b=y"], ["c:O=1"], [], "expected NAME:OPTION=VALUE"),
        (["a=x", "b=y"], [], ["c:depth 1"], 'no engine named "c"'),
        (["a b=x"], [], [], "engine name"),
    ]:
        with pytest.raises(ValueError, match=error):
            configure_engines(engines, options, go, None, 1)
    with pytest.raises(ValueError, match="no search limit for a, b"):
        configure_engines(["a=x", "b=y"], [], [], None, None)


def test_sprt_flag_takes_two_or_four_numbers():
    seen = {}

    @click.command(cls=TournamentCommand)
    @click.option("--sprt")
    @click.option("--games", type=int)
    def cmd(sprt, games):
        seen.update(sprt=parse_sprt(sprt), games=games)

    cmd(["--sprt", "0", "10", "--games", "4"], standalone_mode=False)
    assert seen == {"sprt": [0.0, 10.0, 0.05, 0.05], "games": 4}
    cmd(["--games", "2", "--sprt", "-5", "5", "0.1", "0.2"], standalone_mode=False)
    assert seen == {"sprt": [-5.0, 5.0, 0.1, 0.2], "games": 2}
    for bad in (["--sprt", "0"], ["--sprt", "10", "0"], ["--sprt", "0", "10", "0.05"]):
        with pytest.raises(click.BadParameter):
            cmd(bad, standalone_mode=False)


# --- backend ----------------------------------------------------------------------


def _square(x: int) -> int:
    time.sleep(0.01 * (x % 3))
    return x * x


def test_local_backend_streams_results_and_pulls_items_lazily():
    pulled = []

    def items():
        for i in range(100):
            pulled.append(i)
            yield i

    with make_backend(concurrency=3) as backend:
        results = []
        for r in backend.imap_unordered(_square, items()):
            results.append(r)
            if len(results) == 5:
                break
        assert len(pulled) <= 5 + 3  # never more than the slots ahead of what was consumed
        assert sorted(make_backend(2).imap_unordered(_square, range(10))) == [i * i for i in range(10)]
    with pytest.raises(ValueError, match="unknown cluster"):
        make_backend(cluster="slurm")


class _FakeRay:
    """The few calls RayBackend makes, run in this process: tests our streaming and set-up
    around Ray without starting it (the slow tests below run real Ray)."""

    class Ref:
        def __init__(self, value):
            self.value = value

    def __init__(self) -> None:
        self.initialized = False
        self.inits: list[dict] = []

    def is_initialized(self) -> bool:
        return self.initialized

    def init(self, **kwargs) -> None:
        self.initialized = True
        self.inits.append(kwargs)

    def shutdown(self) -> None:
        self.initialized = False

    def cluster_resources(self) -> dict:
        return {"CPU": 3.0}

    def remote(self, num_cpus: int):
        assert num_cpus == 1

        def task(fn):
            return type("Task", (), {"remote": staticmethod(lambda *args: _FakeRay.Ref(fn(*args)))})

        return task

    def wait(self, refs: list, num_returns: int) -> tuple[list, list]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        return ref.value


def test_ray_backend_streams_results_and_owns_only_the_instance_it_starts(monkeypatch):
    fake_ray = _FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake_ray)
    with make_backend(cluster="ray") as backend:
        assert backend.slots == 3  # one task per cluster CPU
        assert sorted(backend.imap_unordered(_square, range(7))) == [i * i for i in range(7)]
    assert fake_ray.inits == [{"address": "local", "include_dashboard": False}] and not fake_ray.initialized
    with make_backend(concurrency=2, cluster="ray:auto") as backend:
        assert backend.slots == 2 and fake_ray.inits[-1] == {"address": "auto"}
    fake_ray.initialized = True  # a caller's own Ray instance: joined, left running
    make_backend(cluster="ray").close()
    assert fake_ray.initialized and len(fake_ray.inits) == 2
    monkeypatch.setitem(sys.modules, "ray", None)  # not installed
    with pytest.raises(RuntimeError, match=r"pip install 'hiveai\[cluster\]'"):
        make_backend(cluster="ray")
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        make_backend(concurrency=0)


# --- refereeing -------------------------------------------------------------------


@pytest.mark.integration
def test_each_misbehaviour_forfeits_its_game_with_its_reason():
    """One game each, a fake against a fake that misbehaves: the referee's forfeits and their
    details, and a false result flagged while the game goes on. (The whole tournament of this,
    hiveai against every misbehaviour twice with a restart, records and standings, is the slow
    test_every_forfeit_is_recorded_with_its_reason.)"""
    # name -> (flags, go, reason, words of the detail); "slow" sleeps 0.75 s, so it always answers past the
    # 0.5 s budget's tolerance (0.5 s * 1.1 + 0.1 s = 0.65 s), and 0.75 s before its hang time (1.5 s).
    misbehaving = {
        "crash": (("--crash-at", "5"), "depth 1", Termination.CRASH, "exited with code 3 during 'bestmove depth 1'"),
        "illegal": (("--illegal-at", "3"), "depth 1", Termination.ILLEGAL_MOVE, "pass"),
        "garbage": (("--garbage-at", "4"), "depth 1", Termination.UNPARSEABLE_OUTPUT, "bestmove"),
        "erring": (("--err-at", "3"), "depth 1", Termination.ENGINE_ERROR,
                   "answered 'err Something went wrong in the engine.'"),
        "slow": (("--slow", "0.75"), "time 00:00:00.5", Termination.TIME_FORFEIT, "for a 0.5 s move"),
    }
    rules = referee.Rules(max_plies=20)
    tasks = [game_task(fake_spec("ok"), fake_spec(name, *flags, go=go), rules, f"g{i:05d}")
             for i, (name, (flags, go, _, _)) in enumerate(misbehaving.items())]
    tasks.append(game_task(fake_spec("liar", "--false-win-at", "3"), fake_spec("ok"), rules, "g00099"))
    try:  # "ok" starts once per thread and stays in its pool between games, as in a tournament
        with make_backend(concurrency=2) as backend:
            records = {r["black"] if r["black"] != "ok" else r["white"]: r
                       for r in backend.imap_unordered(referee.play_game, tasks)}
    finally:
        referee.close_all()
    for name, (_, _, reason, words) in misbehaving.items():
        r = records[name]
        assert (r["forfeit"], r["reason"], r["winner"]) == (name, reason, "ok"), r["detail"]
        assert words in r["detail"], r["detail"]
    assert records["crash"]["plies"] >= 5 and records["erring"]["plies"] >= 3
    liar = records["liar"]
    assert liar["forfeit"] is None and liar["plies"] > 3
    assert any("liar declared WhiteWins" in f for f in liar["flags"]), liar["flags"]


# The whole gauntlet: hiveai in 14 games (about a minute of a 2-core machine). The fast suite checks each
# forfeit and the false-result flag in test_each_misbehaviour_forfeits_its_game_with_its_reason, and a
# tournament's records, report and standings in test_resume_refuses_a_different_tournament_....
@pytest.mark.integration
@pytest.mark.slow
def test_every_forfeit_is_recorded_with_its_reason(tmp_path):
    """hiveai against engines that misbehave in every way the referee must catch."""
    engines = {
        "crash": (fake("--crash-at", "12"), Termination.CRASH),
        "illegal": (fake("--illegal-at", "9"), Termination.ILLEGAL_MOVE),
        "hang": (fake("--hang-at", "8"), Termination.HANG),
        "garbage": (fake("--garbage-at", "10"), Termination.UNPARSEABLE_OUTPUT),
        "slow": (fake("--slow", "1.0"), Termination.TIME_FORFEIT),
        "erring": (fake("--err-at", "6"), Termination.ENGINE_ERROR),
    }
    # Timed moves for the two clock tests: "hang" hangs after 1 s + 1 s; "slow" answers after 1.0 s, past
    # 0.5 s * 1.1 + 0.1 s but before its hang time (1.5 s). Everyone else has the default depth-mode
    # hang timeout, so a busy machine cannot turn a slow start of hiveai into a forfeit.
    cfg = config([f"hiveai={HIVEAI}"] + [f"{n}={c}" for n, (c, _) in engines.items()]
                 + ["liar=" + fake("--false-win-at", "7")],
                 gauntlet=True, options=["crash:Style=sharp"],
                 go=["slow:time 00:00:00.5", "hang:time 00:00:01"])
    out = tmp_path / "t"
    records, screen = play(cfg, out, concurrency=2)
    assert len(records) == 2 * 7
    by_opponent: dict[str, list[dict]] = {}
    for r in records:
        by_opponent.setdefault(r["pairing"][1], []).append(r)
    for name, (_, reason) in engines.items():
        for r in by_opponent[name]:
            assert (r["forfeit"], r["reason"], r["winner"]) == (name, reason, "hiveai"), r["detail"]
    for r in by_opponent["hang"]:
        assert "no 'ok' within 2.0 s of 'bestmove time 00:00:01'" in r["detail"]
    for r in by_opponent["slow"]:
        assert "for a 0.5 s move" in r["detail"]
    # The crashing engine crashed in both games at its ply, not at start-up: it was restarted,
    # options and all, for the second game.
    for r in by_opponent["crash"]:
        assert "exited with code 3 during 'bestmove depth 1'" in r["detail"] and r["plies"] >= 12
        assert "crash > options set Style sharp" in (out / "logs" / f"{r['id']}.log").read_text()
    for r in by_opponent["erring"]:
        assert "answered 'err Something went wrong in the engine.'" in r["detail"] and r["plies"] >= 6
    # A false result is flagged and the game goes on (draw claims: test_draw_claims_...).
    for r in by_opponent["liar"]:
        assert r["forfeit"] is None and r["plies"] > 7
        assert any("liar declared WhiteWins" in f for f in r["flags"])
    # Records: games.jsonl, PGN that reads back, engine logs, standings.
    lines = (out / GAMES_FILE).read_text().splitlines()
    assert sorted(json.loads(x)["id"] for x in lines) == sorted(r["id"] for r in records)
    check_saved_games(out, records)
    standings = (out / STANDINGS_FILE).read_text()
    assert "Forfeits: crash crash 2, erring engine error 2, garbage unparseable output 2, hang hang 2, " \
           "illegal illegal move 2, slow time forfeit 2" in standings
    assert standings in screen
    assert "hiveai" in standings.splitlines()[2]  # ranked first


@pytest.mark.integration
def test_an_engine_that_cannot_start_stops_the_tournament_early(tmp_path):
    cfg = config(["a=" + fake(), "b=/nonexistent/engine --flag"])
    with pytest.raises(TournamentError, match=r"engine b \(/nonexistent/engine --flag\) cannot play: crash"):
        play(cfg, tmp_path / "t")


@pytest.mark.integration
def test_engines_that_fail_to_start_are_killed_and_reaped(tmp_path):
    """An engine that hangs at start-up or rejects an option loses, and its process is gone:
    killed and reaped at once, so it cannot spin on a core for the rest of the tournament."""
    pids = tmp_path / "pids"
    ok, ok2 = fake_spec("ok", "--pid-file", str(pids)), fake_spec("ok2", "--pid-file", str(pids))
    mute = fake_spec("mute", "--hang-at-start", "--pid-file", str(pids))
    picky = fake_spec("picky", "--no-options", "--pid-file", str(pids), options=(("Style", "sharp"),))
    try:
        # The good engines start once (loading hiveai takes seconds on a busy machine) and stay in
        # this thread's pool, as between the games of a tournament; then only the mute one must start
        # within a short set-up time (it writes its pid before anything else).
        referee.play_game(game_task(ok, ok2, referee.Rules(max_plies=2)))
        hung = referee.play_game(game_task(ok, mute, referee.Rules(max_plies=2, banner_timeout=2.0)))
        assert (hung["forfeit"], hung["reason"], hung["winner"]) == ("mute", Termination.HANG, "ok")
        assert hung["detail"] == "no start-up banner (its 'id' line and 'ok') within 2.0 s"
        rejected = referee.play_game(game_task(picky, ok2, referee.Rules(max_plies=2)))
        assert (rejected["forfeit"], rejected["reason"], rejected["winner"]) == ("picky", Termination.ENGINE_ERROR, "ok2")
        assert rejected["detail"] == "option Style=sharp rejected: err Unknown option Style"
        started = [int(pid) for pid in pids.read_text().split()]  # ok, ok2, mute, picky: in start order
        assert len(started) == 4 and running(pids) == started[:2]  # only the good engines, kept for more games
    finally:
        referee.close_all()
    assert wait_gone(pids) == []


@pytest.mark.integration
def test_a_tournament_with_a_mute_engine_stops_at_the_banner_timeout_and_leaves_no_process(tmp_path):
    """The check before the games awaits a banner for the banner timeout only (the long wait
    for a cold numba cache is for newgame and the first bestmove): the message names the
    engine and the answer it did not give, with a remedy, and no engine process is left."""
    pids = tmp_path / "pids"
    mute = fake("--hang-at-start", "--pid-file", str(pids))
    cfg = config(["a=" + fake("--pid-file", str(pids)), "mute=" + mute], hang_timeout=5.0)
    out = tmp_path / "t"
    with pytest.raises(TournamentError) as caught:
        play(cfg, out, banner_timeout=1.0)
    message = str(caught.value)
    assert message.startswith(f"engine mute ({mute}) cannot play: hang: no start-up banner (its 'id' line and 'ok') "
                              "within 1.0 s\nIs the command a UHP engine? One that is only slow to start needs more "
                              "time: --banner-timeout SECONDS."), message
    assert "engine a" not in message and message.endswith("No game was played.")
    assert _nothing_written(out)
    assert len(pids.read_text().split()) == 2 and wait_gone(pids) == []


@pytest.mark.integration
def test_the_tournament_command_takes_the_banner_timeout(tmp_path):
    """The same through the command line (--banner-timeout), as the user meets it."""
    pids = tmp_path / "pids"
    result = subprocess.run(
        [sys.executable, "-m", "hiveai", "tournament", "--engine", "a=" + fake("--pid-file", str(pids)),
         "--engine", "mute=" + fake("--hang-at-start", "--pid-file", str(pids)), "--depth", "1", "--games", "2",
         "--hang-timeout", "5", "--banner-timeout", "1", "--game-type", "Base", "--out", str(tmp_path / "t")],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode == 1
    assert "Error: engine mute (" in result.stderr and "no start-up banner (its 'id' line and 'ok') within 1.0 s" \
        in result.stderr and "No game was played." in result.stderr, result.stderr
    assert len(pids.read_text().split()) == 2 and wait_gone(pids) == []


@pytest.mark.integration
def test_the_check_says_what_it_waits_for_when_a_first_move_is_slow(monkeypatch):
    """newgame and the first bestmove of the check may take a cold compile's time: after
    SLOW_NOTICE seconds the check says what it waits for (here after 0.1 s, for an engine
    that thinks a second)."""
    from hiveai.tournament import preflight

    monkeypatch.setattr(preflight, "SLOW_NOTICE", 0.1)
    waits: list[str] = []
    rejection, notes = check_engine(fake_spec("slow", "--slow", "1"), "Base", wait_note=waits.append)
    assert rejection is None and notes == []
    expected = (f"slow: waiting up to {preflight.COMPILE_TIMEOUT:.0f} s for its answer to 'bestmove depth 1' "
                "(a first game may compile the engine: a cold numba cache takes minutes)")
    # newgame too may be that slow: the fake engine loads numba after its banner, as hiveai does.
    assert waits[-1] == expected and waits[:-1] in ([], [expected.replace("bestmove depth 1", "newgame Base")])


@pytest.mark.integration
def test_the_hang_timeout_applies_to_every_answer_in_a_game(tmp_path):
    """An engine that never answers options, newgame or play loses as hung after the hang
    timeout (play and pass: at most COMMAND_TIMEOUT), and its process is gone."""
    pids = tmp_path / "pids"
    ok = fake_spec("ok", "--pid-file", str(pids))
    hangs = {"options": fake_spec("h0", "--hang-on", "options", "--pid-file", str(pids), options=(("Style", "x"),)),
             "newgame": fake_spec("h1", "--hang-on", "newgame", "--pid-file", str(pids)),
             "play": fake_spec("h2", "--hang-on", "play", "--pid-file", str(pids))}
    rules = referee.Rules(max_plies=20, hang_timeout=1.0)
    assert rules.command_timeout == 1.0 and referee.Rules(hang_timeout=60).command_timeout == referee.COMMAND_TIMEOUT
    try:
        # First a game without a move (a one-ply opening, adjudicated at once), with the default patience:
        # "ok" and "h2" load their rules engine (numba; seconds on a busy machine) and stay in this
        # thread's pool, as between the games of a tournament. Then every answer has one second.
        one_ply = ScheduledGame("g00000", 0, 0, ("ok", "h2"), "ok", "h2", "Base+MLP;InProgress;Black[1];wS1")
        warm = referee.play_game(referee.GameTask(one_ply, ok, hangs["play"], referee.Rules(max_plies=1)))
        assert (warm["reason"], warm["forfeit"]) == (Termination.MAX_PLIES, None), warm["detail"]
        for i, (command, spec) in enumerate(hangs.items(), 1):
            r = referee.play_game(game_task(ok, spec, rules, f"g{i:05d}"))
            assert (r["forfeit"], r["reason"]) == (spec.name, Termination.HANG), r["detail"]
            assert r["detail"].startswith(f"no 'ok' within 1.0 s of '{command} "), r["detail"]
    finally:
        referee.close_all()
    assert len(pids.read_text().split()) == 4 and wait_gone(pids) == []


@pytest.mark.integration
def test_draw_claims_are_checked_against_the_referees_repetition_count(tmp_path):
    """A true claim (the position did occur three times) ends the game as a draw, even with
    repetition adjudication off; a false one is flagged once and the game goes on."""
    rules = referee.Rules(max_plies=60, repetition=False, fresh_engines=True)
    tasks = [game_task(fake_spec("claimer", "--shuffle", "--claim-repetition"), fake_spec("shuffler", "--shuffle"),
                       rules, "g00000"),
             game_task(fake_spec("liar", "--draw-at", "6"), fake_spec("other"), rules, "g00001")]
    with make_backend(concurrency=2) as backend:
        records = {r["id"]: r for r in backend.imap_unordered(referee.play_game, tasks)}
    true, false = records["g00000"], records["g00001"]
    assert (true["result"], true["reason"], true["forfeit"]) == ("Draw", Termination.ENGINE_DRAW, None)
    board = Board.from_game_string(true["game_string"])
    history = [board.zobrist]
    while board.ply > 0:  # the final position really occurred three times
        board.pop()
        history.append(board.zobrist)
    assert history.count(history[0]) == 3
    assert true["flags"] == [f"claimer declared a draw after ply {true['plies']}; honoured: the position occurred "
                             "3 times"]
    assert false["reason"] != Termination.ENGINE_DRAW and false["plies"] > 6
    assert false["flags"] == ["liar declared a draw after ply 6; rejected: the position occurred 1 time, "
                              "the game goes on"]
    # The standings count the honoured claim among the game ends and only the rejected one as a flag.
    notes = standings_notes([true, false], ["claimer", "shuffler", "liar", "other"])
    assert f"{Termination.ENGINE_DRAW} 1" in notes[1]
    assert "Games with flags (an engine declared a result the referee did not see): 1" in notes


# --- the check before the games ----------------------------------------------------

WHOLE_SECONDS = "00:00:00.3000000"  # what --time 0.3 sends


def _nothing_written(out: Path) -> bool:
    return not any((out / name).exists() for name in (STANDINGS_FILE, GAMES_FILE, CONFIG_FILE))


@pytest.mark.integration
def test_an_engine_that_rejects_fractional_times_stops_the_tournament_before_any_game(tmp_path):
    cfg = config(["a=" + fake(), "nk=" + fake("--whole-seconds")], time=0.3, depth=None)
    out = tmp_path / "t"
    with pytest.raises(TournamentError) as caught:
        play(cfg, out)
    message = str(caught.value)
    assert f"engine nk ({fake('--whole-seconds')}) rejects its set-up: 'bestmove time {WHOLE_SECONDS}' " \
           f"answered 'err UnrecognizedCommand(\"time {WHOLE_SECONDS}\")'" in message
    assert "accept whole seconds only" in message and "--time 1" in message and '--go nk:"depth N"' in message
    assert "engine a" not in message and "No game was played." in message
    assert _nothing_written(out)
    # Nothing of the failed set-up is left behind: the same --out takes the fixed command.
    records, _ = play(config(["a=" + fake(), "nk=" + fake("--whole-seconds")], go=["nk:depth 1", "a:depth 1"]), out)
    assert len(records) == 2 and all(r["forfeit"] is None for r in records)


@pytest.mark.integration
def test_an_engine_that_rejects_an_option_stops_the_tournament_before_any_game(tmp_path):
    cfg = config(["a=" + fake(), "picky=" + fake("--no-options")], options=["picky:Style=sharp"])
    out = tmp_path / "t"
    with pytest.raises(TournamentError, match=r"engine picky \(.*\) rejects its set-up: 'options set Style sharp' "
                                              r"answered 'err Unknown option Style'\. .*--option picky:Style="):
        play(cfg, out)
    assert _nothing_written(out)


@pytest.mark.integration
def test_a_first_game_lost_to_the_set_up_stops_the_tournament(tmp_path, monkeypatch):
    """Without the check before the games (as on a Ray cluster, whose engines are not
    started beforehand), the first game lost to a rejected limit stops the run unrecorded."""
    from hiveai.tournament import runner

    monkeypatch.setattr(runner, "check_engines", lambda config, say, rules, wait_note: [])
    cfg = config(["a=" + fake(), "nk=" + fake("--whole-seconds")], go=["nk:time 00:00:00.5"], games=4)
    out = tmp_path / "t"
    with pytest.raises(TournamentError) as caught:
        play(cfg, out)
    message = str(caught.value)
    assert "engine nk" in message and "'bestmove time 00:00:00.5' answered 'err UnrecognizedCommand" in message
    assert '--go nk:"depth N"' in message and "it is not recorded" in message
    assert not (out / STANDINGS_FILE).exists() and not (out / GAMES_FILE).exists()


# The same rejection through run() is the fast test_an_engine_that_rejects_fractional_times_...; the
# command's non-zero exit with its message, test_the_tournament_command_takes_the_banner_timeout.
@pytest.mark.integration
@pytest.mark.slow
def test_the_tournament_command_exits_non_zero_naming_the_rejected_command(tmp_path):
    out = tmp_path / "t"
    result = subprocess.run(
        [sys.executable, "-m", "hiveai", "tournament", "--engine", "a=" + fake(), "--engine",
         "nk=" + fake("--whole-seconds"), "--time", "0.3", "--game-type", "Base", "--games", "2", "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode != 0
    assert f"'bestmove time {WHOLE_SECONDS}' answered 'err UnrecognizedCommand" in result.stderr
    assert "No game was played." in result.stderr and not (out / STANDINGS_FILE).exists()


# --- records and resume -------------------------------------------------------------


@pytest.mark.integration
def test_resume_refuses_a_different_tournament_and_reads_records_strictly(tmp_path):
    out = tmp_path / "t"
    cfg = config(["a=" + fake(), "b=" + fake("--first")], games=2, max_plies=20)
    records, screen = play(cfg, out)
    assert len(records) == 2 and REPORT_FILE in screen
    check_report(out, records)
    with pytest.raises(TournamentError, match="add --resume"):
        play(cfg, out)
    with pytest.raises(TournamentError, match="settings differ .*: games, openings"):
        play(config(["a=" + fake(), "b=" + fake("--first")], games=4, max_plies=20), out, resume=True)
    # Resuming a finished tournament plays nothing and shows the same standings.
    again, _ = play(cfg, out, resume=True)
    assert essence(again) == essence(records)
    # A cut-short last line (a kill mid-write) is dropped; any other bad line is named.
    path = out / GAMES_FILE
    path.write_text(path.read_text().splitlines()[0] + "\n" + '{"id": "g00001", "whi')
    again, _ = play(cfg, out, resume=True)
    assert essence(again) == essence(records) and path.read_text().count("\n") == 2
    # --resume writes again every PGN that is missing, empty, cut short or of another game.
    pgns = [pgn_path(out, r) for r in records]
    good = [p.read_text() for p in pgns]
    pgns[0].unlink()
    pgns[1].write_text("")
    again, _ = play(cfg, out, resume=True)
    assert [p.read_text() for p in pgns] == good
    pgns[0].write_text(good[0][: len(good[0]) // 2])
    pgns[1].write_text(good[0])
    play(cfg, out, resume=True)
    assert [p.read_text() for p in pgns] == good
    # ... with the Date the game was played on, kept in its line, not the day of the resume.
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["date"] for x in lines] == [read_game(p).tags["Date"] for p in pgns]
    lines[0]["date"] = "2001.02.03"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    pgns[0].unlink()
    play(cfg, out, resume=True)
    assert read_game(pgns[0]).tags["Date"] == "2001.02.03"
    path.write_text("not json\n" + path.read_text())
    with pytest.raises(TournamentError, match=rf"{GAMES_FILE}:1: not a game of this tournament"):
        play(cfg, out, resume=True)


@pytest.mark.integration
def test_a_second_run_on_the_same_out_stops_before_playing(tmp_path):
    """Two runs on one --out would both append the same scheduled games: the second is refused at once."""
    from hiveai.durable import DirectoryLock

    out = tmp_path / "t"
    cfg = config(["a=" + fake(), "b=" + fake("--first")], games=2, max_plies=20)
    with DirectoryLock(out):  # what a running tournament holds
        for resume in (False, True):
            with pytest.raises(TournamentError, match="in use by another process .*another tournament is writing"):
                play(cfg, out, resume=resume)
    assert not (out / GAMES_FILE).exists()
    records, _ = play(cfg, out)  # once the other run is gone
    assert len(records) == 2


def check_report(out: Path, records: list[dict]) -> None:
    """report.html: valid, the standings' figures, a link to every game's replay page and PGN; the replay
    pages: valid, one position per ply, the last one the game's final position."""
    from html_check import check_html, parse_svg, svg_fragments

    report = (out / REPORT_FILE).read_text(encoding="utf-8")
    check_html(report)
    for row in (out / STANDINGS_FILE).read_text().splitlines()[2:4]:  # the standings rows, cell by cell
        cells = row.split()
        assert f"<td>{cells[1]}</td>" in report and f'<td class="num">{cells[6]}</td>' in report
    assert "Encounters" in report and " vs " in report
    links = re.findall(r'<a href="([^"]+)">', report)
    assert sorted(links) == sorted([f"replays/{r['id']}.html" for r in records]
                                   + [pgn_path(Path(), r).as_posix() for r in records])
    for r in records:
        assert replay_path(out, r) == out / f"replays/{r['id']}.html" and pgn_path(out, r).is_file()
        page = replay_path(out, r).read_text(encoding="utf-8")
        check_html(page)
        assert page.count('<div class="pos"') == r["plies"] + 1
        assert len(re.findall(r"<li data-ply=", page)) == r["plies"]
        final = [f for f in svg_fragments(page) if "hive-board" in f][-1]
        drawn = {g.get("data-piece") for g in parse_svg(final).iter("{http://www.w3.org/2000/svg}g")
                 if g.get("class") == "piece" and not g.get("data-hand")}
        b = Board.from_game_string(r["game_string"]).position_array
        assert drawn == {PIECE_NAMES[int(b[TOP + cell])] for cell in hive_coordinates(b[POS : POS + N_PIECES])}  # the final position
        assert f'href="../{REPORT_FILE}"' in page and f'href="../{pgn_path(Path(), r).as_posix()}"' in page


def test_bad_records_are_named_and_fairness_warnings(tmp_path):
    cfg = config(["a=" + fake(), "b=" + fake()], games=2)
    schedule = {g.id: g for g in cfg.schedule()}
    g0, g1 = list(schedule.values())
    line = {"id": g0.id, "white": g0.white, "black": g0.black, "opening": g0.opening}
    path = tmp_path / GAMES_FILE
    for lines, error in [([line, {**line, "white": "b"}], r":2: game g00000 does not match the schedule"),
                         ([line, line], r":2: game g00000 is recorded twice"),
                         ([{**line, "id": "g99999"}], r":1: not a game of this tournament's schedule")]:
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        with pytest.raises(TournamentError, match=error):
            load_records(path, schedule)
    path.write_text(json.dumps(line) + "\n\n" + json.dumps({**line, "id": g1.id, "white": g1.white,
                                                              "black": g1.black}) + "\n")
    assert [r["id"] for r in load_records(path, schedule)] == [g0.id, g1.id]  # blank lines are skipped
    out = tmp_path / "t"
    out.mkdir()
    (out / GAMES_FILE).write_text(json.dumps(line) + "\n")
    with pytest.raises(TournamentError, match="exists without tournament.json"):
        play(cfg, out)

    timed = config(["a=" + fake(), "b=" + fake()], go=["a:time 00:00:01"])
    cores = os.cpu_count() or 1
    assert fairness_warnings(cfg, cores, None) == [] and fairness_warnings(cfg, 2, "ray") == []
    assert "fine for depth limits" in fairness_warnings(cfg, cores + 1, None)[0]
    assert "time-based results (a) are only fair with one game per core" in fairness_warnings(timed, cores + 1, None)[0]
    assert "each game is a Ray task needing one CPU" in fairness_warnings(timed, 4, "ray")[0]


def _cli(out: Path, *extra: str) -> subprocess.Popen:
    args = [sys.executable, "-m", "hiveai", "tournament", "--engine", f"d1={HIVEAI}", "--option", f"d1:{NO_BOOK}",
            "--engine", "f=" + fake(), "--depth", "1", "--game-type", "Base+MLP", "--games", "12",
            "--concurrency", "2", "--max-plies", str(MAX_PLIES), "--seed", "5", "--out", str(out), *extra]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=REPO)


@pytest.mark.integration
@pytest.mark.slow  # 24 games of hiveai in subprocesses; resume itself is tested above
def test_killed_and_resumed_equals_uninterrupted(tmp_path):
    """SIGKILL (runner and engines) midway, --resume: every game once, same standings."""
    killed = tmp_path / "killed"
    proc = _cli(killed)
    games = killed / GAMES_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if games.exists() and games.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_at_kill = games.read_text().count("\n")
    assert 3 <= done_at_kill < 12, "the kill must land midway"
    resumed = _cli(killed, "--resume")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"Resuming: {done_at_kill} of 12 games already played" in out

    whole = tmp_path / "whole"
    full = _cli(whole)
    full_out, err = full.communicate(timeout=300)
    assert full.returncode == 0, err

    ids = [json.loads(x)["id"] for x in games.read_text().splitlines()]
    assert sorted(ids) == [f"g{i:05d}" for i in range(12)]  # every scheduled game exactly once
    killed_records = [json.loads(x) for x in games.read_text().splitlines()]
    whole_records = [json.loads(x) for x in (whole / GAMES_FILE).read_text().splitlines()]
    assert essence(killed_records) == essence(whole_records)
    assert (killed / STANDINGS_FILE).read_text() == (whole / STANDINGS_FILE).read_text()
    assert (killed / REPORT_FILE).read_text() == (whole / REPORT_FILE).read_text()
    for r in whole_records:  # the replay pages too, the ones written on resume included
        assert replay_path(killed, r).read_text() == replay_path(whole, r).read_text()
    assert "Standings after 12 of 12 games" in full_out
    check_saved_games(killed, killed_records)


# --- Ray ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance for the Ray tests (starting one takes seconds)."""
    ray = pytest.importorskip("ray", reason="Ray is the optional 'cluster' extra")
    ray.init(address="local", include_dashboard=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_cluster_plays_the_same_games_as_local_play(tmp_path, ray_instance):
    cfg = config([f"d1={HIVEAI}", "f=" + fake()], games=4, seed=3)
    local, _ = play(cfg, tmp_path / "local", concurrency=2)
    remote, screen = play(cfg, tmp_path / "ray", cluster="ray")
    assert essence(remote) == essence(local)
    assert (tmp_path / "ray" / STANDINGS_FILE).read_text() == (tmp_path / "local" / STANDINGS_FILE).read_text()
    check_saved_games(tmp_path / "ray", remote)


@pytest.mark.slow
def test_an_engine_that_hangs_at_start_up_on_a_ray_worker_is_reaped(tmp_path, ray_instance):
    """The tournament's path for a game on Ray (a task running play_game on a worker): the engine
    that never starts loses, and the worker leaves no process behind."""
    pids = tmp_path / "pids"
    rules = referee.Rules(max_plies=20, fresh_engines=True, banner_timeout=2.0)  # fresh: as a Ray run is
    task = game_task(fake_spec("ok", "--pid-file", str(pids)),
                     fake_spec("mute", "--hang-at-start", "--pid-file", str(pids)), rules)
    with make_backend(cluster="ray") as backend:
        [record] = backend.imap_unordered(referee.play_game, [task])
    assert (record["forfeit"], record["reason"]) == ("mute", Termination.HANG)
    assert len(pids.read_text().split()) == 2 and wait_gone(pids) == []


# --- SPRT ---------------------------------------------------------------------------


@pytest.mark.integration
def test_sprt_of_an_engine_against_itself_accepts_h0(tmp_path):
    # Deterministic and identical: each pair is one result for each colour (a win and a loss, or two
    # draws), so every pair is in the pentanomial's middle bucket and the score is exactly 50 %. The
    # SPRT stops at the first pair count whose LLR falls to Wald's lower bound ln(beta / (1 - alpha))
    # = -2.94: each such pair adds ln(2 - 2 s1) = -0.33 against H1 (+100 Elo: s1 = 0.64; derived in
    # test_stats.py), so it is the ninth, at LLR -2.95.
    sprt = Sprt(0, 100, 0.05, 0.05)
    lower, upper = sprt.bounds
    pairs = next(n for n in itertools.count(1) if sprt.llr([0, 0, n, 0, 0]) <= lower)
    assert (pairs, round(sprt.llr([0, 0, pairs, 0, 0]), 2), round(lower, 2)) == (9, -2.95, -2.94)
    cfg = config(["a=" + fake(), "b=" + fake()], games=40, sprt=[0, 100, 0.05, 0.05], max_plies=40)
    records, screen = play(cfg, tmp_path / "t", concurrency=2)
    assert "pairs: H0 accepted" in screen
    assert f"LLR {sprt.llr([0, 0, pairs, 0, 0]):.2f} ({lower:.2f}, {upper:.2f}) after {pairs} pairs" in screen
    # Stopped at the decision, and the games already running are kept. Games start in order, two at a time
    # (concurrency 2), and finish in any order: when the ninth pair completes, at most one game still runs,
    # and beside the nine pairs at most two have one finished game (that game's partner, and the last pair
    # started). So at most 2 * 9 + 3 games.
    assert 2 * pairs <= len(records) <= 2 * pairs + 3


# Up to 60 games of hiveai. The runner's stop at an SPRT decision is the fast
# test_sprt_of_an_engine_against_itself_accepts_h0; H1's maths, test_stats.py.
@pytest.mark.integration
@pytest.mark.slow
def test_sprt_against_a_much_weaker_engine_accepts_h1(tmp_path):
    cfg = config([f"hiveai={HIVEAI}", "weak=" + fake("--first")], games=60, sprt=[0, 100, 0.05, 0.05],
                 max_plies=150)
    records, screen = play(cfg, tmp_path / "t", concurrency=2)
    assert "pairs: H1 accepted" in screen
    assert len(records) < 60


@pytest.mark.integration
@pytest.mark.slow  # up to 200 games of real search; the SPRT's maths is in test_stats.py
def test_sprt_depth_3_against_depth_1_accepts_h1(tmp_path):
    cfg = config([f"d3={HIVEAI}", f"d1={HIVEAI}"], go=["d3:depth 3", "d1:depth 1"], depth=None, games=200,
                 sprt=[0, 100, 0.05, 0.05], max_plies=120)
    records, screen = play(cfg, tmp_path / "t", concurrency=2)
    assert "pairs: H1 accepted" in screen, screen[-3000:]
    assert len(records) < 200


@pytest.mark.integration
def test_hiveai_engines_get_one_thread_unless_the_user_says_otherwise():
    spec = parse_engine(f"h={HIVEAI}")
    banner = ["id hiveai v1.0", "Mosquito;Ladybug;Pillbug"]
    assert referee.single_thread_options(spec, banner) == [("NumThreads", "1")]
    assert referee.single_thread_options(spec, ["id Nokamute v1", "Mosquito"]) == []
    mine = referee.EngineSpec(spec.name, spec.command, (("numthreads", "2"),), spec.go)
    assert referee.single_thread_options(mine, banner) == []
    # The real engine: the check before the games says so, and the option is accepted.
    rejection, notes = check_engine(referee.EngineSpec(spec.name, spec.command, (), "depth 1"), "Base")
    assert rejection is None and any(n.startswith("note: h is hiveai: set to NumThreads 1") for n in notes), notes
    rejection, notes = check_engine(referee.EngineSpec(spec.name, spec.command, (("NumThreads", "2"),), "depth 1"),
                                    "Base")
    assert rejection is None and not any("NumThreads" in n for n in notes), notes
