"""What a tournament plays: engines, pairings, openings and the game list.

Everything here is a pure function of the configuration, so the schedule is
the same on every run with the same arguments and seed. That is what makes
``--resume`` exact: each scheduled game has a stable id (``g00042``), the
records on disk say which ids are done, and the rest are played.

Order: game pairs come opening by opening; within one opening every pairing
plays its pair (first engine White, then colours swapped) before the next
opening starts, so a match stopped early (SPRT) has balanced pairings.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from hiveai.rules.board import Board
from hiveai.records import read_games
from hiveai.text import plural
from hiveai.search.timeman import format_timespan
from hiveai.tournament.timeouts import DEFAULT_RANDOM_PLIES

# Attempts at drawing a random opening not drawn before, before a duplicate
# is accepted (tiny game types or long openings can run out of new ones).
UNIQUE_OPENING_TRIES = 50

_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")


def hiveai_command() -> tuple[str, ...]:
    """Command line of this installed engine (the ``hiveai`` shorthand)."""
    return (sys.executable, "-m", "hiveai")


@dataclass(frozen=True)
class EngineSpec:
    """One participant: a name, its command line, UHP options and its ``bestmove`` arguments."""

    name: str
    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    go: str = ""  # e.g. "depth 2" or "time 00:00:01"

    def to_json(self) -> dict:
        return {"name": self.name, "command": list(self.command),
                "options": [list(o) for o in self.options], "go": self.go}


def parse_engine(text: str) -> EngineSpec:
    """``NAME=COMMAND`` (COMMAND split like a shell would), or just ``hiveai``.

    The command ``hiveai`` (alone) means this installed engine, run with the
    current Python, so ``--engine d1=hiveai --engine d2=hiveai`` works in a venv.
    """
    name, eq, command = text.partition("=")
    name = name.strip()
    if not eq:
        if name != "hiveai":
            raise ValueError(f'--engine "{text}": expected NAME=COMMAND (or just "hiveai")')
        command = "hiveai"
    if not _NAME_RE.match(name):
        raise ValueError(f'engine name "{name}": use letters, digits and _ . + - only')
    argv = tuple(shlex.split(command))
    if not argv:
        raise ValueError(f'--engine "{text}": empty command')
    if argv == ("hiveai",):
        argv = hiveai_command()
    return EngineSpec(name, argv)


def _split_named(text: str, flag: str) -> tuple[str, str]:
    name, colon, rest = text.partition(":")
    if not colon or not name.strip() or not rest.strip():
        raise ValueError(f'{flag} "{text}": expected NAME:VALUE')
    return name.strip(), rest.strip()


def configure_engines(engines: list[str], options: list[str], go: list[str],
                      time: float | None, depth: int | None) -> list[EngineSpec]:
    """Engine specs from the command-line flags, with options and limits attached.

    ``--time``/``--depth`` set every engine's limit; ``--go NAME:ARGS`` overrides
    one engine's. Raises ValueError naming the bad flag.
    """
    specs = [parse_engine(e) for e in engines]
    names = [s.name for s in specs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"engine names must be unique: {', '.join(sorted(dup))} given twice")
    if time is not None and depth is not None:
        raise ValueError("give --time or --depth, not both")
    default_go = f"time {format_timespan(time)}" if time is not None else (
        f"depth {depth}" if depth is not None else "")
    opts: dict[str, list[tuple[str, str]]] = {n: [] for n in names}
    for text in options:
        name, rest = _split_named(text, "--option")
        opt, eq, value = rest.partition("=")
        if name not in opts or not eq or not opt.strip():
            raise ValueError(f'--option "{text}": expected NAME:OPTION=VALUE with NAME one of {", ".join(names)}')
        opts[name].append((opt.strip(), value.strip()))
    gos = {n: default_go for n in names}
    for text in go:
        name, args = _split_named(text, "--go")
        if name not in gos:
            raise ValueError(f'--go "{text}": no engine named "{name}"')
        gos[name] = args
    missing = [n for n in names if not gos[n]]
    if missing:
        raise ValueError(f"no search limit for {', '.join(missing)}: give --time, --depth or --go NAME:ARGS")
    return [EngineSpec(s.name, s.command, tuple(opts[s.name]), gos[s.name]) for s in specs]


# --- pairings and openings -----------------------------------------------------


def pairings(names: list[str], gauntlet: bool = False) -> list[tuple[str, str]]:
    """Round-robin (every pair once) or gauntlet (the first engine against each other)."""
    if len(names) < 2:
        raise ValueError("a tournament needs at least two engines")
    if gauntlet:
        return [(names[0], other) for other in names[1:]]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def random_openings(game_type: str, plies: int, count: int, seed: int) -> list[str]:
    """``count`` openings of ``plies`` uniformly random legal plies, as GameStrings.

    Opening i is drawn from its own RNG seeded by (seed, i, attempt), so the
    list does not depend on anything but these arguments; an opening that
    ends the game or repeats an earlier one is redrawn (up to
    UNIQUE_OPENING_TRIES times).
    """
    out: list[str] = []
    seen: set[str] = set()
    for i in range(count):
        for attempt in range(UNIQUE_OPENING_TRIES):
            rng = random.Random(f"hiveai-opening:{seed}:{i}:{attempt}")
            board = Board(game_type)
            while board.ply < plies and not board.is_game_over():
                board.push(rng.choice(board.legal_moves))
            gs = board.game_string()
            if not board.is_game_over() and gs not in seen:
                break
        seen.add(gs)
        out.append(gs)
    return out


def file_openings(path: str | Path, game_type: str, count: int) -> list[str]:
    """``count`` openings from a GameString (or PGN) file, cycling through it in order."""
    records = read_games(path)
    if not records:
        raise ValueError(f"{path}: no openings in the file")
    canonical = Board(game_type).game_type_string
    for i, r in enumerate(records, 1):
        if r.game_type != canonical:
            raise ValueError(f"{path}: opening {i} is a {r.game_type} game, the tournament plays {canonical}")
    games = [r.to_board().game_string() for r in records]
    return [games[i % len(games)] for i in range(count)]


# --- the schedule ---------------------------------------------------------------


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule; ``id`` is stable across runs of the same configuration."""

    id: str
    index: int
    pair: int  # index of the opening: the two games of a pair share it
    pairing: tuple[str, str]  # (first, second) engine of the encounter
    white: str
    black: str
    opening: str  # GameString the game starts from


def make_schedule(names: list[str], openings: list[str], gauntlet: bool = False) -> list[ScheduledGame]:
    """Every game: for each opening, each pairing plays it twice, colours swapped."""
    games: list[ScheduledGame] = []
    for pair, opening in enumerate(openings):
        for a, b in pairings(names, gauntlet):
            for white, black in ((a, b), (b, a)):
                i = len(games)
                games.append(ScheduledGame(f"g{i:05d}", i, pair, (a, b), white, black, opening))
    return games


@dataclass
class TournamentConfig:
    """Everything that decides which games are played and how they are judged.

    Saved as ``tournament.json`` in the output directory; ``--resume`` refuses
    to continue a directory whose configuration differs.
    """

    engines: list[EngineSpec]
    game_type: str
    games: int  # per pairing, rounded up to whole pairs
    openings: list[str]  # one per game pair
    gauntlet: bool
    # Referee settings (see hiveai.tournament.referee.Rules for their defaults).
    max_plies: int
    repetition: bool
    time_tolerance: float
    time_tolerance_ms: float
    hang_timeout: float
    restart: bool
    sprt: list[float] | None  # [elo0, elo1, alpha, beta]
    opening_source: str  # how the openings were made, for people

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.engines]

    def engine(self, name: str) -> EngineSpec:
        return next(e for e in self.engines if e.name == name)

    def schedule(self) -> list[ScheduledGame]:
        return make_schedule(self.names, self.openings, self.gauntlet)

    def to_json(self) -> dict:
        d = asdict(self)
        d["engines"] = [e.to_json() for e in self.engines]
        return d

    @classmethod
    def from_json(cls, d: dict) -> TournamentConfig:
        d = dict(d)
        d["engines"] = [EngineSpec(e["name"], tuple(e["command"]), tuple(tuple(o) for o in e["options"]), e["go"])
                        for e in d["engines"]]
        return cls(**d)

    def differences(self, other: TournamentConfig) -> list[str]:
        """Names of the settings that differ (empty when the schedules and rules agree).

        ``opening_source`` is only a description: the openings themselves are compared.
        """
        a, b = json.loads(json.dumps(self.to_json())), json.loads(json.dumps(other.to_json()))
        return [k for k in a if a[k] != b.get(k) and k != "opening_source"]


def build_config(*, engines: list[str], options: list[str], go: list[str], time: float | None,
                 depth: int | None, game_type: str, games: int, openings: str | None,
                 random_plies: int | None, seed: int, gauntlet: bool, sprt: list[float] | None,
                 max_plies: int, repetition: bool, time_tolerance: float, time_tolerance_ms: float,
                 hang_timeout: float, restart: bool) -> TournamentConfig:
    """The configuration the command-line flags describe; ValueError (or HiveError) for bad ones.

    ``games`` per encounter is rounded up to whole game pairs. Without
    ``openings``, each pair starts after ``random_plies`` (default
    DEFAULT_RANDOM_PLIES) random legal plies drawn from ``seed``.
    """
    specs = configure_engines(engines, options, go, time, depth)
    game_type = Board(game_type).game_type_string  # GameTypeError for a bad one
    if games < 1:
        raise ValueError("--games must be at least 1")
    if openings is not None and random_plies is not None:
        raise ValueError("give --openings or --random-plies, not both")
    if sprt is not None and len(specs) != 2:
        raise ValueError(f"--sprt compares two engines, not {len(specs)}")
    pairs = (games + 1) // 2
    if openings is not None:
        opening_list = file_openings(openings, game_type, pairs)
        source = f"{openings} ({plural(pairs, 'game pair')})"
    else:
        plies = DEFAULT_RANDOM_PLIES if random_plies is None else random_plies
        if plies < 0:
            raise ValueError("--random-plies must not be negative")
        opening_list = random_openings(game_type, plies, pairs, seed)
        source = (f"{plural(plies, 'random ply', 'random plies')} for each of {plural(pairs, 'game pair')} "
                  f"(seed {seed})")
    return TournamentConfig(specs, game_type, 2 * pairs, opening_list, gauntlet, max_plies, repetition,
                            time_tolerance, time_tolerance_ms, hang_timeout, restart, sprt, source)
