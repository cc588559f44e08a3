"""Complete random games over the pipe, one per game type.

At every position: ``validmoves`` entries are canonical, distinct (piece,
destination) pairs, and agree with the independent oracle on the rules it
models (beetle steps, ladybug, mosquito on top, pillbug throws, covered and
stunned pieces); a few sampled entries are played and undone (the undo must
give back the GameString); then one move is played and the new GameString's
state and turn must match the oracle's own queen-surround check. Moves are
biased towards the queens so that games end; the seed is fixed.
"""

from __future__ import annotations

import random

import pytest
from game_types import STANDARD_GAME_TYPES as GAME_TYPES
from hive_oracle import CANONICAL_MOVE, Oracle, neighbours
from uhp_client import Engine

SEED = 20240615
GAMES_PER_TYPE = 3
MAX_PLIES = 400  # safety net; the bias ends games long before this
SAMPLES = 4  # extra validmoves entries played and undone per position
# Probability of picking a move that lands next to a queen: low early for
# varied positions (stacks, throws), rising with the ply count so games end.
def towards_queens(ply: int) -> float:
    return min(0.95, 0.25 + ply / 100)


def check_rules(o: Oracle, moves: list[str]) -> None:
    """validmoves against the oracle's partial rules (docs/protocol-notes.md, "Movement")."""
    dests: dict[str, set] = {}
    for mv in moves:
        assert CANONICAL_MOVE.match(mv), mv
        d = o.destination(mv)
        if d:
            dests.setdefault(d[0], set()).add(d[1])
    assert sum(len(v) for v in dests.values()) == len([m for m in moves if m != "pass"]), "duplicates"
    side = o.to_move()
    for p, cell in o.where.items():
        got = dests.get(p, set())
        throws = o.throws_of(p)
        if o.top(cell) != p:
            assert not got, f"covered {p} moves"
        elif p[0] != side:
            assert got == throws, f"enemy {p}: {got} vs throws {throws}"
        elif side + "Q" not in o.where or p == o.last_moved:
            assert not got, f"{p} must not move"
        elif p[1] == "B" or (p[1] == "M" and o.height(cell) > 1):
            assert o.beetle_moves(p) <= got <= o.beetle_moves(p) | throws, p
        elif p[1] == "L":
            assert o.ladybug_moves(p) <= got <= o.ladybug_moves(p) | throws, p


def choose(rng: random.Random, o: Oracle, moves: list[str]) -> str:
    queens = [o.where[q] for q in ("wQ", "bQ") if q in o.where]
    ring = {n for q in queens for n in neighbours(q)}
    near = [m for m in moves if m != "pass" and o.destination(m)[1] in ring]
    return rng.choice(near) if near and rng.random() < towards_queens(o.ply) else rng.choice(moves)


@pytest.mark.parametrize("game", range(GAMES_PER_TYPE))
@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_random_game(engine: Engine, game_type: str, game: int) -> None:
    rng = random.Random(f"{SEED}/{game_type}/{game}")
    gs = engine.cmd1(f"newgame {game_type}")
    o = Oracle(game_type)
    while gs.split(";")[1] in ("NotStarted", "InProgress"):
        assert o.ply < MAX_PLIES, "game did not end"
        moves = engine.cmd1("validmoves").split(";")
        check_rules(o, moves)
        chosen = choose(rng, o, moves)
        sample = rng.sample(moves, min(SAMPLES, len(moves)))
        # Pipelined: play and undo each sampled entry, then play the chosen one.
        engine.proc.stdin.write("".join(f"play {m}\nundo\n" for m in sample).encode()
                                + f"play {chosen}\n".encode())
        engine.proc.stdin.flush()
        for m in sample:
            played = engine.reply()
            assert len(played) == 1 and played[0].startswith(game_type + ";"), (gs, m, played)
            assert engine.reply() == [gs], f"undo after {m} did not restore {gs}"
        new = engine.reply()
        assert len(new) == 1, new
        fields = new[0].split(";")
        assert fields[3:-1] == gs.split(";")[3:]  # the history grew by one move
        o.apply(chosen)
        assert fields[1:3] == [o.state(), o.turn_string()], (new[0], o.state())
        gs = new[0]
    # Finished: moves are refused, undo reopens the game.
    assert engine.cmd1("validmoves").startswith("err ")
    assert engine.cmd1("bestmove depth 1").startswith("err ")
    assert engine.cmd1("undo").split(";")[1] == "InProgress"
