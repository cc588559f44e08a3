"""The board's puzzles: one player, the shipped collection, ratings and history kept in the board's store.

Plain Python with no server in it (:mod:`hiveai.play.app` puts it behind
``/api/puzzles``), as :mod:`hiveai.play.session` is for games. docs/puzzles.md
("In the browser") tells the player the same rules:

* **Choosing**: among the puzzles the filters allow (a theme, a game type) and
  the player has not tried, one of the :data:`NEAREST` whose ratings are
  closest to the player's, at random (lichess serves puzzles near the
  player's rating the same way). When every puzzle the filters allow has been
  tried, the tried ones come round again, unrated.
* **Judging**: by proof (:func:`hiveai.puzzles.try_move`). A right move is
  answered by the best defence; a wrong one ends the attempt, and its
  refutation is kept to show.
* **Rating** (Glicko-2, :func:`hiveai.puzzles.attempt`): a puzzle's first
  attempt is a rated game between the player and the puzzle. Solving it is a
  win for the player; a wrong move, or asking for a hint, a win for the
  puzzle, and the ratings move at once (a hint after a wrong move, or a wrong
  move after a hint, moves nothing more). A retry, or a puzzle the player
  moved in or asked a hint on before, moves nothing; a puzzle left before its
  end (for the next one) stays unscored.
* **Keeping**: every attempt, and each rating it moved, is written to the
  store (:mod:`hiveai.play.store`) in one transaction before the answer goes
  back, so a restart or a killed server loses nothing.

Every action takes a dict as the page sends it and answers the whole puzzle
view (:meth:`PuzzleMode.state`); a bad request raises
:class:`hiveai.errors.BadRequest` with the reason and changes nothing.
"""

from __future__ import annotations

import random
import threading
from typing import TYPE_CHECKING, Sequence

from hiveai.errors import BadRequest, HiveError
from hiveai.play.store import GameStore, PuzzleAttempt
from hiveai.puzzles.rating import PUZZLE_RD, Rating
from hiveai.puzzles.rating import attempt as rate
from hiveai.puzzles.themes import THEMES, theme_name

if TYPE_CHECKING:
    from hiveai.puzzles.puzzlefile import Puzzle
    from hiveai.rules.board import Board

__all__ = ["ACTIONS", "NEAREST", "PuzzleMode", "WIN_FILTER"]

#: The actions the page posts (``POST /api/puzzles/ACTION``).
ACTIONS = ("next", "move", "hint", "retry")
#: A new puzzle is drawn at random from the this many nearest the player's rating.
NEAREST = 12
# Attempts the history lists (newest first).
HISTORY = 30
# A rating whose deviation is above this is still settling: the page shows it with a "?".
PROVISIONAL_RD = 110.0
# Longest move text taken (a MoveString is at most a dozen characters; this leaves room for spaces).
MAX_MOVE_TEXT = 64
#: The theme filter's extra value: every win (any theme), "surround the queen".
WIN_FILTER = "win"
REFUTATION_COLOUR = "#c92a2a"
SOLUTION_COLOUR = "#2f9e44"
PLAYING, SOLVED, FAILED, SKIPPED = "playing", "solved", "failed", "skipped"

# One prover for the process (its table is ~24 MB), used by one thread at a time.
_prover = None
_prover_lock = threading.Lock()
_shipped: list[Puzzle] | None = None
_shipped_lock = threading.Lock()


def _shipped_puzzles() -> list[Puzzle]:
    """The shipped collection, read once per process (replaying every line takes seconds)."""
    global _shipped
    with _shipped_lock:
        if _shipped is None:
            from hiveai.puzzles.puzzlefile import shipped

            _shipped = shipped()
        return _shipped


def _with_prover(work):
    """``work(prover)`` under the process's one prover."""
    global _prover
    with _prover_lock:
        if _prover is None:
            from hiveai.puzzles.prove import make_prover

            _prover = make_prover()
        return work(_prover)


def _triple(r: Rating) -> tuple[float, float, float]:
    return r.rating, r.rd, r.volatility


class PuzzleMode:
    """The puzzles of one board: ``store`` keeps the player's attempts and ratings;
    ``collection`` is the puzzles served (None: the shipped collection, read on first use)."""

    def __init__(self, store: GameStore, collection: Sequence[Puzzle] | None = None,
                 rng: random.Random | None = None) -> None:
        self.store = store
        self._given = collection
        self._puzzles: list[Puzzle] | None = None
        self._by_id: dict[str, Puzzle] = {}
        self.rng = rng or random.Random()
        self._lock = threading.RLock()  # one action at a time: a double click cannot score twice

    @property
    def puzzles(self) -> list[Puzzle]:
        """The puzzles served."""
        self._index()
        return self._puzzles

    def _index(self) -> dict[str, Puzzle]:
        """The puzzles by id (read on first use)."""
        if self._puzzles is None:
            self._puzzles = list(self._given) if self._given is not None else _shipped_puzzles()
            self._by_id = {p.id: p for p in self._puzzles}
        return self._by_id

    # --- ratings -----------------------------------------------------------------------------

    def player(self) -> Rating:
        """The player's rating (a new player's: 1500, deviation 350)."""
        row = self.store.puzzle_player()
        return Rating() if row is None else Rating(row.rating, row.rd, row.volatility)

    def rating_of(self, puzzle: Puzzle, ratings: dict | None = None) -> Rating:
        """``puzzle``'s rating: as attempts moved it, else its file's, with deviation :data:`PUZZLE_RD`."""
        moved = (self.store.puzzle_ratings() if ratings is None else ratings).get(puzzle.id)
        return Rating(*moved) if moved else Rating(puzzle.rating, PUZZLE_RD)

    def _score(self, attempt: PuzzleAttempt, puzzle: Puzzle, solved: bool) -> dict:
        """Score a rated attempt (once): the ratings to store with it."""
        player, rating = self.player(), self.rating_of(puzzle)
        player_after, puzzle_after = rate(player, rating, solved)
        attempt.score = 1.0 if solved else 0.0
        attempt.player_before, attempt.player_after = player.rating, player_after.rating
        attempt.puzzle_before, attempt.puzzle_after = rating.rating, puzzle_after.rating
        return {"player": _triple(player_after), "puzzle": _triple(puzzle_after)}

    # --- choosing ----------------------------------------------------------------------------

    def _filters(self, data: dict) -> tuple[str, str]:
        """The theme and game type asked for (the stored ones where the request names none), checked."""
        row = self.store.puzzle_player()
        saved = row.settings if row else {}
        theme = data.get("theme", saved.get("theme", ""))
        game_type = data.get("game_type", saved.get("game_type", ""))
        if theme is None:
            theme = ""
        if game_type is None:
            game_type = ""
        if not isinstance(theme, str) or (theme and theme != WIN_FILTER and theme not in THEMES):
            raise BadRequest(f"Unknown theme {theme!r}: choose one of {WIN_FILTER}, {', '.join(THEMES)}.")
        if not isinstance(game_type, str) or len(game_type) > 40:
            raise BadRequest(f"Unknown game type {game_type!r}.")
        if game_type:
            from hiveai.play.session import parse_game_type

            game_type = parse_game_type(game_type)
        return theme, game_type

    def _allowed(self, theme: str, game_type: str) -> list[Puzzle]:
        def fits(p: Puzzle) -> bool:
            if game_type and p.game_type != game_type:
                return False
            return not theme or (p.kind == "win" if theme == WIN_FILTER else theme in p.themes)

        return [p for p in self.puzzles if fits(p)]

    def choose(self, theme: str = "", game_type: str = "", exclude: str | None = None) -> Puzzle:
        """A puzzle the filters allow, near the player's rating, untried if any is (module docstring)."""
        pool = self._allowed(theme, game_type)
        if not pool:
            what = " and ".join(filter(None, [theme and f"the theme {self._theme_label(theme)!r}",
                                              game_type and f"the game type {game_type}"]))
            raise BadRequest(f"No puzzle has {what}: choose another filter.")
        tried = {a.puzzle for a in self.store.attempts()}
        candidates = [p for p in pool if p.id not in tried] or [p for p in pool if p.id != exclude] or pool
        me = self.player().rating
        ratings = self.store.puzzle_ratings()
        candidates.sort(key=lambda p: (abs(self.rating_of(p, ratings).rating - me), p.id))
        return self.rng.choice(candidates[:NEAREST])

    def _find(self, text) -> Puzzle:
        """The puzzle whose id is (or starts with) ``text``."""
        from hiveai.puzzles.puzzlefile import puzzle_by_id

        try:
            return puzzle_by_id(self.puzzles, text)
        except LookupError as exc:
            raise BadRequest(str(exc)) from None

    def _touched(self, puzzle_id: str) -> bool:
        """Whether the player has moved, asked a hint or been scored in ``puzzle_id`` before."""
        return any(a.played or a.hinted or a.wrong or a.score is not None
                   for a in self.store.attempts(puzzle=puzzle_id))

    def _start(self, puzzle: Puzzle) -> dict:
        self.store.start_attempt(puzzle.id, rated=not self._touched(puzzle.id))
        return self.state()

    # --- the actions -------------------------------------------------------------------------

    def act(self, action: str, data: dict) -> dict:
        """Run ``action`` (one of :data:`ACTIONS`) with the page's ``data``; the new view."""
        if action not in ACTIONS:
            raise BadRequest(f'Unknown puzzle action "{action}": one of {", ".join(ACTIONS)}.')
        with self._lock:
            self._index()  # read the collection before anything is decided
            return getattr(self, f"_{action}")(data)

    def _next(self, data: dict) -> dict:
        """A new puzzle: ``{"id": ...}`` that one, else one chosen by ``theme`` and ``game_type``
        (kept for the next time)."""
        if data.get("id") not in (None, ""):
            return self._start(self._find(data["id"]))
        theme, game_type = self._filters(data)
        last = self._latest()
        puzzle = self.choose(theme, game_type, exclude=last.puzzle if last else None)
        self.store.set_puzzle_settings({"theme": theme, "game_type": game_type}, _triple(Rating()))
        return self._start(puzzle)

    def _retry(self, data: dict) -> dict:
        """The current puzzle again from its start (rated only if nothing was played in it)."""
        attempt = self._current(data, playing=False)
        return self._start(self._by_id[attempt.puzzle])

    def _move(self, data: dict) -> dict:
        """Judge ``{"attempt": N, "move": MoveString}`` (with ``"ply"``, the moves played so far as
        the page saw them, a move sent twice is refused rather than judged in the next position)."""
        from hiveai.puzzles.solving import try_move

        attempt = self._current(data)
        ply = data.get("ply")
        if ply is not None and ply != len(attempt.played):
            raise BadRequest(f"The puzzle has moved on ({len(attempt.played)} moves played, not {ply!r}): "
                             "the move was not judged.")
        text = data.get("move")
        if not isinstance(text, str) or not text.strip():
            raise BadRequest('Give a move, e.g. {"attempt": 3, "move": "wA1 -bG1"}.')
        if len(text) > MAX_MOVE_TEXT:
            raise BadRequest(f"A MoveString is a few characters, not {len(text)}.")
        puzzle = self._by_id[attempt.puzzle]
        board = self._board(puzzle, attempt.played)
        try:
            move = board.parse_move(text.strip()).text
        except HiveError as e:
            raise BadRequest(f"{text.strip()}: {e}") from None
        try:
            step = _with_prover(lambda prover: try_move(puzzle, attempt.played, move, prover))
        except ValueError as e:
            raise BadRequest(str(e)) from None
        ratings: dict = {}
        if step.right:
            attempt.played.append(move)
            if step.reply is not None:
                attempt.played.append(step.reply)
            if step.solved:
                attempt.status = SOLVED
                if attempt.rated and attempt.score is None:
                    ratings = self._score(attempt, puzzle, True)
        else:
            attempt.status, attempt.wrong, attempt.refutation = FAILED, move, list(step.refutation)
            if attempt.rated and attempt.score is None:
                ratings = self._score(attempt, puzzle, False)
        self.store.save_attempt(attempt, **ratings)
        return self.state()

    def _hint(self, data: dict) -> dict:
        """Light the piece to move now (a rated attempt's first hint scores it as a miss)."""
        from hiveai.puzzles.solving import hint

        attempt = self._current(data)
        if _hint_now(attempt) is None:
            puzzle = self._by_id[attempt.puzzle]
            piece = _with_prover(lambda prover: hint(puzzle, attempt.played, prover))
            attempt.hinted = f"{piece}@{len(attempt.played)}"
            ratings = self._score(attempt, puzzle, False) if attempt.rated and attempt.score is None else {}
            self.store.save_attempt(attempt, **ratings)
        return self.state()

    def _latest(self) -> PuzzleAttempt | None:
        last = self.store.attempts(limit=1)
        return last[0] if last and last[0].puzzle in self._index() else None

    def _current(self, data: dict, playing: bool = True) -> PuzzleAttempt:
        """The attempt on the board, which the request must name (``attempt``): a page left open
        on an older puzzle cannot change the new one."""
        aid = data.get("attempt")
        if not isinstance(aid, int) or isinstance(aid, bool):
            raise BadRequest('Name the attempt: {"attempt": N, ...} (the puzzle view gives N).')
        last = self._latest()
        if last is None or last.id != aid:
            raise BadRequest(f"Attempt {aid} is not the puzzle on the board now (another page moved on?): "
                             "reload the page.")
        if playing and last.status != PLAYING:
            raise BadRequest(f"This puzzle is over ({last.status}): retry it or take the next one.")
        return last

    # --- what the page shows -----------------------------------------------------------------

    @staticmethod
    def _board(puzzle: Puzzle, moves: Sequence[str]) -> Board:
        board = puzzle.board()
        for move in moves:
            board.push(move)
        return board

    def line(self, which: str, ply: int) -> dict:
        """The position ``ply`` moves into the current attempt's ``solution`` (from the puzzle position)
        or ``refutation`` (from the wrong move's position: the wrong move, then the answer),
        with the next move as an arrow. Only once the attempt is over."""
        from hiveai.play.session import Game
        from hiveai.svg import Arrow

        with self._lock:
            last = self._latest()
            if last is None or last.status not in (SOLVED, FAILED):
                raise BadRequest("The lines are shown once the puzzle is over.")
            puzzle = self._by_id[last.puzzle]
            if which == "solution":
                start, moves, colour = self._board(puzzle, []), puzzle.solution, SOLUTION_COLOUR
            elif which == "refutation" and last.status == FAILED:
                start, moves, colour = self._board(puzzle, last.played), [last.wrong, *last.refutation], REFUTATION_COLOUR
            else:
                raise BadRequest(f"No {which!r} line here: ask for the solution, or a failed puzzle's refutation.")
            if not 0 <= ply <= len(moves):
                raise BadRequest(f"ply must be 0 to {len(moves)}, not {ply}.")
            for move in moves[:ply]:
                start.push(move)
            arrows = [Arrow(moves[ply], colour)] if ply < len(moves) else []
            return {"line": which, "ply": ply, "moves": moves, "gamestring": start.game_string(),
                    "svg": Game(start).svg(arrows)}

    def state(self) -> dict:
        """The whole view: the player, the filters, the puzzle on the board and the history."""
        with self._lock:
            return self._state()

    def _state(self) -> dict:
        by_id = self._index()
        attempts = self.store.attempts()
        ratings = self.store.puzzle_ratings()
        row = self.store.puzzle_player()
        settings = row.settings if row else {}
        player = self.player()
        streak, best = _streaks(attempts)
        counts = {t: 0 for t in THEMES}
        types: dict[str, int] = {}
        for p in self.puzzles:
            for t in p.themes:
                counts[t] += 1
            types[p.game_type] = types.get(p.game_type, 0) + 1
        wins = sum(1 for p in self.puzzles if p.kind == "win")
        themes = [[WIN_FILTER, "Surround the queen (every win)", wins]]
        themes += [[t, theme_name(t), n] for t, n in counts.items() if n]
        last = self._latest()
        scored = [a for a in attempts if a.score is not None]
        return {
            "player": {"rating": round(player.rating), "rd": round(player.rd),
                       "provisional": player.rd > PROVISIONAL_RD, "streak": streak, "best_streak": best,
                       "solved": sum(1 for a in scored if a.score == 1), "failed": sum(1 for a in scored if a.score == 0)},
            "filters": {"theme": settings.get("theme", ""), "game_type": settings.get("game_type", "")},
            "themes": themes,
            "game_types": [[gt, n] for gt, n in types.items()],
            "total": len(self.puzzles),
            "current": self._attempt_view(last, ratings) if last else None,
            "history": [self._history_entry(a) for a in attempts[:HISTORY] if a.puzzle in by_id],
        }

    def _theme_label(self, theme: str) -> str:
        return "Surround the queen" if theme == WIN_FILTER else theme_name(theme)

    def _attempt_view(self, a: PuzzleAttempt, ratings: dict) -> dict:
        from hiveai.play.session import Game, Players
        from hiveai.rules.bug import COLOUR_NAMES
        from hiveai.svg import Arrow

        puzzle = self._by_id[a.puzzle]
        board = self._board(puzzle, a.played)
        solver, opponent = COLOUR_NAMES[puzzle.turn], COLOUR_NAMES[1 - puzzle.turn]
        arrows = []
        if a.status == FAILED:
            board.push(a.wrong)
            if a.refutation:
                arrows = [Arrow(a.refutation[0], REFUTATION_COLOUR)]
        game = Game(board, Players.from_colour("people"))  # picks for the side to move: the solver, below
        over = a.status in (SOLVED, FAILED)
        picks = game.picks() if a.status == PLAYING and board.turn == puzzle.turn else {}
        n = puzzle.moves
        if puzzle.kind == "win":
            task = f"{solver} to move: surround the {opponent.lower()} queen in {n} move{'s' * (n > 1)}."
        else:
            task = (f"{solver} to move: {opponent} threatens to surround your queen; "
                    f"find the one move that stops it.")
        return {
            "attempt": a.id, "puzzle": puzzle.id, "game_type": puzzle.game_type, "kind": puzzle.kind, "moves": n,
            "solver": solver, "task": task, "status": a.status, "rated": a.rated, "hint": _hint_now(a) or "",
            "hinted": bool(a.hinted),
            "played": a.played, "wrong": a.wrong, "refutation": a.refutation,
            "message": self._message(a, puzzle, board, solver, opponent),
            "score": a.score, "delta": None if a.score is None else round(a.player_after - a.player_before),
            "gamestring": board.game_string(), "svg": game.svg(arrows), "picks": picks,
            # Told once the attempt is over (a theme, the line or the rating would give the answer away).
            "solution": puzzle.solution if over else None,
            "themes": [[t, theme_name(t)] for t in puzzle.themes] if over else None,
            "puzzle_rating": round(self.rating_of(puzzle, ratings).rating) if over else None,
            "source": puzzle.source if over else None,
        }

    @staticmethod
    def _message(a: PuzzleAttempt, puzzle: Puzzle, board: Board, solver: str, opponent: str) -> str:
        piece = _hint_now(a)
        hinted = f" Hint: move {piece}." if piece else ""
        if a.status == SOLVED:
            if puzzle.kind == "win":
                return f"Solved: the {opponent.lower()} queen is surrounded."
            return f"Solved: {a.played[-1]} is the one move that holds."
        if a.status == FAILED:
            if board.is_game_over():
                end = {"Draw": "a draw: both queens are surrounded",
                       f"{opponent}Wins": "your own queen is surrounded"}.get(board.state, "")
                return f"Not the move: {a.wrong} ends the game, {end}."
            if puzzle.kind == "win" and a.refutation:
                return (f"Not the move: after {a.wrong}, {opponent} answers {a.refutation[0]} and no surround is "
                        f"forced in the moves left.")
            if a.refutation:
                return f"Not the move: after {a.wrong}, {opponent} surrounds your queen: {' '.join(a.refutation)}."
            return f"Not the move: {a.wrong} lets the win go." if puzzle.kind == "win" else \
                f"Not the move: {a.wrong} does not stop the threat."
        if a.status == SKIPPED:
            return "Left before the end."
        answer = "" if not a.played else f"Right. {opponent} " + (
            "passed (it had no other move)" if a.played[-1] == "pass" else f"answered {a.played[-1]}") + ": "
        if [str(m) for m in board.legal_moves] == ["pass"]:  # the solver has no move: the Move box takes "pass"
            return f"{answer}{solver} has no move: type pass in the Move box."
        return f"{answer}your move.{hinted}" if answer else f"Find the best move for {solver}.{hinted}"

    def _history_entry(self, a: PuzzleAttempt) -> dict:
        puzzle = self._by_id[a.puzzle]
        return {"attempt": a.id, "puzzle": a.puzzle, "game_type": puzzle.game_type, "kind": puzzle.kind,
                "moves": puzzle.moves, "status": a.status, "rated": a.rated, "hint": bool(a.hinted),
                "score": a.score, "rating": None if a.player_after is None else round(a.player_after),
                "delta": None if a.score is None else round(a.player_after - a.player_before), "when": a.updated}


def _hint_now(attempt: PuzzleAttempt) -> str | None:
    """The piece the last hint lit, if it was for the position on the board now (a hint is kept as
    ``PIECE@PLY``: the moves played when it was asked)."""
    piece, _, ply = attempt.hinted.rpartition("@")
    if attempt.status == PLAYING and piece and ply == str(len(attempt.played)):
        return piece
    return None


def _streaks(attempts: list[PuzzleAttempt]) -> tuple[int, int]:
    """The run of scored attempts solved up to now, and the longest such run (``attempts`` newest first)."""
    now = best = run = 0
    current = True
    for a in attempts:
        if a.score is None:
            continue
        if a.score == 1:
            run += 1
        else:
            if current:
                now, current = run, False
            best, run = max(best, run), 0
    if current:
        now = run
    return now, max(best, run)
