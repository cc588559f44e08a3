"""The check before a tournament: every engine takes its options and its ``bestmove`` limit.

An engine that answers ``err`` to its limit or to an ``--option`` would lose
every game by forfeit, and a score made of such forfeits says nothing about
strength. So the run stops, naming the engine, the command and the answer,
with a remedy:

* before the first game, by :func:`check_engines`: each engine is started
  once, which also warms a cold numba cache. The banner and the option
  replies have their deadlines of a game (the banner timeout, the hang
  timeout), so a mute engine costs seconds; only ``newgame`` and the first
  ``bestmove`` wait up to COMPILE_TIMEOUT, for a compile, saying what they
  wait for after SLOW_NOTICE seconds (docs/tournament-timeouts.md);
* at the first game an engine loses that way, by :func:`setup_failure`: the
  only check on a Ray cluster, whose engines are not started beforehand.

Known to reject a ``bestmove time`` with a fraction of a second: nokamute,
which answers ``err UnrecognizedCommand("time 00:00:00.3000000")`` and takes
whole seconds only.
"""

from __future__ import annotations

import ast
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable

from hiveai.tournament.timeouts import COMPILE_TIMEOUT, SLOW_NOTICE
from hiveai.rules.outcome import Termination
from hiveai.tournament.referee import (
    BANNER,
    EngineFailure,
    EngineProcess,
    GameLog,
    Rules,
    move_budget,
    single_thread_options,
)
from hiveai.tournament.schedule import EngineSpec, TournamentConfig

# Engines known to answer err to a fractional "bestmove time" (named in the remedy).
WHOLE_SECONDS_ONLY = ("nokamute",)

_REJECTED = ("err", "invalidmove")


@dataclass(frozen=True)
class Rejection:
    """An engine answered ``err`` (or ``invalidmove``) to a command of its set-up."""

    engine: EngineSpec
    command: str  # e.g. "bestmove time 00:00:00.3000000" or "options set Style sharp"
    answer: str

    def message(self) -> str:
        spec = self.engine
        return (f"engine {spec.name} ({' '.join(spec.command)}) rejects its set-up: "
                f"'{self.command}' answered {self.answer!r}. {self.remedy()}")

    def remedy(self) -> str:
        name = self.engine.name
        if self.command.startswith("options set "):
            option = self.command.split()[2]
            return (f"Check the option's name and value against the engine's 'options' list, or leave out "
                    f"--option {name}:{option}=...")
        budget = move_budget(self.command.removeprefix("bestmove ").strip())
        if budget is not None and budget != int(budget):
            return (f"Some engines ({', '.join(WHOLE_SECONDS_ONLY)}) accept whole seconds only: give --time in "
                    f"whole seconds (--time {max(1, round(budget))}), or a depth: --go {name}:\"depth N\".")
        return f"Give it a limit it accepts: whole seconds (--time 1), or a depth: --go {name}:\"depth N\"."


def _rejected(lines: list[str]) -> str | None:
    return next((ln for ln in lines if ln.startswith(_REJECTED)), None)


def check_engine(spec: EngineSpec, game_type: str, rules: Rules = Rules(),
                 wait_note: Callable[[str], None] = lambda text: None) -> tuple[Rejection | None, list[str]]:
    """Start ``spec`` once: set its options, begin a ``game_type`` game, ask its first move.

    The banner is awaited for ``rules.banner_timeout``, option replies for
    ``rules.hang_timeout``; ``newgame`` and the ``bestmove`` for COMPILE_TIMEOUT
    (a cold numba cache compiles there), and if either takes more than
    SLOW_NOTICE seconds, ``wait_note`` is told what is awaited.

    Returns the first command it rejected (None if none) and lines to print: a
    note when a hiveai engine is set to one thread, warnings about a
    ``bestmove`` that failed otherwise (the games will judge it). Raises
    EngineFailure if the engine cannot start or begin a game.
    """
    log = GameLog()
    engine = EngineProcess(replace(spec, options=()), log)  # options set below, answers checked

    def patient(command: str) -> tuple[list[str], float]:
        def note() -> None:
            wait_note(f"{spec.name}: waiting up to {COMPILE_TIMEOUT:.0f} s for its answer to '{command}' "
                      "(a first game may compile the engine: a cold numba cache takes minutes)")

        return engine.command(command, COMPILE_TIMEOUT, slow=(SLOW_NOTICE, note))

    try:
        banner = engine.handshake(rules.banner_timeout, rules.hang_timeout)
        notes = []
        if single_thread_options(spec, banner):
            notes.append(f"note: {spec.name} is hiveai: set to NumThreads 1 (one core per engine keeps timed "
                         f"games fair; --option {spec.name}:NumThreads=N overrides)")
        for name, value in spec.options:
            command = f"options set {name} {value}"
            bad = _rejected(engine.command(command, rules.hang_timeout)[0])
            if bad is not None:
                return Rejection(spec, command, bad), notes
        lines, _ = patient(f"newgame {game_type}")
        if not lines or lines[0].startswith(_REJECTED):
            raise EngineFailure(Termination.ENGINE_ERROR, f"'newgame {game_type}' answered {lines[:1]}")
        command = f"bestmove {spec.go}"
        try:
            lines, _ = patient(command)
        except EngineFailure as e:
            return None, notes + [f"warning: {spec.name}: '{command}' before the first game: {e}"]
        bad = _rejected(lines)
        if bad is not None:
            return Rejection(spec, command, bad), notes
        if not lines:
            return None, notes + [f"warning: {spec.name}: '{command}' answered nothing before the first game"]
        return None, notes
    except EngineFailure as e:
        engine.kill()  # it failed to start or to begin a game: a hung engine would not answer "exit" anyway
        transcript = log.text() or "(nothing: the engine wrote no line)\n"
        e.detail = f"{e.detail}{_remedy(e)}\n--- engine transcript ---\n{transcript}"
        raise
    finally:
        engine.close()


def _remedy(failure: EngineFailure) -> str:
    """What to try when an engine failed the check (empty: nothing to suggest)."""
    if failure.reason == Termination.HANG and BANNER in failure.detail:
        return ("\nIs the command a UHP engine? One that is only slow to start needs more time: "
                "--banner-timeout SECONDS.")
    if failure.reason == Termination.HANG:
        return "\nAn engine that is only slow to answer needs more time: --hang-timeout SECONDS."
    return ""


def check_engines(config: TournamentConfig, say: Callable[[str], None], rules: Rules = Rules(),
                  wait_note: Callable[[str], None] = lambda text: None) -> list[str]:
    """Check every engine (in parallel, see :func:`check_engine`); returns one message
    per engine that cannot play (empty: all is well). Notes and warnings go to ``say``."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        futures = {e.name: pool.submit(check_engine, e, config.game_type, rules, wait_note) for e in config.engines}
        failures = []
        for e in config.engines:
            try:
                rejection, messages = futures[e.name].result()
            except EngineFailure as err:
                failures.append(f"engine {e.name} ({' '.join(e.command)}) cannot play: {err.reason}: {err.detail}")
                continue
            for message in messages:
                say(message)
            if rejection is not None:
                failures.append(rejection.message())
    return failures


def setup_failure(record: dict, config: TournamentConfig) -> Rejection | None:
    """The set-up error a finished game was lost to, if any: an engine rejected an
    option, or answered ``err`` to its first ``bestmove`` of the game."""
    if record.get("reason") != Termination.ENGINE_ERROR or record.get("forfeit") is None:
        return None
    spec = config.engine(record["forfeit"])
    detail = record.get("detail", "")
    option = next((f"options set {n} {v}" for n, v in spec.options if detail.startswith(f"option {n}={v} rejected: ")),
                  None)
    if option is not None:
        return Rejection(spec, option, detail.split(" rejected: ", 1)[1])
    first_move = record["plies"] - record["opening_plies"] < 2  # it had not moved yet in this game
    prefix = "bestmove answered "  # the referee's words, the answer quoted by repr()
    if first_move and detail.startswith(prefix):
        try:
            answer = ast.literal_eval(detail[len(prefix):])
        except (ValueError, SyntaxError):
            return None
        if isinstance(answer, str) and answer.startswith(_REJECTED):
            return Rejection(spec, f"bestmove {spec.go}", answer)
    return None
