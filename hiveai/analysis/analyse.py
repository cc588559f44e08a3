"""Analysis for people: search a position and report as it goes, or review a game.

This is the logic behind ``hiveai analyse`` (the CLI only parses options).
Two jobs:

* :func:`analyse_position` draws the position (:mod:`hiveai.analysis.render`), reports
  each completed search iteration (depth, score, nodes, nodes/s, time, PV) the
  way a Stockfish user expects, then the best move, or the K best with
  ``multipv``. As JSON it writes one object per line instead, no picture.
* :func:`review_game` judges each move of a recorded game by how much it
  lost against the engine's choice (:func:`summarise` totals it per side);
  :func:`analyse_game` prints that report.

How a move is judged: the position before it is searched to depth d, giving
the engine's move and its score ("before"); the position after it is searched
to depth d - 1, which scores the played move with the same number of plies
below the root as the engine's move ("after"). Comparing scores of two
searches of equal depth, one ply apart, as chess tools commonly do, would
differ by a tempo on every move: an odd-depth search gives the side to move
the extra ply, so each move would look like it lost that tempo.

Scores are the search's: ints from the side to move's view, 100 being about
one occupied cell next to a queen (:mod:`hiveai.evaluation.linear`), wins near
``±1_000_000``; shown with :func:`hiveai.search.score.format_score`. The searches are
the engine's (:class:`hiveai.player.Engine`, full strength, no book).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterator

from hiveai.rules.board import Board, Move
from hiveai.rules.bug import COLOUR_NAMES
from hiveai.records import FINISHED, GameRecord
from hiveai.analysis.render import render_board
from hiveai.player import Engine, think
from hiveai.search.score import format_score, int_score, is_win_score
from hiveai.search.searcher import SearchInfo, SearchResult
from hiveai.search.timeman import Limit
from hiveai.text import plural

# A move is marked by how much it lost against the engine's preferred move,
# in score units (100 = one cell next to a queen, hiveai.evaluation.linear). A game is
# won by filling six cells, so giving away two (a third of the way to losing,
# e.g. letting the opponent fill two cells around our queen for free) is a
# blunder; one cell is a clear but recoverable mistake. Smaller losses are
# within what a shallow search misjudges and are not marked.
BLUNDER_LOSS = 200
MISTAKE_LOSS = 100
BLUNDER_MARK = "??"
MISTAKE_MARK = "?"
BOOK_MARK = "(book)"
# Scores are clamped to +-SCORE_CAP before losses are taken: past ten queen
# cells a position is decided, so "win in 5" against "+12.00" should cost a
# capped amount, not a million, and one missed win must not swamp the averages.
SCORE_CAP = 1000
# Search depth per position when reviewing a game with no --depth/--time:
# quick (a 90-move game in well under a minute) yet deep enough to see a
# reply that fills a queen cell.
DEFAULT_GAME_DEPTH = 3

Emit = Callable[[str], None]


# --- one position ---------------------------------------------------------------


def info_dict(info: SearchInfo) -> dict:
    """JSON form of one iteration report."""
    return {
        "type": "info",
        "depth": info.depth,
        "multipv": info.multipv,
        "score": info.score,
        "score_text": format_score(info.score),
        "nodes": info.nodes,
        "nps": int(info.nps),
        "seconds": round(float(info.seconds), 6),
        "pv": [str(m) for m in info.pv],
    }


def info_header(multipv: int) -> str:
    """Column titles for :func:`info_line`."""
    line = " line" if multipv > 1 else ""
    return f"depth{line} {'score':>10} {'nodes':>12} {'nodes/s':>10} {'time':>8}  pv"


def info_line(info: SearchInfo, multipv: int) -> str:
    """One text line per completed iteration (and multipv line)."""
    line = f" {info.multipv:>4}" if multipv > 1 else ""
    return (
        f"{info.depth:>5}{line} {format_score(info.score):>10} {info.nodes:>12,} "
        f"{info.nps:>10,.0f} {info.seconds:>8.3f}  {' '.join(map(str, info.pv))}"
    )


def result_dict(board: Board, res: SearchResult) -> dict:
    """JSON form of the final answer: best move, figures and every line."""
    return {
        "type": "bestmove",
        "gamestring": board.game_string(),
        "move": res.move_string,
        "score": int_score(res.score),
        "score_text": format_score(int_score(res.score)),
        "depth": res.depth,
        "nodes": res.nodes,
        "seconds": round(float(res.seconds), 6),
        "pv": [str(m) for m in res.pv],
        "lines": [
            {"move": ln.move_string, "score": int_score(ln.score), "score_text": format_score(int_score(ln.score)),
             "pv": [str(m) for m in ln.pv]}
            for ln in res.lines
        ],
    }


def result_lines(res: SearchResult, multipv: int) -> list[str]:
    """Text form of the final answer: the best move, then the K best if asked."""
    out = [
        f"best move: {res.move_string}  ({format_score(int_score(res.score))}, depth {res.depth}, "
        f"{plural(res.nodes, 'node')}, {res.seconds:.2f} s)"
    ]
    if multipv > 1 and res.lines:
        width = max(len(ln.move_string) for ln in res.lines)
        out.append(f"{plural(len(res.lines), 'best move')}:")
        out += [
            f"{i:>3}. {ln.move_string:<{width}} {format_score(int_score(ln.score)):>10}  pv {' '.join(map(str, ln.pv))}"
            for i, ln in enumerate(res.lines, 1)
        ]
    return out


def analyse_position(
    board: Board,
    emit: Emit,
    *,
    depth: int | None = None,
    time: float | None = None,
    multipv: int = 1,
    as_json: bool = False,
    color: bool = False,
    threads: int = 1,
) -> SearchResult | None:
    """Search ``board`` and report through ``emit`` (one call per line).

    Text: the picture, a header, one line per completed iteration, the best
    move(s). JSON: one object per iteration, then one ``bestmove`` object. A
    finished game is not searched: the picture and the result are reported
    (JSON: a ``gameover`` object) and None is returned.
    """
    if not as_json:
        emit(render_board(board, color=color))
        emit("")
    if board.is_game_over():
        if as_json:
            emit(json.dumps({"type": "gameover", "gamestring": board.game_string(), "state": board.state}))
        else:
            emit(f"game over: {board.state}")
        return None
    if not as_json:
        emit(info_header(multipv))

    def report(info: SearchInfo) -> None:
        emit(json.dumps(info_dict(info)) if as_json else info_line(info, multipv))

    # Neither depth nor time: think()'s default depth.
    res = think(board, Limit(time=time, depth=depth), multipv=multipv, on_iteration=report, threads=threads)
    if as_json:
        emit(json.dumps(result_dict(board, res)))
    else:
        emit("")
        for line in result_lines(res, multipv):
            emit(line)
    return res


# --- a whole game ---------------------------------------------------------------


@dataclass
class MoveReview:
    """The verdict on one move of a game.

    ``before``: score of the position before the move (the engine's best, for
    the mover); ``after``: score after it, for the mover, None when the move
    ended the game (``state_after`` then says how). Either is None too when a
    time limit ran out before one iteration finished. ``loss`` is what the
    move cost against ``best`` (clamped scores; 0 for the engine's move, a
    move the book plays, or a move with a score missing), ``mark`` is ``??``,
    ``?`` or "". ``book``: the opening book knows the move.
    """

    number: int  # 1-based, as numbered in a PGN
    colour: str  # "White" or "Black"
    move: Move  # the move played
    best: Move  # the engine's preferred move
    engine_move: bool  # the move played is the engine's
    before: int | None
    after: int | None
    state_after: str
    loss: int
    mark: str
    book: bool

    @property
    def after_text(self) -> str:
        """``after`` as text, or the result when the move ended the game."""
        if self.state_after in FINISHED:
            return _state_text(self.state_after, self.colour)
        return format_score(self.after)


@dataclass
class SideSummary:
    """Totals of one side's moves."""

    moves: int = 0
    engine_moves: int = 0  # moves equal to the engine's preferred one
    book_moves: int = 0
    mistakes: int = 0
    blunders: int = 0
    total_loss: int = 0

    @property
    def average_loss(self) -> float:
        """Mean clamped loss per move (book moves included, as 0)."""
        return self.total_loss / self.moves if self.moves else 0.0


@dataclass
class GameSummary:
    """Per-side totals and how the game ended."""

    white: SideSummary = field(default_factory=SideSummary)
    black: SideSummary = field(default_factory=SideSummary)
    final_state: str = "NotStarted"  # by the rules, on the final position
    recorded_result: str = "NotStarted"  # as the record states it


def _state_text(state: str, mover: str) -> str:
    """A finished game's state from ``mover``'s point of view."""
    if state == "Draw":
        return "draw"
    return "won" if state == f"{mover}Wins" else "lost"


def _clamp(score: int) -> int:
    return max(-SCORE_CAP, min(SCORE_CAP, score))


def _final_score(state: str, mover: str) -> int:
    """Clamped score of a finished game for ``mover``."""
    return {"won": SCORE_CAP, "lost": -SCORE_CAP, "draw": 0}[_state_text(state, mover)]


def book_lookup() -> Callable[[Board], list | None] | None:
    """``hiveai.player.book.lookup`` if the book module exists, else None.

    Only a missing ``hiveai.player.book`` is tolerated: an error inside an existing
    book module is a bug and must show.
    """
    try:
        from hiveai.player.book import lookup
    except ModuleNotFoundError as e:
        if e.name != "hiveai.player.book":
            raise
        return None
    return lookup


def _book_moves(lookup: Callable[[Board], list | None] | None, board: Board) -> dict[int, int]:
    """Book moves of ``board`` as {move int: weight} (empty without a book or entry).

    Weight > 0: a move the book plays; 0: a move it knows but does not
    recommend (see :class:`hiveai.player.book.BookMove`).
    """
    if lookup is None:
        return {}
    return {bm.move.code: bm.weight for bm in lookup(board) or []}


def review_game(
    record: GameRecord,
    *,
    depth: int | None = None,
    time: float | None = None,
    use_book: bool = True,
    threads: int = 1,
) -> Iterator[MoveReview]:
    """Yield a :class:`MoveReview` per move of ``record``, as each is computed.

    The position before each move is searched with the given limits
    (``DEFAULT_GAME_DEPTH`` when neither is given), the position after it to
    one ply less than that search reached (at least 1), all by one
    :class:`~hiveai.player.Engine` (at full strength, no book) whose table carries over
    from move to move as in play. The moves replay legally (:func:`hiveai.records.read_game`
    checked them).
    """
    if depth is None and time is None:
        depth = DEFAULT_GAME_DEPTH
    lookup = book_lookup() if use_book else None
    engine = Engine(threads=threads)
    board = Board(record.game_type)
    for number, text in enumerate(record.moves, 1):
        mover = COLOUR_NAMES[board.turn]
        book = _book_moves(lookup, board)
        best = engine.analyse(board, Limit(time=time, depth=depth))
        best_score = int_score(best.score)
        played = board.play(text)
        move = played.code
        if board.is_game_over():
            after = None
            after_clamped = _final_score(board.state, mover)
        else:
            reply = engine.analyse(board, Limit(depth=max(1, best.depth - 1)))
            after = None if reply.score is None else _parent_score(int_score(reply.score))
            after_clamped = None if after is None else _clamp(after)
        is_book = move in book
        # A move the book plays is not judged by a shallow search.
        if move == best.move.code or book.get(move, 0) > 0 or best_score is None or after_clamped is None:
            loss = 0
        else:
            loss = max(0, _clamp(best_score) - after_clamped)
        mark = BLUNDER_MARK if loss >= BLUNDER_LOSS else MISTAKE_MARK if loss >= MISTAKE_LOSS else ""
        yield MoveReview(number, mover, played, best.move, move == best.move.code,
                         best_score, after, board.state, loss, mark, is_book)


def _parent_score(child: int) -> int:
    """A score of the position after a move, seen from the side that made it.

    Negated; a forced win or loss is also one ply further away from the
    parent (the search scores them ``WIN - plies``).
    """
    score = -child
    if is_win_score(score):
        score -= 1 if score > 0 else -1
    return score


def summarise(record: GameRecord, reviews: list[MoveReview]) -> GameSummary:
    """Per-side totals of ``reviews`` (the reviews of ``record``'s moves)."""
    summary = GameSummary(final_state=reviews[-1].state_after if reviews else "NotStarted",
                          recorded_result=record.result)
    for r in reviews:
        side = summary.white if r.colour == "White" else summary.black
        side.moves += 1
        side.engine_moves += r.engine_move
        side.book_moves += r.book
        side.mistakes += r.mark == MISTAKE_MARK
        side.blunders += r.mark == BLUNDER_MARK
        side.total_loss += r.loss
    return summary


def review_dict(r: MoveReview) -> dict:
    """JSON form of one move's review."""
    return {
        "type": "move",
        **asdict(r),
        "move": str(r.move),
        "best": str(r.best),
        "before_text": format_score(r.before),
        "after_text": r.after_text,
    }


def review_header() -> str:
    """Column titles for :func:`review_line`."""
    return f"{'no.':>4}  {'move':<12}{'':3}{'before':>10} {'after':>10}  best"


def review_line(r: MoveReview) -> str:
    """One text line per move: number, move and mark, scores, the engine's move."""
    best = "=" if r.engine_move else str(r.best)
    book = f"  {BOOK_MARK}" if r.book else ""
    return (f"{r.number:>3}.  {str(r.move):<12}{r.mark:<3}{format_score(r.before):>10} "
            f"{r.after_text:>10}  {best:<12}{book}").rstrip()


def summary_dict(s: GameSummary) -> dict:
    """JSON form of the summary (average loss in score units)."""
    sides = {name: {**asdict(side), "average_loss": round(side.average_loss, 1)}
             for name, side in (("white", s.white), ("black", s.black))}
    return {"type": "summary", **sides, "final_state": s.final_state, "recorded_result": s.recorded_result}


def summary_rows(s: GameSummary) -> list[tuple[str, str, str]]:
    """The summary table as (label, White's figure, Black's figure) rows."""
    rows = [
        ("moves", lambda x: f"{x.moves}"),
        ("engine's move played", lambda x: f"{x.engine_moves}"),
        ("book moves", lambda x: f"{x.book_moves}"),
        (f"mistakes ({MISTAKE_MARK}, loss >= {MISTAKE_LOSS})", lambda x: f"{x.mistakes}"),
        (f"blunders ({BLUNDER_MARK}, loss >= {BLUNDER_LOSS})", lambda x: f"{x.blunders}"),
        ("average loss", lambda x: f"{x.average_loss / 100:.2f}"),
    ]
    return [(label, fmt(s.white), fmt(s.black)) for label, fmt in rows]


def summary_ending(s: GameSummary) -> str:
    """How the game ended: the final position's state, and the recorded result if it differs."""
    ending = f"final position: {s.final_state}"
    if s.recorded_result != s.final_state:
        ending += f"; recorded result: {s.recorded_result}"
    return ending


def summary_lines(s: GameSummary) -> list[str]:
    """Text form of the summary: a White/Black table and how the game ended."""
    out = [f"{'summary':<28}{'White':>8}{'Black':>8}"]
    out += [f"  {label:<26}{white:>8}{black:>8}" for label, white, black in summary_rows(s)]
    out.append(summary_ending(s))
    return out


def white_scores(reviews: list[MoveReview]) -> list[int | None]:
    """The game's evaluation from White's view: the start, then the score after each move.

    Entry 0 is the first review's ``before`` (White moves first), entry i the
    ``after`` of move i turned to White's view; a move that ended the game
    scores ``±SCORE_CAP`` (0 for a draw). None where a search gave no score.
    """
    if not reviews:
        return []
    out: list[int | None] = [reviews[0].before]
    for r in reviews:
        if r.state_after in FINISHED:
            score: int | None = _final_score(r.state_after, r.colour)
        else:
            score = r.after
        out.append(None if score is None else score if r.colour == "White" else -score)
    return out


def limit_text(depth: int | None, time: float | None) -> str:
    """The search limit per position, as the review's header states it (``depth 3``)."""
    if depth is None and time is None:
        depth = DEFAULT_GAME_DEPTH
    return " or ".join(x for x in (depth and f"depth {depth}", time and f"{time:g} s") if x)


@dataclass
class GameReview:
    """A reviewed game: the record, one :class:`MoveReview` per move, the totals and the limits used."""

    record: GameRecord
    reviews: list[MoveReview]
    summary: GameSummary
    limit: str  # the search limit per position, e.g. "depth 3"


def analyse_game(
    record: GameRecord,
    emit: Emit,
    *,
    depth: int | None = None,
    time: float | None = None,
    as_json: bool = False,
    name: str = "",
    threads: int = 1,
    on_move: Callable[[list[MoveReview]], None] | None = None,
) -> GameReview:
    """Review every move of ``record`` and report through ``emit``, line by line.

    Text: a title, one line per move as it is searched (see
    :func:`review_line`: ``=`` in the best column means the engine agrees),
    then the summary. JSON: one ``move`` object per move, then a ``summary``.
    ``on_move`` is called with the reviews so far after each move (a live
    view; an exception it raises ends the review there).
    Returns the whole review (for :func:`hiveai.analysis.pages.review_page`).
    """
    limit = limit_text(depth, time)
    if depth is None and time is None:
        depth = DEFAULT_GAME_DEPTH
    if not as_json:
        players = " - ".join(record.tags.get(t) or "?" for t in ("White", "Black"))
        moves = plural(len(record.moves), "move")
        emit(f"{name or 'game'}: {record.game_type}, {players}, {moves}, result {record.result}")
        emit(f"{limit} per position; scores for the side that moved")
        emit(review_header())
    reviews = []
    for r in review_game(record, depth=depth, time=time, threads=threads):
        reviews.append(r)
        emit(json.dumps(review_dict(r)) if as_json else review_line(r))
        if on_move is not None:
            on_move(reviews)
    summary = summarise(record, reviews)
    if as_json:
        emit(json.dumps(summary_dict(summary)))
    else:
        emit("")
        for line in summary_lines(summary):
            emit(line)
    return GameReview(record, reviews, summary, limit)


__all__ = [
    "BLUNDER_LOSS",
    "DEFAULT_GAME_DEPTH",
    "MISTAKE_LOSS",
    "SCORE_CAP",
    "GameReview",
    "GameSummary",
    "MoveReview",
    "SideSummary",
    "analyse_game",
    "analyse_position",
    "book_lookup",
    "review_game",
    "summarise",
    "summary_rows",
    "white_scores",
]
