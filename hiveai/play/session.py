"""One game on the board: its position, who plays each side, how it ended, and what the page shows.

Plain Python with no server in it, so the rules of the board (what undo takes
back, when pass is offered, how an end is named) are tested directly.

>>> game = Game(Board("Base+MLP"), Players.from_colour("white", level=1))
>>> game.engine_to_move, game.pass_only
(False, False)
>>> game.play("wA1").text, game.engine_to_move
('wA1', True)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from hiveai.rules.board import Board
from hiveai.rules.bug import COLOUR_NAMES, N_GAME_TYPES, game_type_string
from hiveai.errors import HiveError
from hiveai.rules.hex_grid import CELL_MASK
from hiveai.player import MAX_LEVEL, check_level
from hiveai.rules.notation import parse_game_type_string
from hiveai.rules.outcome import BLACK, DRAW, WHITE, Outcome, Termination
from hiveai.errors import BadRequest
from hiveai.svg import board as board_svg
from hiveai.svg import cell_centres

__all__ = ["COLOURS", "GAME_TYPES", "Game", "Players", "parse_game_type"]

# The game types the new-game form offers: the eight of UHP and Critters (hiveai.rules.bug's order).
GAME_TYPES = tuple(game_type_string(gt) for gt in range(N_GAME_TYPES))
# colour= in the URL: which side the person takes (or none, or both).
COLOURS = ("white", "black", "engines", "people")
HUMAN, ENGINE = "human", "engine"
# hiveai.svg's colours, but no background: the page paints it (light or dark).
PAGE_COLORS = {"background": ""}
# Longest time per move the form takes (seconds).
MAX_SECONDS = 600.0


def parse_game_type(text: str) -> str:
    """The GameTypeString ``text`` names; a ``+`` that arrived as a space (from a URL) counts as ``+``.

    >>> parse_game_type("Base MLP"), parse_game_type("base+mlp")
    ('Base+MLP', 'Base+MLP')
    """
    cleaned = "+".join(text.replace(" ", "+").split("+")).strip("+")
    try:
        return game_type_string(parse_game_type_string(cleaned))
    except HiveError as e:
        raise BadRequest(str(e)) from None


@dataclass
class Players:
    """Who plays White and Black (``human`` or ``engine``), the engine's level and time per move."""

    white: str = HUMAN
    black: str = ENGINE
    level: int = 5
    seconds: float | None = None  # time per move; None: the level's own pace

    @classmethod
    def from_colour(cls, colour: str, level: int = 5, seconds: float | None = None) -> Players:
        colour = (colour or "white").lower()
        if colour not in COLOURS:
            raise BadRequest(f'Unknown colour "{colour}": choose {", ".join(COLOURS)}.')
        sides = {"white": (HUMAN, ENGINE), "black": (ENGINE, HUMAN), "engines": (ENGINE, ENGINE),
                 "people": (HUMAN, HUMAN)}[colour]
        return cls(*sides, level=_level(level), seconds=_seconds(seconds))

    @classmethod
    def from_dict(cls, d: dict) -> Players:
        def side(v):
            return ENGINE if v == ENGINE else HUMAN

        return cls(side(d.get("white")), side(d.get("black")), _level(d.get("level", 5)),
                   _seconds(d.get("seconds")))

    def side(self, colour: int) -> str:
        return self.white if colour == WHITE else self.black

    @property
    def colour(self) -> str:
        """The ``colour=`` that gives these sides."""
        return {(HUMAN, ENGINE): "white", (ENGINE, HUMAN): "black", (ENGINE, ENGINE): "engines"}.get(
            (self.white, self.black), "people")


def _level(value) -> int:
    try:
        return check_level(int(value))
    except (TypeError, ValueError):
        raise BadRequest(f"Level must be a whole number from 1 to {MAX_LEVEL}, not {value!r}.") from None


def _seconds(value) -> float | None:
    if value in (None, ""):
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = -1.0
    if not 0 < seconds <= MAX_SECONDS:
        raise BadRequest(f"Time per move must be a number of seconds above 0 and at most {MAX_SECONDS:g}, "
                         f"not {value!r}.")
    return seconds


@dataclass
class Game:
    """A game on the board. ``outcome`` is set by a resignation or an agreed draw (the board ends the others)."""

    board: Board
    players: Players = field(default_factory=Players)
    outcome: Outcome | None = None
    id: int = 0

    # --- what the rules say now ------------------------------------------------

    @property
    def end(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if self.outcome is not None:
            return self.outcome
        state = self.board.state
        if state in ("WhiteWins", "BlackWins"):
            return Outcome.from_result(state, Termination.QUEEN_SURROUNDED)
        if state == DRAW:
            return Outcome.from_result(state, Termination.BOTH_SURROUNDED)
        return None

    @property
    def over(self) -> bool:
        return self.end is not None

    @property
    def engine_to_move(self) -> bool:
        return not self.over and self.players.side(self.board.turn) == ENGINE

    @property
    def pass_only(self) -> bool:
        """Whether passing is the side to move's only move (the only time pass is offered)."""
        moves = self.board.legal_moves
        return not self.over and len(moves) == 1 and moves[0].is_pass

    # --- changes ---------------------------------------------------------------

    def play(self, text: str):
        """Play MoveString ``text`` (IllegalMoveError and its kin, the game unchanged, if it is not legal)."""
        if self.over:
            raise BadRequest(f"The game is over: {self.end}.")
        try:
            return self.board.play(text.strip())
        except HiveError as e:
            raise BadRequest(str(e)) from None

    def undo(self) -> int:
        """Take back the last move of a person and every engine reply after it; how many plies went.

        Against the engine that is the engine's reply and your move; between two
        people, one move; a resignation or agreed draw is taken back first, alone.
        """
        if self.outcome is not None:
            self.outcome = None
            return 0
        if not self.board.move_history:
            raise BadRequest("There is no move to take back." + (" (The game starts from a set-up position.)"
                                                                  if self.board.setup else ""))
        humans = {c for c in (WHITE, BLACK) if self.players.side(c) == HUMAN}
        taken = 0
        while self.board.move_history:
            mover = 1 - self.board.turn  # who played the last move
            self.board.pop()
            taken += 1
            if mover in humans or not humans:
                break
        return taken

    def board_at(self, moves: int) -> Board:
        """The board after the game's first ``moves`` moves, from its start (the empty board or its set-up)."""
        n = len(self.board.move_history)
        if not 0 <= moves <= n:
            raise BadRequest(f"ply must be 0 to {n}, not {moves}.")
        board = self.board.copy()
        while len(board.move_history) > moves:
            board.pop()
        return board

    def resign(self) -> None:
        """The side to move resigns (between two people, or your side against the engine)."""
        if self.over:
            raise BadRequest(f"The game is over: {self.end}.")
        loser = self._person()
        self.outcome = Outcome(1 - loser, Termination.RESIGNATION)

    def agree_draw(self) -> None:
        if self.over:
            raise BadRequest(f"The game is over: {self.end}.")
        self.outcome = Outcome(None, Termination.AGREED_DRAW)

    def _person(self) -> int:
        """The colour of the person at the board: the one side a human plays, else the side to move."""
        humans = [c for c in (WHITE, BLACK) if self.players.side(c) == HUMAN]
        return humans[0] if len(humans) == 1 else self.board.turn

    # --- storage ---------------------------------------------------------------

    def outcome_text(self) -> str:
        """The stored form of a resignation or agreed draw: ``"WhiteWins resignation"``, or ``""``."""
        o = self.outcome
        return "" if o is None else f"{o.result} {o.termination.value}"

    @staticmethod
    def parse_outcome(text: str) -> Outcome | None:
        if not text:
            return None
        result, _, how = text.partition(" ")
        try:
            return Outcome.from_result(result, Termination(how))
        except ValueError:
            return None

    def settings(self) -> dict:
        """What the store keeps beside the moves: the players, and the set-up the game started from."""
        settings = asdict(self.players)
        if self.board.setup:
            settings["setup"] = self.board.setup
        return settings

    # --- what the page shows ---------------------------------------------------

    def end_text(self) -> str:
        end = self.end
        if end is None:
            return ""
        how = {Termination.QUEEN_SURROUNDED: "the {loser} queen is surrounded",
               Termination.BOTH_SURROUNDED: "both queens are surrounded",
               Termination.RESIGNATION: "{loser} resigned",
               Termination.AGREED_DRAW: "a draw was agreed"}.get(end.termination, end.termination.value)
        loser = "" if end.winner is None else COLOUR_NAMES[1 - end.winner]
        return f"{str(end).split(' (')[0]}: {how.format(loser=loser.lower() if 'queen' in how else loser)}."

    def picks(self, either_side: bool = False) -> dict[str, list[list]]:
        """For each piece a person may pick now: its moves as [MoveString, x, y] (the destination's
        centre in the picture). Empty while the engine is to move (unless ``either_side``: analysis)
        or the game is over."""
        if self.over or (self.engine_to_move and not either_side):
            return {}
        moves = [m for m in self.board.legal_moves if not m.is_pass]
        centres = cell_centres(self.board, {m.code & CELL_MASK for m in moves})
        out: dict[str, list[list]] = {}
        for m in moves:
            x, y = centres[m.code & CELL_MASK]
            out.setdefault(m.piece, []).append([m.text, x, y])
        return out

    def svg(self, arrows=()) -> str:
        """The picture, with no background of its own: the page's light or dark panel shows through."""
        return board_svg(self.board, arrows=arrows, colors=PAGE_COLORS)

    def view(self, either_side: bool = False) -> dict:
        """The page's picture of the game (JSON-ready); ``either_side``: a person may move for the engine too."""
        b = self.board
        return {
            "id": self.id,
            "gamestring": b.game_string(),
            "game_type": b.game_type_string,
            "ply": len(b.move_history),  # moves since the start (the empty board or the set-up)
            "setup": b.setup or "",
            "turn": COLOUR_NAMES[b.turn],
            "state": self.end.result if self.end else b.state,
            "over": self.over,
            "end": self.end_text(),
            "players": asdict(self.players),
            "colour": self.players.colour,
            "engine_to_move": self.engine_to_move,
            "pass_only": self.pass_only,
            "history": b.move_history,
            "picks": self.picks(either_side),
            "svg": self.svg(),
        }
