r"""Critters (docs/critters.md): the kernels against an independent model, and every rule.

tests/critters_oracle.py is a plain-Python Critters written from the rules
alone; the engine must agree with it on perft from the empty board and on the
exact move sets of random positions. The rule tests then build positions for
each rule and exception. Most are arranged directly (pieces put on axial cells
(q, r), White's first piece's cell being (0, 0), through the position kernel,
not by legal play) so that each shows one rule with nothing else going on;
both the engine and the model are asked about the same arrangement.

Axial neighbours of (q, r): NW (q, r-1), NE (q+1, r-1), E (q+1, r),
SE (q, r+1), SW (q-1, r+1), W (q-1, r).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from critters_oracle import PASS as ORACLE_PASS
from critters_oracle import Critters, around
from game_types import from_a_neighbour

from hiveai.rules.board import Board
from hiveai.rules.bug import CRITTERS, CRITTERS_PIECE_NAMES, MAX_STACK, parse_game_type, parse_piece
from hiveai.rules.cell import Cell as HexCell
from hiveai.errors import IllegalMoveError
from hiveai.rules.hex_grid import GRID, N_CELLS, ORIGIN
from hiveai.rules.position import HASH, HEIGHT, STACK, recompute_hash
from hiveai.rules.setup_position import Setup

Cell = tuple[int, int]


def cell_index(cell: Cell) -> int:
    q, r = cell
    return (ORIGIN + q + GRID * r) % N_CELLS


def arranged(stacks: dict[Cell, list[str]], to_move: str = "w") -> tuple[Board, Critters]:
    """A Critters board and the model holding ``stacks`` (bottom to top), ``to_move`` to move.

    The board is a :meth:`hiveai.rules.setup_position.Setup.sketch`: the pieces as given, unchecked (a rule test
    may arrange what no game reaches), at the ply of one placement per piece, plus one if the
    other side is to move."""
    n = sum(len(names) for names in stacks.values())
    ply = n + ((n % 2 == 0) != (to_move == "w"))
    pieces = [(name, HexCell(*cell), None) for cell, names in stacks.items() for name in names]
    board = Setup(CRITTERS, pieces, turn=ply % 2, turn_number=ply // 2 + 1).sketch()
    oracle = Critters()
    oracle.stacks = {cell: list(pieces) for cell, pieces in stacks.items()}
    oracle.ply = board.ply
    return board, oracle


def engine_moves(board: Board, oracle: Critters) -> set:
    """The engine's legal moves as the model's (piece, cell) pairs, read from their MoveStrings."""
    return {oracle.parse(str(m)) for m in board.legal_moves}


def destinations(board: Board, oracle: Critters, piece: str) -> set[Cell]:
    """Where the engine lets ``piece`` go, checked against the model's full move set first."""
    engine = engine_moves(board, oracle)
    assert engine == oracle.moves()
    return {cell for name, cell in engine if name == piece}


def refusal(board: Board, text: str) -> str:
    with pytest.raises(IllegalMoveError) as info:
        board.play(text)
    return str(info.value)


# --- against the model ----------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_perft_from_the_empty_board_matches_the_model(depth):
    assert Board("Critters").perft(depth) == Critters().perft(depth)


def test_perft_reference_counts():
    # Counted by both implementations (the model's depth 5 is the slow test below).
    assert [Board("Critters").perft(d) for d in range(5)] == [1, 5, 150, 2610, 45414]


@pytest.mark.slow
def test_perft_depth_5_matches_the_model():
    assert Board("Critters").perft(5) == Critters().perft(5)


def random_positions(seed: int, games: int, plies: int):
    """Random Critters games, biased towards moves next to a queen so that
    crowded queens, suicides and surrounds come up; yields every position."""
    rng = random.Random(seed)
    for _ in range(games):
        board, oracle = Board("Critters"), Critters()
        target = rng.choice(["wQ", "bQ"])
        for _ in range(plies):
            yield board, oracle
            if board.is_game_over():
                break
            moves = list(board.legal_moves)
            queen = oracle.cell_of(target)
            near = [m for m in moves if not m.is_pass and queen and oracle.parse(str(m))[1] in around(queen)]
            m = rng.choice(near if near and rng.random() < 0.6 else moves)
            oracle.play(str(m))
            board.push(m)


def test_random_positions_same_moves_and_results():
    count = 0
    for board, oracle in random_positions(seed=16, games=40, plies=90):
        state = board.state.replace("NotStarted", "InProgress")
        assert state == oracle.result(), board.game_string()
        expected = oracle.moves()
        got = engine_moves(board, oracle) if not board.is_game_over() else set()
        assert got == expected, board.game_string()
        count += 1
    assert count >= 1000


@pytest.mark.slow
def test_many_more_random_positions():
    for board, oracle in random_positions(seed=61, games=400, plies=120):
        got = engine_moves(board, oracle) if not board.is_game_over() else set()
        assert got == oracle.moves(), board.game_string()


def test_random_games_hash_and_undo():
    """Make/unmake keeps the Zobrist hash exact in Critters too, and it differs from Base's."""
    for board, _ in random_positions(seed=7, games=5, plies=60):
        assert board.position_array[HASH] == recompute_hash(board.position_array)
    assert Board("Critters").zobrist != Board("Base").zobrist


# --- game type and notation ------------------------------------------------------


def test_game_type_and_pieces():
    board = Board("critters")
    assert board.game_type_string == "Critters"
    assert board.game_string() == "Critters;NotStarted;White[1]"
    # No queen on the first turn: the five other bugs, D without a number.
    assert sorted(str(m) for m in board.legal_moves) == ["wA1", "wB1", "wD", "wG1", "wS1"]
    board.play("wD")
    board.play("bD wD-")
    assert board.game_string() == "Critters;InProgress;White[2];wD;bD wD-"
    assert Board.from_game_string(board.game_string()).game_string() == board.game_string()


@pytest.mark.parametrize("text", ["Critters+M", "Base+D", "Critter"])
def test_no_expansions_with_critters(text):
    from hiveai.errors import GameTypeError

    with pytest.raises(GameTypeError):
        Board(text)


@pytest.mark.parametrize("piece", ["wM", "wL", "wP"])
def test_expansion_pieces_are_unknown_in_critters(piece):
    board = Board("Critters")
    with pytest.raises(Exception, match="unknown piece"):
        board.play(piece)


def test_third_grasshopper_and_dragonfly_outside_critters():
    board = Board("Critters")
    assert refusal(board, "wG3") == "wG3 is not in a Critters game."
    with pytest.raises(Exception, match="unknown piece"):
        Board("Base+MLP").play("wD")


def test_eleven_pieces_each():
    from hiveai.analysis.render import in_hand

    board = Board("Critters")
    assert in_hand(board, 0) == ["wQ", "wS1", "wS2", "wB1", "wB2", "wG1", "wG2", "wA1", "wA2", "wA3", "wD"]
    assert len(in_hand(board, 1)) == 11


# --- the rules, one position each ---------------------------------------------


def test_ant_goes_at_most_five_steps():
    # A row wQ bQ wG1 bG1 on (0..3, 0); the ant at (-1, 0) walks the 11 cells
    # around it, the far end (4, 0) is six slides away either way round.
    stacks = {(0, 0): ["wQ"], (1, 0): ["bQ"], (2, 0): ["wG1"], (3, 0): ["bG1"], (-1, 0): ["wA1"]}
    board, oracle = arranged(stacks)
    dests = destinations(board, oracle, "wA1")
    assert dests == {(0, -1), (1, -1), (2, -1), (3, -1), (4, -1), (-1, 1), (0, 1), (1, 1), (2, 1), (3, 1)}
    assert refusal(board, "wA1 bG1-") == "wA1 can't move there: an Ant moves at most five spaces."


def spider_pocket():
    # Two pockets beside the spider's start (-1, 0): (0, 0) and (-1, 1), each
    # enclosed on the other four sides. A walk into one ends there after two
    # steps (its only open neighbours are the start and the first step).
    stacks = {(0, -1): ["wQ"], (1, -1): ["bQ"], (1, 0): ["bA1"], (0, 1): ["bG1"],
              (-1, 2): ["wG1"], (-2, 2): ["wA1"], (-2, 1): ["wB1"], (-1, 0): ["wS1"]}
    return arranged(stacks)


def test_spider_stops_early_at_a_dead_end():
    board, oracle = spider_pocket()
    dests = destinations(board, oracle, "wS1")
    assert {(0, 0), (-1, 1)} <= dests  # beside its start, after two steps
    assert (-1, 0) not in dests
    # Base's spider (exactly three steps) cannot stop in either pocket.
    board_base, _ = spider_pocket()
    base = replace(Setup.from_board(board_base), game_type=parse_game_type("Base")).sketch()
    assert {(0, 0), (-1, 1)}.isdisjoint(
        oracle.parse(str(m))[1] for m in base.legal_moves if str(m).startswith("wS1"))


def test_spider_too_short():
    board, oracle = spider_pocket()
    # (-1, -1) is one slide away, (0, -2) two (through it), and the walk goes on from both.
    dests = destinations(board, oracle, "wS1")
    assert (-1, -1) not in dests and (0, -2) not in dests
    assert refusal(board, "wS1 \\wQ") == ("wS1 can't stop there: a Spider must move exactly three spaces "
                                         "unless it reaches a dead end.")


def test_beetle_never_climbs_on_a_beetle():
    # wB1 at (1, 0) beside bB1 (2, 0), bD (1, 1), wA1 (0, 1) and wQ (0, 0); bQ at (2, 1).
    stacks = {(0, 0): ["wQ"], (1, 0): ["wB1"], (2, 0): ["bB1"], (1, 1): ["bD"], (0, 1): ["wA1"], (2, 1): ["bQ"]}
    board, oracle = arranged(stacks)
    assert destinations(board, oracle, "wB1") == {(1, -1), (2, -1), (1, 1), (0, 1), (0, 0)}
    assert refusal(board, "wB1 bB1") == "wB1 can't move there: a Beetle can't climb onto another Beetle."
    # On the Dragonfly, as on any other bug: then bB1 may not join it there.
    board.play("wB1 bD")
    assert (1, 1) not in destinations(board, oracle_after(board), "bB1")
    assert refusal(board, "bB1 wB1") == "bB1 can't move there: a Beetle can't climb onto another Beetle."


def oracle_after(board: Board) -> Critters:
    """The model of an arranged board as it stands now (read off its cells near the origin)."""
    o = Critters()
    b = board.position_array
    for q in range(-8, 9):
        for r in range(-8, 9):
            i = cell_index((q, r))
            stack = [CRITTERS_PIECE_NAMES[int(b[STACK + i * MAX_STACK + lv])] for lv in range(int(b[HEIGHT + i]))]
            if stack:
                o.stacks[(q, r)] = stack
    o.ply = board.ply
    return o


def dragonfly_pocket():
    # The pocket (0, 0) has five occupied neighbours: its one open side (-1, 0)
    # is a gate. wD at (-2, 2) is two cells from it; wA1 (2, -1) is a crawler.
    stacks = {(0, -1): ["wQ"], (1, -1): ["bQ"], (1, 0): ["bA1"], (0, 1): ["bG1"], (-1, 1): ["wG1"],
              (-2, 2): ["wD"], (2, -1): ["wA1"]}
    return arranged(stacks)


def test_dragonfly_flies_over_a_gate():
    board, oracle = dragonfly_pocket()
    assert (0, 0) in destinations(board, oracle, "wD")
    assert (0, 0) not in destinations(board, oracle, "wA1")  # the gate stops the ant
    pocket = next(m for m in board.legal_moves if str(m).startswith("wD") and oracle.parse(str(m))[1] == (0, 0))
    board.push(pocket)
    assert board.position_array[HEIGHT + cell_index((0, 0))] == 1  # landed, on the ground
    assert board.state == "InProgress"


def test_dragonfly_lands_two_or_more_away_next_to_another_piece():
    board, oracle = dragonfly_pocket()
    dests = destinations(board, oracle, "wD")
    occupied = set(oracle.stacks)
    # Every empty cell touching a piece other than the Dragonfly, except its own ring.
    expected = {n for c in occupied - {(-2, 2)} for n in around(c) if n not in occupied} - set(around((-2, 2)))
    assert dests == expected
    assert not dests & occupied  # it never climbs
    assert refusal(board, "wD -wG1") == "wD can't move there: a Dragonfly must fly at least two spaces."


def test_dragonfly_obeys_one_hive_and_cover():
    # wD at (0, 1) joins wQ (0, 0) to bQ (0, 2): pinned.
    board, oracle = arranged({(0, 0): ["wQ"], (0, 1): ["wD"], (0, 2): ["bQ"]})
    assert destinations(board, oracle, "wD") == set()
    # Covered by a beetle it cannot move either.
    board, oracle = arranged({(0, 0): ["wQ"], (1, 0): ["wD", "bB1"], (2, 0): ["bQ"], (-1, 0): ["wA1"]})
    assert destinations(board, oracle, "wD") == set()


def crowded_queen(extra: dict[Cell, list[str]] | None = None):
    # wQ (0, 0) has five neighbours; its gap is (1, -1). bQ (1, 0) is one of them,
    # and shares the gap; it has four more neighbours ((2, -1), (2, 0), (1, 1),
    # (0, 1)) unless ``extra`` fills (1, 1) or takes something away.
    stacks = {(0, 0): ["wQ"], (1, 0): ["bQ"], (0, -1): ["bA1"], (0, 1): ["bG1"], (-1, 1): ["bS1"],
              (-1, 0): ["wA1"], (2, -1): ["bA2"], (2, 0): ["bG2"], (3, -1): ["wD"]}
    stacks.update(extra or {})
    return arranged(stacks)


def test_suicide_is_illegal():
    board, oracle = crowded_queen()
    # wD could fly into (1, -1) but that would surround only its own Bee.
    assert (1, -1) not in destinations(board, oracle, "wD")
    assert refusal(board, "wD \\bQ") == "You can't make that move: it would surround your own Queen Bee."


def test_a_neighbour_of_the_bee_may_take_its_last_gap():
    # wA1 (-1, 0) beside wQ leaves a cell free as it fills the gap: legal.
    board, oracle = crowded_queen()
    assert (1, -1) in destinations(board, oracle, "wA1")
    board.play("wA1 \\bQ")
    assert board.state == "InProgress"


def test_suicide_that_also_surrounds_the_enemy_bee_draws():
    board, oracle = crowded_queen({(1, 1): ["bB1"]})  # bQ's gap is now (1, -1) too
    assert (1, -1) in destinations(board, oracle, "wD")
    board.play("wD \\bQ")
    assert board.state == "Draw"
    assert board.legal_moves == ()


def test_surrounding_only_the_enemy_bee_wins():
    board, oracle = crowded_queen({(1, 1): ["bB1"], (-1, 0): []})
    del oracle.stacks[(-1, 0)]  # wQ now has four neighbours
    board, oracle = arranged({c: s for c, s in oracle.stacks.items()})
    board.play("wD \\bQ")
    assert board.state == "WhiteWins"


def test_pass_when_every_move_would_surround_your_own_bee():
    # White's only stacks: wQ (0, 0), gated in by wA1 (1, -1) and wS1 (0, 1),
    # each pinned by a black leaf (bA1, bA2); black fills the rest of wQ's ring.
    # The gap (1, 0) touches no black piece, so placing there is the one
    # otherwise legal move, and it would surround wQ.
    stacks = {(0, 0): ["wQ"], (1, -1): ["wA1"], (0, 1): ["wS1"], (0, -1): ["bG1"], (-1, 1): ["bG2"],
              (-1, 0): ["bS1"], (2, -2): ["bA1"], (0, 2): ["bA2"], (-1, -1): ["bQ"]}
    board, oracle = arranged(stacks)
    assert oracle.moves() == {ORACLE_PASS}
    assert [str(m) for m in board.legal_moves] == ["pass"]
    assert refusal(board, "wG1 wQ-") == "You can't make that move: it would surround your own Queen Bee."
    board.play("pass")
    assert board.turn == 1


# --- through the tools ----------------------------------------------------------


@pytest.mark.integration
def test_uhp_session(engine):
    """newgame, validmoves, play, bestmove and undo in Critters; info still lists only Hive's expansions."""
    assert engine.cmd1("newgame Critters") == "Critters;NotStarted;White[1]"
    assert sorted(engine.cmd1("validmoves").split(";")) == ["wA1", "wB1", "wD", "wG1", "wS1"]
    assert engine.cmd1("play wD") == "Critters;InProgress;Black[1];wD"
    assert engine.cmd1("play bM wD-").startswith("invalidmove ")
    assert engine.cmd1("play bD wD-") == "Critters;InProgress;White[2];wD;bD wD-"
    best = engine.cmd1("bestmove depth 2")
    board = Board.from_game_string("Critters;InProgress;White[2];wD;bD wD-")
    assert best in {str(m) for m in board.legal_moves}
    assert engine.cmd1("undo") == "Critters;InProgress;Black[1];wD"
    assert engine.cmd("info")[1] == "Mosquito;Ladybug;Pillbug"
    # A refusal by a Critters rule: invalidmove with its reason, then ok, and the game unchanged.
    game = "Critters;InProgress;White[4];wA1;bA1 wA1-;wQ -wA1;bQ bA1-;wD -wQ;bD bQ-"
    assert engine.cmd1(f"newgame {game}") == game
    assert engine.cmd1("play wD \\wQ") == "invalidmove wD can't move there: a Dragonfly must fly at least two spaces."
    assert engine.cmd1("validmoves").count("wD ") > 5
    assert engine.cmd1("play wD bQ\\") == game.replace("White[4]", "Black[4]") + ";wD bQ\\"


def test_cli_perft_and_analyse():
    from click.testing import CliRunner

    from hiveai.cli import main

    out = CliRunner().invoke(main, ["perft", "Critters", "--depth", "3"])
    assert out.exit_code == 0 and "2,610" in out.output, out.output
    out = CliRunner().invoke(main, ["analyse", "Critters;InProgress;White[2];wD;bD wD-", "--depth", "2"])
    assert out.exit_code == 0 and "best move: " in out.output, out.output
    assert "wD" in out.output and "White in hand: wQ wS1 wS2 wB1 wB2 wG1 wG2 wA1 wA2 wA3" in out.output


CRITTERS_REASONS = {
    "suicide": "You can't make that move: it would surround your own Queen Bee.",
    "B": "{} can't move there: a Beetle can't climb onto another Beetle.",
    "S": "{} can't stop there: a Spider must move exactly three spaces unless it reaches a dead end.",
    "A": "{} can't move there: an Ant moves at most five spaces.",
    "D": "{} can't move there: a Dragonfly must fly at least two spaces.",
}


def test_every_critters_refusal_is_true():
    """For the side to move's pieces and every cell on or next to the hive, in
    random positions: the board calls a move legal exactly when the generator
    lists it, and each Critters reason it gives holds in the model."""
    seen = set()
    for i, (board, oracle) in enumerate(random_positions(seed=3, games=12, plies=90)):
        if board.is_game_over() or i % 4:
            continue
        legal = set(board.legal_move_ints())
        colour = oracle.colour()
        enemy = "wb"[colour == "w"]
        cells = set(oracle.stacks) | {n for c in oracle.stacks for n in around(c)} or {(0, 0)}
        for name in [colour + p for p in ("Q", "A1", "A2", "A3", "G1", "G2", "S1", "S2", "B1", "B2", "D")]:
            piece = parse_piece(name, CRITTERS)
            src = oracle.cell_of(name)
            for cell in cells:
                code = (piece << 10) | cell_index(cell)
                # Onto a piece: a piece in hand names the cell with a separator (refused as occupied),
                # one on the board by the piece it would climb.
                onto = bool(oracle.height(cell)) and src is None
                move = from_a_neighbour(board, code) if onto else code
                assert move is not None or board.ply == 1, (board.game_string(), name, cell)
                if move is None:
                    continue  # a lone piece: no neighbour to name its cell from
                reason = board.why_illegal(move)
                assert (reason is None) == (code in legal), (board.game_string(), name, cell, reason)
                if reason == CRITTERS_REASONS["suicide"]:
                    after = oracle.copy()
                    after.apply((name, cell))
                    assert after.surrounded(colour) and not after.surrounded(enemy)
                    seen.add("suicide")
                elif reason == CRITTERS_REASONS.get(name[1], "").format(name):
                    assert src is not None
                    if name[1] == "B":
                        assert oracle.top(cell)[1] == "B"
                    elif name[1] == "D":
                        assert cell in around(src)
                    else:  # a spider or an ant: a shorter or longer slide than the rule allows
                        assert cell not in oracle.destinations(name)
                    seen.add(name[1])
    assert seen == set(CRITTERS_REASONS)


def test_svg_draws_the_dragonfly():
    from hiveai import svg

    board = Board.from_game_string("Critters;InProgress;White[2];wD;bD wD-")
    picture = svg.board(board, arrows=["wA1 /wD"])
    assert 'data-piece="wD"' in picture and 'data-piece="bD"' in picture and 'data-piece="wM"' not in picture
    assert f'id="{svg.GLYPH_ID}D"' in picture and f'id="{svg.GLYPH_ID}M"' not in picture
    assert "wG1 in hand" in picture and "wG3" not in picture
    # A page's shared defs hold both the Mosquito and the Dragonfly.
    shared = svg.glyph_defs()
    assert f'id="{svg.PIECE_ID}wD' in shared and f'id="{svg.PIECE_ID}wM' in shared and f'{svg.GLYPH_ID}D"' in shared
