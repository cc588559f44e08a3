"""Standings: game records counted into tables, the progress line and the SPRT state.

Everything is computed from the finished games' records (the dicts of
``games.jsonl``) and nothing else, in an order-independent way, so a resumed
tournament shows exactly the standings of an uninterrupted one. The
statistics themselves are in :mod:`hiveai.tournament.stats`.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from hiveai.rules.outcome import BLACK, FORFEITS, WHITE, Termination, points
from hiveai.text import plural
from hiveai.tournament.stats import EloEstimate, Sprt, pair_points, pentanomial_elo, wdl_elo


@dataclass
class Tally:
    """Results from one side's point of view: W/D/L and game-pair buckets [LL, LD, WL+DD, WD, WW]."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    def add(self, score: float) -> None:
        if score == 1:
            self.wins += 1
        elif score == 0:
            self.losses += 1
        else:
            self.draws += 1

    def elo(self) -> EloEstimate:
        return wdl_elo(self.wins, self.draws, self.losses)

    def pair_elo(self) -> EloEstimate:
        return pentanomial_elo(self.pentanomial)


def score_of(record: dict, name: str) -> float:
    """1, 0.5 or 0: what ``name`` (one of the game's two engines) scored in this game."""
    return points(record["result"], WHITE if record["white"] == name else BLACK)


def complete_pairs(records: list[dict]) -> dict[tuple[str, str, int], tuple[dict, dict]]:
    """Game pairs with both games finished, by (first engine, second engine, opening index)."""
    by_pair: dict[tuple[str, str, int], list[dict]] = {}
    for r in records:
        by_pair.setdefault((r["pairing"][0], r["pairing"][1], r["pair"]), []).append(r)
    return {k: (v[0], v[1]) for k, v in by_pair.items() if len(v) == 2}


def tallies(records: list[dict], names: list[str]) -> tuple[dict[str, Tally], dict[tuple[str, str], Tally]]:
    """Each engine against the field, and each encounter from its first engine's side."""
    engines = {n: Tally() for n in names}
    encounters: dict[tuple[str, str], Tally] = {}
    for r in records:
        a, b = r["pairing"]
        encounters.setdefault((a, b), Tally()).add(score_of(r, a))
        engines[a].add(score_of(r, a))
        engines[b].add(score_of(r, b))
    for (a, b, _), games in complete_pairs(records).items():
        bucket = pair_points(*(score_of(g, a) for g in games))
        encounters.setdefault((a, b), Tally()).pentanomial[bucket] += 1
        engines[a].pentanomial[bucket] += 1
        engines[b].pentanomial[4 - bucket] += 1
    return engines, encounters


@dataclass(frozen=True)
class SprtState:
    """The SPRT on the longest run of complete game pairs in schedule order.

    Using the schedule's prefix (not whichever games happened to finish first)
    makes the decision, and the game pair it is taken at, the same on every
    run, however many games run in parallel.
    """

    llr: float
    lower: float
    upper: float
    pairs: int
    decision: str | None


def sprt_state(sprt: Sprt, records: list[dict], first: str) -> SprtState:
    pairs = complete_pairs(records)
    by_index = {k[2]: v for k, v in pairs.items()}
    penta = [0] * 5
    lower, upper = sprt.bounds
    llr, n, decision = 0.0, 0, None
    while n in by_index:  # the SPRT is checked after every pair, as if played in order
        penta[pair_points(*(score_of(g, first) for g in by_index[n]))] += 1
        n += 1
        llr = sprt.llr(penta)
        decision = sprt.decision(llr)
        if decision:
            break
    return SprtState(llr, lower, upper, n, decision)


# --- text ---------------------------------------------------------------------


def _elo_text(e: EloEstimate) -> str:
    if e.n == 0:
        return "-"
    if math.isinf(e.elo):
        return f"{'+' if e.elo > 0 else '-'}inf"
    err = "inf" if math.isinf(e.error) or math.isnan(e.error) else f"{e.error:.1f}"
    return f"{e.elo:+.1f} ± {err}"


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}%"


def _table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def standings_table(records: list[dict], names: list[str]) -> tuple[list[str], list[list[str]], set[int]]:
    """The standings: header, one row per engine best first, and the numeric columns."""
    engines, _ = tallies(records, names)
    order = sorted(names, key=lambda n: (-(engines[n].points / engines[n].games if engines[n].games else 0),
                                         names.index(n)))
    head = ["Rank", "Engine", "Games", "W", "D", "L", "Score", "Elo ± 95%", "LOS", "Pairs [0-2]", "Elo (pairs)"]
    rows = []
    for rank, n in enumerate(order, 1):
        t = engines[n]
        e = t.elo()
        rows.append([str(rank), n, str(t.games), str(t.wins), str(t.draws), str(t.losses),
                     _pct(t.points / t.games if t.games else math.nan), _elo_text(e), _pct(e.los),
                     str(t.pentanomial), _elo_text(t.pair_elo())])
    return head, rows, {0, 2, 3, 4, 5, 6, 7, 8, 10}


def encounters_table(records: list[dict], names: list[str]) -> tuple[list[str], list[list[str]], set[int]]:
    """The Elo table of each encounter (first engine's view): header, rows, numeric columns."""
    _, encounters = tallies(records, names)
    head = ["Encounter", "Games", "+", "=", "-", "Score", "Elo ± 95%", "LOS", "Pairs [0-2]", "Elo (pairs)",
            "LOS (pairs)"]
    rows = []
    for (a, b), t in encounters.items():
        e, p = t.elo(), t.pair_elo()
        rows.append([f"{a} vs {b}", str(t.games), str(t.wins), str(t.draws), str(t.losses),
                     _pct(t.points / t.games if t.games else math.nan), _elo_text(e), _pct(e.los),
                     str(t.pentanomial), _elo_text(p), _pct(p.los)])
    return head, rows, {1, 2, 3, 4, 5, 6, 7, 9, 10}


STANDINGS_TITLE = "Standings after {done} of {total} games (Elo against the field, logistic, 95% interval)"
ENCOUNTERS_TITLE = "Encounters (first engine's view; pairs: [LL, LD, WL+DD, WD, WW] over complete game pairs)"


def standings_text(records: list[dict], names: list[str], total: int, sprt: Sprt | None = None) -> str:
    """The standings table, encounters, how games ended and the SPRT, as plain text."""
    lines = [STANDINGS_TITLE.format(done=len(records), total=total)]
    lines += _table(*standings_table(records, names))
    lines.append("")
    lines.append(ENCOUNTERS_TITLE)
    lines += _table(*encounters_table(records, names))
    lines += standings_notes(records, names, sprt)
    return "\n".join(lines) + "\n"


def standings_notes(records: list[dict], names: list[str], sprt: Sprt | None = None) -> list[str]:
    """The lines under the tables: how games ended, forfeits, flags, the SPRT ("" separates groups)."""
    lines = []
    reasons = Counter(r["reason"] for r in records)
    if reasons:
        lines.append("")
        lines.append("Game ends: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    forfeits = Counter((r["forfeit"], r["reason"]) for r in records if r["reason"] in FORFEITS)
    if forfeits:
        lines.append("Forfeits: " + ", ".join(f"{n} {why} {c}" for (n, why), c in sorted(forfeits.items())))
    # A draw claim the referee honoured ends its game (reason ENGINE_DRAW) and leaves one flag, which the
    # game ends above already count; any other flag is an engine's result the referee did not see.
    disputed = sum(1 for r in records if len(r.get("flags") or ()) > (r["reason"] == Termination.ENGINE_DRAW))
    if disputed:
        lines.append(f"Games with flags (an engine declared a result the referee did not see): {disputed}")
    if sprt is not None:
        first = names[0]
        s = sprt_state(sprt, records, first)
        verdict = {"H0": "H0 accepted", "H1": "H1 accepted", None: "undecided"}[s.decision]
        lines.append("")
        lines.append(f"SPRT [{sprt.elo0:g}, {sprt.elo1:g}] alpha {sprt.alpha:g} beta {sprt.beta:g} for {first}: "
                     f"LLR {s.llr:.2f} ({s.lower:.2f}, {s.upper:.2f}) after {plural(s.pairs, 'pair')}: {verdict}")
    return lines


def progress_line(records: list[dict], names: list[str], total: int, sprt: Sprt | None = None) -> str:
    """One line: games done, every engine's score, and the SPRT's LLR with its bounds."""
    engines, _ = tallies(records, names)
    parts = [f"{len(records)}/{total} games"]
    for n in names:
        t = engines[n]
        parts.append(f"{n} +{t.wins} ={t.draws} -{t.losses} {_pct(t.points / t.games if t.games else math.nan)}")
    if len(names) == 2:
        parts.append(f"Elo {_elo_text(engines[names[0]].elo())}")
    if sprt is not None:
        s = sprt_state(sprt, records, names[0])
        parts.append(f"LLR {s.llr:.2f} ({s.lower:.2f}, {s.upper:.2f})")
    return " | ".join(parts)
