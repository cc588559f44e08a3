"""The match loop: play the schedule on a backend, keep every finished game, show the score.

Files in the output directory (``--out``; their names: :mod:`hiveai.tournament.layout`):

* ``tournament.json`` -- the configuration; ``--resume`` checks it matches.
* ``games.jsonl`` -- one JSON line per finished game (engines, colours,
  opening, result, reason, plies, GameString, per-move times, flags, date),
  appended, flushed and fsynced as each game ends. It is the record of
  truth: a game is finished once its line is there.
* ``pgn/<id>-<white>-<black>.pgn`` -- each game in Mzinga's PGN dialect
  (MzingaViewer opens it), written just before the line above.
* ``logs/<id>.log`` -- the engines' chatter: every command, reply and stderr line.
* ``standings.txt`` -- the standings so far, replaced after every game.
* ``report.html`` -- the same as a web page, each game linked to its replay
  page ``replays/<id>.html`` (:mod:`hiveai.tournament.report`).

Every file but ``games.jsonl`` is written whole and atomically
(:func:`hiveai.durable.replace_atomically`): a kill leaves the old file or the
new one, never half of one.

One run at a time writes an output directory: a second run started on the
same ``--out`` stops at once with an error (:class:`hiveai.durable.DirectoryLock`).
Killing the run at any moment loses no finished game. A resumed run skips
the ids already in ``games.jsonl`` (a last line cut short by the kill is
dropped) and plays the rest of the same schedule, so every scheduled game
is counted exactly once; with deterministic engines the standings equal an
uninterrupted run's.
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
from pathlib import Path
from typing import Iterator, TextIO

from hiveai.durable import (
    DirectoryLock,
    LockedError,
    RecordLineError,
    append_json_line,
    read_json_lines,
    replace_atomically,
)
from hiveai.records import GameRecord, GameRecordError, read_game
from hiveai.rules.notation import read_game_string
from hiveai.text import plural
from hiveai.backend import make_backend
from hiveai.tournament.preflight import check_engines, setup_failure
from hiveai.tournament.referee import GameTask, Rules, close_all, move_budget, play_game
from hiveai.tournament.layout import (
    CONFIG_FILE,
    GAME_DIRS,
    GAMES_FILE,
    LOG_DIR,
    PGN_DIR,
    REPORT_FILE,
    STANDINGS_FILE,
    log_path,
    pgn_path,
    replay_path,
)
from hiveai.tournament.timeouts import BANNER_TIMEOUT
from hiveai.tournament.report import replay_html, report_html
from hiveai.tournament.schedule import ScheduledGame, TournamentConfig
from hiveai.tournament.standings import progress_line, sprt_state, standings_text
from hiveai.tournament.stats import Sprt


class TournamentError(Exception):
    """A problem the user must fix (bad output directory, engine that cannot start, ...)."""


# --- records on disk ---------------------------------------------------------------


def load_records(path: Path, schedule: dict[str, ScheduledGame]) -> list[dict]:
    """Finished games in ``games.jsonl``, checked against the schedule.

    A last line without its newline is what a kill mid-write leaves: it is
    dropped and cut from the file, so the next append starts a clean line.
    Any other bad line is an error naming it.
    """
    records: list[dict] = []
    seen: set[str] = set()
    try:
        lines = read_json_lines(path)
    except RecordLineError as e:
        raise TournamentError(f"{path}:{e.line}: not a game of this tournament's schedule ({e.reason})") from None
    for no, record in lines:
        try:
            game = schedule[record["id"]]
        except (KeyError, TypeError) as e:
            raise TournamentError(f"{path}:{no}: not a game of this tournament's schedule ({e})") from None
        if (record.get("white"), record.get("black"), record.get("opening")) != (game.white, game.black, game.opening):
            raise TournamentError(f"{path}:{no}: game {game.id} does not match the schedule in {CONFIG_FILE}")
        if record["id"] in seen:
            raise TournamentError(f"{path}:{no}: game {game.id} is recorded twice")
        seen.add(record["id"])
        records.append(record)
    return records


def pgn_date(day: datetime.date) -> str:
    """A PGN Date tag's value: ``YYYY.MM.DD``."""
    return day.strftime("%Y.%m.%d")


def game_record(record: dict, config: TournamentConfig) -> GameRecord:
    """The PGN-able record of a finished game.

    Its Date is the one saved in the game's line (``date``, set when the game
    ended), so a PGN written again on ``--resume`` keeps the day the game was
    played; lines from runs before that field existed get today's.
    """
    fields = read_game_string(record["game_string"])
    tags = {
        "Date": record.get("date") or pgn_date(datetime.date.today()),
        "Event": "hiveai tournament",
        "Round": str(record["pair"] + 1),
        "White": record["white"],
        "Black": record["black"],
        "GameId": record["id"],
        "Termination": f"{record['reason']}: {record['detail']}",
        "OpeningPlies": str(record["opening_plies"]),
    }
    return GameRecord(fields.game_type, fields.moves, record["result"], tags)


def _pgn_is_sound(path: Path, expected: GameRecord) -> bool:
    """Whether ``path`` exists, is not empty and reads back as the game ``expected``."""
    try:
        saved = read_game(path)
    except GameRecordError:  # missing, empty, cut short, not text, not a game
        return False
    return (saved.game_type, saved.moves, saved.result) == (expected.game_type, expected.moves, expected.result)


# --- the run ---------------------------------------------------------------------


class _Screen:
    """stdout for the user: one progress line that updates in place on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.width = 0

    def say(self, text: str = "") -> None:
        self._end_progress()
        self.stream.write(text + "\n")
        self.stream.flush()

    def progress(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _end_progress(self) -> None:
        if self.tty and self.width:
            self.stream.write("\n")
            self.width = 0


def _prepare(config: TournamentConfig, out: Path, resume: bool) -> bool:
    """Check the output directory and its saved configuration; True when this is a new
    tournament, whose configuration :func:`_save` writes once the engines are checked."""
    saved_path = out / CONFIG_FILE
    if saved_path.exists():
        if not resume:
            raise TournamentError(f"{out} already holds a tournament: add --resume to continue it, "
                                  "or choose another --out")
        try:
            saved = TournamentConfig.from_json(json.loads(saved_path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as e:
            raise TournamentError(f"{saved_path}: unreadable ({e})") from None
        diffs = saved.differences(config)
        if diffs:
            raise TournamentError(f"--resume: the settings differ from those saved in {saved_path}: "
                                  f"{', '.join(diffs)}. Resume with the same arguments, or choose another --out")
        return False
    if (out / GAMES_FILE).exists() and (out / GAMES_FILE).stat().st_size:
        raise TournamentError(f"{out / GAMES_FILE} exists without {CONFIG_FILE}; choose another --out")
    return True


def _save(config: TournamentConfig, out: Path, new: bool) -> None:
    """Create the output directory's folders, and save a new tournament's configuration."""
    out.mkdir(parents=True, exist_ok=True)
    for folder in GAME_DIRS:
        (out / folder).mkdir(exist_ok=True)
    if new:
        replace_atomically(out / CONFIG_FILE, json.dumps(config.to_json(), indent=1) + "\n")


def fairness_warnings(config: TournamentConfig, slots: int, cluster: str | None) -> list[str]:
    """What the user should know about fairness before the games start."""
    timed = [e.name for e in config.engines if move_budget(e.go) is not None]
    cores = os.cpu_count() or 1
    if cluster is not None:
        if timed:
            return ["note: time budgets are per move; each game is a Ray task needing one CPU, so results are "
                    "fair as long as no node's Ray CPU count exceeds its cores"]
        return []
    if slots <= cores:
        return []
    if timed:
        return [f"warning: {slots} games at once on {plural(cores, 'core')}: engines' time budgets are per move, so "
                f"time-based results ({', '.join(timed)}) are only fair with one game per core"]
    return [f"note: {slots} games at once on {plural(cores, 'core')}; fine for depth limits, but timed engines would "
            "only be treated fairly with one game per core"]


def run(config: TournamentConfig, out: str | Path, *, resume: bool = False, concurrency: int = 1,
        cluster: str | None = None, stream: TextIO | None = None, banner_timeout: float = BANNER_TIMEOUT,
        stderr: TextIO | None = None) -> list[dict]:
    """Play (the rest of) the tournament; returns every finished game's record.

    ``stream`` (default stdout) shows the progress and the standings; ``stderr``
    (default ``sys.stderr``) what the check before the games waits for when an
    engine is slow to begin. ``banner_timeout`` is how long an engine may take to print
    its start-up banner (docs/tournament-timeouts.md): a setting of this machine,
    like ``concurrency``, not of the tournament, so it is not saved with it.

    Raises TournamentError for problems the user must fix, among them an engine that
    rejects its set-up (:mod:`.preflight`): then no game is played, or the game lost
    that way is not recorded, and no standings are written. KeyboardInterrupt stops
    the run after saving what is finished.
    """
    out = Path(out)
    lock = DirectoryLock(out)
    try:
        lock.acquire()
    except LockedError as e:
        raise TournamentError(f"{e}: another tournament is writing its records there. Wait for it to end, "
                              "or choose another --out") from None
    try:
        return _run(config, out, resume, concurrency, cluster, stream, banner_timeout, stderr)
    finally:
        lock.release()


def _run(config: TournamentConfig, out: Path, resume: bool, concurrency: int, cluster: str | None,
         stream: TextIO | None, banner_timeout: float, stderr: TextIO | None) -> list[dict]:
    """:func:`run`, with the output directory locked."""
    screen = _Screen(stream or sys.stdout)

    def wait_note(text: str) -> None:
        print(text, file=stderr or sys.stderr, flush=True)

    new = _prepare(config, out, resume)
    schedule = config.schedule()
    by_id = {g.id: g for g in schedule}
    games_path = out / GAMES_FILE
    records = load_records(games_path, by_id)
    for r in records:  # a kill between a PGN and its line, or a damaged PGN: write it again
        pgn = game_record(r, config)
        if not _pgn_is_sound(pgn_path(out, r), pgn):
            replace_atomically(pgn_path(out, r), pgn.to_pgn())
        if not replay_path(out, r).exists():
            replace_atomically(replay_path(out, r), replay_html(r, config.game_type))
    done = {r["id"] for r in records}
    todo = [g for g in schedule if g.id not in done]
    sprt = Sprt(*config.sprt) if config.sprt else None
    total = len(schedule)
    names = config.names

    mode = "gauntlet" if config.gauntlet else "round-robin"
    screen.say(f"hiveai tournament: {len(names)} engines, {mode}, {len(schedule)} games of {config.game_type} "
               f"({config.games} per encounter), openings: {config.opening_source}")
    for e in config.engines:
        opts = "".join(f" {k}={v}" for k, v in e.options)
        screen.say(f"  {e.name}: {' '.join(e.command)}  [bestmove {e.go}]{opts}")
    screen.say(f"Records in {out}/ ({GAMES_FILE}, {PGN_DIR}/, {LOG_DIR}/, {STANDINGS_FILE}, {REPORT_FILE})")
    if records:
        screen.say(f"Resuming: {len(records)} of {total} games already played")

    def finished() -> bool:
        return sprt is not None and sprt_state(sprt, records, names[0]).decision is not None

    if todo and not finished():
        backend = make_backend(concurrency, cluster)
        try:
            for w in fairness_warnings(config, backend.slots, cluster):
                screen.say(w)
            rules = Rules(config.max_plies, config.repetition, config.time_tolerance, config.time_tolerance_ms,
                          config.hang_timeout, fresh_engines=config.restart or cluster is not None,
                          banner_timeout=banner_timeout)
            if cluster is None:
                failures = check_engines(config, screen.say, rules, wait_note)
                if failures:
                    raise TournamentError("\n".join(failures) + ("\nNo game was played in this run." if records
                                                                  else "\nNo game was played."))
            _save(config, out, new)

            def tasks() -> Iterator[GameTask]:
                for g in todo:
                    if finished():  # SPRT decided: start nothing new, collect what runs
                        return
                    yield GameTask(g, config.engine(g.white), config.engine(g.black), rules)

            start = time.monotonic()
            screen.progress(progress_line(records, names, total, sprt))
            for record in backend.imap_unordered(play_game, tasks()):
                record["date"] = pgn_date(datetime.date.today())  # the day it was played, kept on resume
                replace_atomically(log_path(out, record), record.pop("log", ""))
                rejection = setup_failure(record, config)
                if rejection is not None:  # a forfeit made by the set-up is no result: stop, record nothing
                    raise TournamentError(f"{rejection.message()}\nStopped at game {record['id']} (its log: "
                                          f"{log_path(out, record)}); it is not recorded.")
                replace_atomically(pgn_path(out, record), game_record(record, config).to_pgn())
                replace_atomically(replay_path(out, record), replay_html(record, config.game_type))
                append_json_line(games_path, record)
                records.append(record)
                replace_atomically(out / STANDINGS_FILE, standings_text(records, names, total, sprt))
                replace_atomically(out / REPORT_FILE, report_html(records, config, total, sprt))
                screen.progress(progress_line(records, names, total, sprt))
            screen.say(f"{plural(len(records), 'game')} recorded; this run took {time.monotonic() - start:.1f} s")
        except KeyboardInterrupt:
            screen.say(f"Interrupted: {len(records)} of {total} games are recorded; "
                       "run the same command with --resume to finish")
            raise
        finally:
            close_all()
            backend.close()
            close_all()
    text = standings_text(records, names, total, sprt)
    replace_atomically(out / STANDINGS_FILE, text)
    replace_atomically(out / REPORT_FILE, report_html(records, config, total, sprt))
    screen.say()
    screen.say(text.rstrip("\n"))
    return records
