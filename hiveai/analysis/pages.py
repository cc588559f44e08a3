"""HTML pages of games: the review page of ``hiveai analyse --game --html`` and the replay page.

Each page is one self-contained HTML5 file: inline SVG pictures (the boards
of :mod:`hiveai.svg`; the review's evaluation graph, :func:`eval_graph`,
drawn here), inline CSS and a few lines of inline script, nothing fetched
from the network. Both pages share one position viewer: every
position of the game is drawn once, all but one hidden, and anything with a
``data-ply`` attribute (a move in the list, a point of the graph) shows the
position after that ply; the step buttons and the arrow keys walk through the
game. Without script the page shows the final position and reads fine.

The CSS lays the viewer beside the analysis on a wide screen and above it on
a phone; printing drops the viewer and its buttons and keeps the graph, the
move list, the diagrams and the summary.
"""

from __future__ import annotations

from html import escape
from typing import Iterable, Sequence

from hiveai import __version__
from hiveai.analysis.analyse import GameReview, MoveReview, summary_ending, summary_rows, white_scores
from hiveai.rules.board import Board
from hiveai.rules.notation import read_game_string
from hiveai.search.score import format_score
from hiveai.svg import SVG_NS, Arrow, board as board_svg, glyph_defs

__all__ = ["eval_graph", "page", "replay_page", "review_page", "table"]

# Arrow colours of a diagram: the move played and the engine's choice.
PLAYED_COLOUR = "#e03131"
ENGINE_COLOUR = "#2f9e44"

CSS = """
:root{--bg:#fbfaf6;--ink:#24211c;--muted:#6b6558;--line:#ddd8cb;--on:#fff3bf}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header,main,footer{max-width:1280px;margin:0 auto;padding:8px 16px}
h1{font-size:1.45em;margin:.3em 0}h2{font-size:1.15em;margin:1em 0 .4em}
.facts{color:var(--muted);margin:.2em 0}
main.game{display:grid;grid-template-columns:minmax(0,1fr);gap:8px 24px}
@media (min-width:900px){main.game{grid-template-columns:minmax(0,5fr) minmax(0,6fr)}
.viewer{position:sticky;top:8px;align-self:start}.wide{grid-column:1/-1}}
svg{max-width:100%;height:auto}
.pos svg{display:block;margin:0 auto;width:100%;max-height:72vh}
.pos p{text-align:center;margin:.2em 0;min-height:1.4em}
.controls{display:flex;justify-content:center;gap:6px;margin:6px 0}
.controls button{font-size:1.1em;min-width:3.2em;padding:.35em .5em;border:1px solid var(--line);
background:#fff;border-radius:6px;cursor:pointer}
.eval-graph{width:100%;display:block;border-radius:4px}
.eval-graph circle{cursor:pointer}
.scroll{overflow-x:auto;max-width:100%}
.moves{max-height:60vh;overflow:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:3px 8px;text-align:left;border-bottom:1px solid var(--line);white-space:nowrap}
td.num,th.num{text-align:right}
[data-ply]{cursor:pointer}
tr.on,li.on{background:var(--on)}
.mark-mistake{color:#d9480f;font-weight:bold}.mark-blunder{color:#c92a2a;font-weight:bold}
.book,.agree{color:var(--muted)}
ol.movelist{columns:2;max-height:60vh;overflow:auto;margin:0;padding-left:3em}
ol.movelist li{padding:1px 4px}
.diagrams{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:16px}
figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px;background:#fff}
figcaption{font-size:.95em}
.key-played{color:#e03131}.key-engine{color:#2f9e44}
@media print{.controls,.viewer{display:none}body{background:#fff}
.moves,ol.movelist{max-height:none;overflow:visible}figure,table{break-inside:avoid}a{color:inherit}}
"""

# Shows the position after ply N; clicks on [data-ply], the step buttons and the arrow keys drive it.
SCRIPT = """
(function () {
  var pos = document.querySelectorAll(".pos"), last = pos.length - 1, cur = last;
  function show(i) {
    i = Math.max(0, Math.min(last, i));
    pos[cur].hidden = true; pos[i].hidden = false; cur = i;
    document.querySelectorAll("[data-ply]").forEach(function (e) {
      e.classList.toggle("on", Number(e.getAttribute("data-ply")) === i);
    });
  }
  document.addEventListener("click", function (e) {
    var t = e.target.closest("[data-ply]"), b = e.target.closest("[data-step]");
    if (t) show(Number(t.getAttribute("data-ply")));
    if (b) { var s = b.getAttribute("data-step"); show(s === "first" ? 0 : s === "last" ? last : cur + Number(s)); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowLeft") show(cur - 1);
    if (e.key === "ArrowRight") show(cur + 1);
  });
  if (last >= 0) show(last);
})();
"""


def page(title: str, body: str, *, script: bool = True) -> str:
    """A whole HTML5 document: ``body`` (HTML) with the shared CSS, glyphs and script."""
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="hiveai {escape(__version__)}">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
            # The bug glyphs, once for every board of the page.
            '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute" '
            f'aria-hidden="true">{glyph_defs()}</svg>'
            + body + (f"<script>{SCRIPT}</script>" if script else "") + "</body></html>\n")


def table(head: Sequence[str], rows: Iterable[Sequence[str]], *, numeric: Iterable[int] = (),
          row_attrs: Iterable[str] | None = None) -> str:
    """An HTML table; cells are escaped text, columns in ``numeric`` right-aligned.

    ``row_attrs``: raw attribute text per row (e.g. ``data-ply="3"``).
    """
    numeric = set(numeric)

    def cls(i: int) -> str:
        return ' class="num"' if i in numeric else ""

    attrs = iter(row_attrs) if row_attrs is not None else None
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th{cls(i)}>{escape(h)}</th>" for i, h in enumerate(head)]
    out.append("</tr></thead><tbody>")
    for row in rows:
        extra = f" {next(attrs)}" if attrs is not None else ""
        out.append(f"<tr{extra}>" + "".join(f"<td{cls(i)}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _viewer(boards: Sequence[str], captions: Sequence[str]) -> str:
    """Every position (all hidden but the last) and the step buttons."""
    out = ['<section class="viewer" aria-label="position">']
    for i, (svg, caption) in enumerate(zip(boards, captions)):
        hidden = "" if i == len(boards) - 1 else " hidden"
        out.append(f'<div class="pos"{hidden}>{svg}<p>{escape(caption)}</p></div>')
    out.append('<div class="controls">'
               '<button type="button" data-step="first" title="start">&laquo;</button>'
               '<button type="button" data-step="-1" title="back (left arrow)">&#x25C0;</button>'
               '<button type="button" data-step="1" title="forward (right arrow)">&#x25B6;</button>'
               '<button type="button" data-step="last" title="end">&raquo;</button></div></section>')
    return "".join(out)


def _positions(board: Board, moves: Sequence[str], before=None) -> list[str]:
    """The picture of every position of a game from ``board`` on (``board`` is played through).

    ``before(board, i)``, if given, is called before move ``i`` (0-based) is played.
    """
    boards = [board_svg(board, defs=False)]
    for i, text in enumerate(moves):
        if before is not None:
            before(board, i)
        board.play(text)
        boards.append(board_svg(board, defs=False))
    return boards


def _mark_class(mark: str) -> str:
    return {"?": "mark-mistake", "??": "mark-blunder"}.get(mark, "")


def _header(title: str, facts: Sequence[str], links: str = "") -> str:
    """The page's title and facts (text), and ``links`` (HTML) under them."""
    return (f"<header><h1>{escape(title)}</h1>"
            + "".join(f'<p class="facts">{escape(f)}</p>' for f in facts if f)
            + (f'<p class="facts">{links}</p>' if links else "") + "</header>")


def _players(tags: dict[str, str]) -> str:
    return " \u2013 ".join(tags.get(t) or "?" for t in ("White", "Black"))


def _diagram(board: Board, r: MoveReview) -> str:
    """The position before a mistake, with the move played and the engine's move as arrows."""
    arrows = [Arrow(r.move, PLAYED_COLOUR)]
    if not r.engine_move and r.best is not None:
        arrows.append(Arrow(r.best, ENGINE_COLOUR))
    label = "mistake" if r.mark == "?" else "blunder"
    return (f'<figure data-ply="{r.number - 1}">{board_svg(board, arrows=arrows, defs=False)}'
            f'<figcaption><b>{r.number}. {escape(str(r.move))} <span class="{_mark_class(r.mark)}">{r.mark}</span></b> '
            f"({label}, loss {r.loss / 100:.2f}): "
            f'<span class="key-played">played {escape(str(r.move))}, {escape(r.after_text)}</span>; '
            f'<span class="key-engine">engine {escape(str(r.best))}, {escape(format_score(r.before))}</span> '
            "(scores for the side that moved)</figcaption></figure>")


def review_page(review: GameReview, *, name: str = "") -> str:
    """The HTML review page of a reviewed game (see the module docstring)."""
    record, reviews = review.record, review.reviews
    diagrams = []

    def diagram(board: Board, i: int) -> None:
        if reviews[i].mark:
            diagrams.append(_diagram(board, reviews[i]))

    boards = _positions(Board(record.game_type), [r.move for r in reviews], diagram)
    captions = ["start"] + [f"{r.number}. {r.move} {r.mark}".rstrip() + f"  ({r.after_text} for {r.colour})"
                            for r in reviews]
    scores = white_scores(reviews)
    marks = [""] + [r.mark for r in reviews]
    labels = ["start: " + format_score(scores[0] if scores else None)] + [
        f"{r.number}. {r.move} {r.mark} {format_score(s)}".replace("  ", " ") for r, s in zip(reviews, scores[1:])]
    rows, attrs = [], []
    for r in reviews:
        best = "=" if r.engine_move else str(r.best)
        rows.append([f"{r.number}.", str(r.move), r.mark, format_score(r.before), r.after_text, best,
                     "book" if r.book else ""])
        attrs.append(f'data-ply="{r.number}" class="{_mark_class(r.mark)}"'.replace(' class=""', ""))
    tags = record.tags
    facts = [
        f"{record.game_type} \u00b7 result {record.result} \u00b7 {len(reviews)} moves"
        + (f" \u00b7 {tags['Date']}" if tags.get("Date") else "")
        + (f" \u00b7 {tags['Event']}" if tags.get("Event") else ""),
        f"Engine: hiveai {__version__}, {review.limit} per position, opening book on"
        + (f" \u00b7 {name}" if name else ""),
    ]
    summary = table(["summary", "White", "Black"], summary_rows(review.summary), numeric=(1, 2))
    body = [
        _header(_players(tags), facts),
        '<main class="game">',
        _viewer(boards, captions),
        '<section class="analysis"><h2>Evaluation (White\'s view)</h2>',
        eval_graph(scores, marks=marks, labels=labels),
        '<p class="facts">Up: White is better. Orange: mistake (?), red: blunder (??). '
        "Click a point or a move to see the position.</p>",
        '<h2>Moves</h2><div class="moves">',
        table(["no.", "move", "", "before", "after", "engine", ""], rows, numeric=(0, 3, 4), row_attrs=attrs),
        '</div><p class="facts">Scores for the side that moved, before the move (the engine\'s best) and after '
        "it; = : the engine agrees.</p></section>",
        '<section class="wide"><h2>Mistakes and blunders</h2>',
        (f'<div class="diagrams">{"".join(diagrams)}</div>' if diagrams else "<p>None found.</p>"),
        '<p class="facts"><span class="key-played">Red: the move played</span>, '
        '<span class="key-engine">green: the engine\'s move</span>.</p></section>',
        f'<section class="wide"><h2>Summary</h2>{summary}<p>{escape(summary_ending(review.summary))}</p></section>',
        "</main>",
    ]
    return page(f"Review: {_players(tags)} ({record.game_type})", "".join(body))


def replay_page(game_string: str, title: str, facts: Sequence[str] = (), links: str = "") -> str:
    """A light replay page of a game: the viewer and the move list, no analysis.

    ``links``: HTML put under the header (e.g. back to the report, the PGN).
    """
    fields = read_game_string(game_string)
    moves = fields.moves
    boards = _positions(Board(fields.game_type), moves)
    captions = ["start"] + [f"{ply}. {m}" for ply, m in enumerate(moves, 1)]  # plies, numbered as in a PGN
    items = "".join(f'<li data-ply="{i}">{escape(m)}</li>' for i, m in enumerate(moves, 1))
    body = (_header(title, facts, links) + '<main class="game">' + _viewer(boards, captions)
            + f'<section class="analysis"><h2>Moves</h2><ol class="movelist">{items}</ol></section></main>')
    return page(title, body)


# --- the evaluation graph of the review page ------------------------------------------

# Scores past this (4 queen cells ahead) are drawn at the edge: the game is decided
# by then, and a forced win (about a million) would flatten everything else.
GRAPH_CAP = 400
GRAPH_MARK_COLORS = {"?": "#f08c00", "??": "#e03131"}


def eval_graph(
    scores: Sequence[int | None],
    *,
    marks: Sequence[str] = (),
    labels: Sequence[str] = (),
    width: int = 720,
    height: int = 180,
) -> str:
    """An SVG graph of a game's evaluation, from White's view (up: White is better).

    ``scores[i]`` is the score after ply ``i`` (``scores[0]``: the start), None
    where unknown (left out of the line). ``marks[i]`` (``?``/``??``) marks a
    mistake or blunder on ply ``i``; ``labels[i]`` is its tooltip. Every point
    is a ``circle`` with ``data-ply`` and ``data-score`` (the score drawn,
    uncapped), for a page to make clickable.
    """
    n = max(len(scores) - 1, 1)
    pad = 6.0

    def px(i: int) -> float:
        return pad + (width - 2 * pad) * i / n

    def py(score: int) -> float:
        s = max(-GRAPH_CAP, min(GRAPH_CAP, score))
        return height / 2 - (height / 2 - pad) * s / GRAPH_CAP

    known = [(i, s) for i, s in enumerate(scores) if s is not None]
    mid = height / 2
    out = [f'<svg xmlns="{SVG_NS}" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           'class="eval-graph" role="img">',
           "<title>Evaluation from White's view</title>",
           f'<rect width="{width}" height="{height}" fill="#3a3733"/>']
    if known:
        line = " ".join(f"{px(i):.1f},{py(s):.1f}" for i, s in known)
        area = f"{px(known[0][0]):.1f},{mid:.1f} {line} {px(known[-1][0]):.1f},{mid:.1f}"
        out.append(f'<polygon points="{area}" fill="#f3eee0"/>')
        out.append(f'<polyline points="{line}" fill="none" stroke="#c9a227" stroke-width="1.5"/>')
    out.append(f'<line x1="0" y1="{mid}" x2="{width}" y2="{mid}" stroke="#8d8471" stroke-width="1"/>')
    for i, s in known:
        mark = marks[i] if i < len(marks) else ""
        title = labels[i] if i < len(labels) else f"ply {i}"
        fill = GRAPH_MARK_COLORS.get(mark, "#c9a227")
        r = 5 if mark else 3
        out.append(f'<circle class="point{" marked" if mark else ""}" data-ply="{i}" data-score="{s}" '
                   f'data-mark="{mark}" cx="{px(i):.1f}" cy="{py(s):.1f}" r="{r}" fill="{fill}" '
                   f'stroke="#1f1b16" stroke-width="1"><title>{escape(title, quote=False)}</title></circle>')
    out.append("</svg>")
    return "".join(out)
