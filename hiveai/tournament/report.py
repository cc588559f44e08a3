"""The tournament's HTML report: ``report.html`` beside ``standings.txt``, and a replay page per game.

``report.html`` holds the standings and the Elo table of each encounter (the
same rows as ``standings.txt``), the notes under them and the list of games,
each linked to its replay page ``replays/<id>.html`` (:func:`hiveai.analysis.pages.replay_page`:
the board with step buttons and the move list) and its PGN; the folder's layout is
:mod:`hiveai.tournament.layout`. Everything is
computed from the game records, like the standings, so a resumed run writes
the same report.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from hiveai.analysis.pages import page, replay_page, table
from hiveai.text import plural
from hiveai.tournament.layout import REPORT_FILE, pgn_path, replay_path
from hiveai.tournament.schedule import TournamentConfig
from hiveai.tournament.standings import (
    ENCOUNTERS_TITLE,
    STANDINGS_TITLE,
    encounters_table,
    standings_notes,
    standings_table,
)
from hiveai.tournament.stats import Sprt


def _pgn_link(record: dict) -> str:
    """The game's PGN relative to the output directory."""
    return pgn_path(Path(), record).as_posix()


def replay_html(record: dict, game_type: str) -> str:
    """The replay page of one finished game (a ``games.jsonl`` record)."""
    title = f"{record['white']} \u2013 {record['black']} ({record['id']})"
    facts = [f"{game_type} \u00b7 {record['result']} \u00b7 {record['reason']}: {record['detail']}",
             f"{plural(record['plies'], 'ply', 'plies')}, the first {record['opening_plies']} from the opening"]
    links = (f'<a href="../{REPORT_FILE}">tournament report</a> \u00b7 '
             f'<a href="../{escape(_pgn_link(record))}">PGN</a>')
    return replay_page(record["game_string"], title, facts, links)


def report_html(records: list[dict], config: TournamentConfig, total: int, sprt: Sprt | None = None) -> str:
    """The whole ``report.html`` for the games finished so far."""
    names = config.names
    mode = "gauntlet" if config.gauntlet else "round-robin"
    facts = [f"{len(names)} engines, {mode}, {config.game_type}, {config.games} games per encounter, "
             f"openings: {config.opening_source}"]
    facts += [f"{e.name}: {' '.join(e.command)} [bestmove {e.go}]"
              + "".join(f" {k}={v}" for k, v in e.options) for e in config.engines]
    head, rows, numeric = standings_table(records, names)
    body = ["<header><h1>hiveai tournament</h1>", *(f'<p class="facts">{escape(f)}</p>' for f in facts),
            "</header><main>",
            f"<h2>{escape(STANDINGS_TITLE.format(done=len(records), total=total))}</h2>",
            table(head, rows, numeric=numeric)]
    head, rows, numeric = encounters_table(records, names)
    body += [f"<h2>{escape(ENCOUNTERS_TITLE)}</h2>", table(head, rows, numeric=numeric)]
    notes = [n for n in standings_notes(records, names, sprt) if n]
    body += [f"<p>{escape(n)}</p>" for n in notes]
    body.append("<h2>Games</h2><div class=\"scroll\"><table><thead><tr><th>Game</th><th>White</th><th>Black</th>"
                "<th>Result</th><th>How</th><th class=\"num\">Plies</th><th>PGN</th></tr></thead><tbody>")
    for r in sorted(records, key=lambda r: r["index"]):
        body.append(f'<tr><td><a href="{escape(replay_path(Path(), r).as_posix())}">{escape(r["id"])}</a></td>'
                    f'<td>{escape(r["white"])}</td><td>{escape(r["black"])}</td><td>{escape(r["result"])}</td>'
                    f'<td>{escape(r["reason"])}</td><td class="num">{r["plies"]}</td>'
                    f'<td><a href="{escape(_pgn_link(r))}">PGN</a></td></tr>')
    body.append("</tbody></table></div></main>")
    return page("hiveai tournament report", "".join(body), script=False)
