"""HTML pages: the review page of ``analyse --game --html``, ``analyse --svg``, and the checker they are held to."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from html_check import check_html, parse_svg, svg_fragments

from hiveai.analysis.analyse import MoveReview, white_scores
from hiveai.rules.board import Board
from hiveai.cli import main
from hiveai.records import read_game
from hiveai.analysis.pages import eval_graph, replay_page

NS = "{http://www.w3.org/2000/svg}"
GAMES = Path(__file__).parent / "data" / "games"
GAME = GAMES / "HV-Abbo69-WeakBot-2018-10-28-2007.pgn"
REVIEW_FIELDS = set(MoveReview.__dataclass_fields__)


def test_the_checker_catches_bad_pages():
    good = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>'
            '<p id="a">x<br></p><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><g/></svg></body></html>')
    check_html(good)
    for bad in (good.replace("<!DOCTYPE html>\n", ""), good.replace("</p>", ""),
                good.replace('<p id="a">', '<p id="a"><b>'), good.replace("<br>", '<br id="a">'),
                good.replace("<g/>", "<g>"), good.replace('lang="en"', ""), good.replace("<br>", "<div/>"),
                good.replace("<title>t</title>", ""), good.replace("<br>", '<img src="https://x/y.png">')):
        with pytest.raises(AssertionError):
            check_html(bad)


def test_eval_graph_points_carry_their_scores():
    scores = [10, -30, None, 250, 100000, -5]
    root = parse_svg(eval_graph(scores, marks=["", "", "", "?", "??", ""], labels=list("abcdef")))
    points = [c for c in root.iter(NS + "circle")]
    assert [int(c.get("data-ply")) for c in points] == [0, 1, 3, 4, 5]
    assert [int(c.get("data-score")) for c in points] == [10, -30, 250, 100000, -5]
    assert [c.get("data-mark") for c in points] == ["", "", "?", "??", ""]
    ys = {int(c.get("data-ply")): float(c.get("cy")) for c in points}
    assert ys[4] < ys[3] < ys[0] < ys[5] < ys[1]  # up is better for White; past the cap at the edge
    assert float(next(c for c in points if c.get("data-ply") == "4").get("cy")) >= 0


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    """A depth-1 review of a real 31-move game, as JSON lines and as the HTML page."""
    out = tmp_path_factory.mktemp("review") / "review.html"
    result = CliRunner().invoke(main, ["analyse", "--game", str(GAME), "--depth", "1", "--json", "--html", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    reviews = [MoveReview(**{k: v for k, v in d.items() if k in REVIEW_FIELDS}) for d in lines if d["type"] == "move"]
    return reviews, lines[-1], out.read_text(encoding="utf-8")


def test_review_page_is_valid_html5_with_well_formed_svg(review):
    _, _, html = review
    check_html(html)
    assert "<script>" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "@media print" in html and 'name="viewport"' in html and "@media (min-width" in html


def test_review_page_header_moves_and_summary(review):
    reviews, summary, html = review
    record = read_game(GAME)
    assert "Abbo69 \u2013 WeakBot" in html and record.game_type in html and "WhiteWins" in html
    assert record.tags["Date"] in html and "depth 1 per position" in html
    rows = re.findall(r'<tr data-ply="(\d+)"[^>]*>(.*?)</tr>', html)
    assert [int(n) for n, _ in rows] == list(range(1, len(record.moves) + 1))
    for (_, row), r in zip(rows, reviews):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        best = "=" if r.engine_move else r.best
        assert [cells[1], cells[2], cells[5]] == [r.move, r.mark, best]
    for label, key in (("moves", "moves"), ("mistakes (?, loss &gt;= 100)", "mistakes"),
                       ("blunders (??, loss &gt;= 200)", "blunders"), ("book moves", "book_moves")):
        assert (f'<tr><td>{label}</td><td class="num">{summary["white"][key]}</td>'
                f'<td class="num">{summary["black"][key]}</td></tr>') in html


def test_graph_points_are_the_reviews_scores_from_whites_view(review):
    reviews, _, html = review
    graph = parse_svg(next(s for s in svg_fragments(html) if 'class="eval-graph"' in s))
    points = {int(c.get("data-ply")): c for c in graph.iter(NS + "circle")}
    expected = white_scores(reviews)
    assert len(expected) == len(reviews) + 1
    assert {i: int(c.get("data-score")) for i, c in points.items()} == \
        {i: s for i, s in enumerate(expected) if s is not None}
    for r in reviews:  # White's view: a score after a Black move is negated
        if r.after is not None:
            assert int(points[r.number].get("data-score")) == (r.after if r.colour == "White" else -r.after)
        assert points[r.number].get("data-mark") == r.mark
    assert reviews[-1].state_after == "WhiteWins" and int(points[len(reviews)].get("data-score")) > 0


def test_a_diagram_per_mistake_with_played_and_engine_arrows(review):
    reviews, _, html = review
    marked = [r for r in reviews if r.mark]
    assert marked, "the test game has mistakes at depth 1"
    figures = re.findall(r'<figure data-ply="(\d+)">(.*?)</figure>', html, re.S)
    assert [int(n) for n, _ in figures] == [r.number - 1 for r in marked]
    for (_, fig), r in zip(figures, marked):
        root = parse_svg(svg_fragments(fig)[0])
        arrows = {g.get("data-move"): g for g in root.iter(NS + "g") if g.get("class") == "arrow"}
        assert r.move in arrows and (r.engine_move or r.best in arrows)
        assert r.after_text in fig


def test_one_position_per_ply_and_the_final_one_shown(review):
    reviews, _, html = review
    positions = re.findall(r'<div class="pos"( hidden)?>', html)
    assert len(positions) == len(reviews) + 1
    assert [bool(h) for h in positions] == [True] * len(reviews) + [False]
    final = read_game(GAME).to_board()
    shown = html.split('<div class="pos">')[-1]
    assert f"after {final.ply} plies: {final.state}, {final.turn_string}, last move {final.move_history[-1]}" in shown


def test_analyse_svg_draws_the_best_move(tmp_path):
    out = tmp_path / "pos.svg"
    position = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-"
    result = CliRunner().invoke(main, ["analyse", position, "--depth", "2", "--json", "--svg", str(out)])
    assert result.exit_code == 0, result.output
    best = json.loads(result.stdout.splitlines()[-1])["move"]
    root = parse_svg(out.read_text())
    arrows = [g.get("data-move") for g in root.iter(NS + "g") if g.get("class") == "arrow"]
    assert arrows == [best]
    assert {g.get("data-piece") for g in root.iter(NS + "g") if g.get("class") == "piece"} >= {"wS1", "bS1", "wQ"}


@pytest.mark.parametrize("args, words", [
    (["--game", "{missing}", "--html", "{out}"], "does not exist"),
    (["--game", "{garbage}", "--html", "{out}"], "Malformed"),
    (["--game", "{game}", "--html", "{nodir}"], "there is no directory"),
    (["--game", "{game}", "--html", "{tmp}"], "is a directory"),
    (["Base", "--svg", "{nodir}"], "there is no directory"),
    (["--game", "{game}", "--svg", "{out}"], "--svg draws one position"),
    (["Base", "--html", "{out}"], "--html writes a game review"),
])
def test_bad_files_name_the_problem(tmp_path, args, words):
    garbage = tmp_path / "garbage.pgn"
    garbage.write_text("not a game\n")
    names = {"missing": tmp_path / "none.pgn", "garbage": garbage, "game": GAME, "out": tmp_path / "o.html",
             "nodir": tmp_path / "no" / "o.html", "tmp": tmp_path}
    result = CliRunner().invoke(main, ["analyse", "--depth", "1", *(a.format(**names) for a in args)])
    assert result.exit_code != 0 and words in result.output, result.output
    assert not (tmp_path / "o.html").exists()


def test_write_failure_after_the_search_is_a_clear_error(tmp_path, monkeypatch):
    """The picture is written whole or not at all: a failed write names the file and the problem,
    leaves the old file as it was and no temporary file beside it."""
    import os

    out = tmp_path / "o.svg"
    out.write_text("the old picture")

    def refuse(src, dst):  # the rename over the old file fails, after the new text is written
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = CliRunner().invoke(main, ["analyse", "Base", "--depth", "1", "--svg", str(out)])
    assert result.exit_code == 1 and f"--svg: cannot write {out}: Permission denied" in result.output
    assert out.read_text() == "the old picture" and [p.name for p in tmp_path.iterdir()] == ["o.svg"]


def test_replay_page_steps_through_every_ply():
    board = Board.parse("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    html = replay_page(board.game_string(), "a \u2013 b", ["Base \u00b7 InProgress"], '<a href="x.pgn">PGN</a>')
    check_html(html)
    assert len(re.findall(r'<div class="pos"', html)) == board.ply + 1
    assert re.findall(r'<li data-ply="(\d+)">', html) == ["1", "2", "3", "4"]
    assert 'data-step="-1"' in html and 'data-step="1"' in html
    for frag in svg_fragments(html):
        ET.fromstring(frag)
