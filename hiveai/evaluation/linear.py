"""Static evaluation: how good a position is for the side to move.

Hive is won by filling the six cells around the enemy queen, so the
evaluation is built around queen mobility, what every strong engine's
evaluation has in common (docs/protocol-notes.md, section 4):

* **Queen neighbours.** Each occupied cell next to a queen counts against
  that queen's owner. An enemy piece there is worst (it stays to finish the
  job); a friendly piece that cannot move away is nearly as bad (it fills a
  cell we cannot free); a friendly piece that can leave counts less. Danger
  grows faster than linearly: the fifth neighbour is one move from defeat.
* **Attackers.** Free cells around a queen matter only if enemy pieces can
  reach them: mobile enemy ants, beetles, mosquitoes, ladybugs reach almost
  any cell, spiders and grasshoppers fewer. Their count, up to the number of
  free cells, adds danger.
* **Mobility.** A piece that can move is worth its bug value; one that cannot
  (pinned by the One Hive rule, covered by a beetle, a crawler wedged in a
  gate, or any piece before its queen is down) is worth almost nothing.
  Pieces in hand are worth a fraction of their value: they can still come in.
* **Dragonfly (Critters).** It flies to any cell touching the hive two or
  more cells away, gates or not: it is valued like an ant, reaches a queen
  like one, and an enemy Dragonfly that can land on a free queen cell adds
  a threat of its own (a gate that shuts out crawlers does not stop it).
* **Beetles and pillbugs.** A beetle on top of a queen freezes it and covers
  it; a pillbug next to its own queen can throw attackers away (and lift the
  queen out) and is a strong defence.

Scores are ints from the side to move's point of view (negamax), in
hundredths of "one enemy piece next to a queen". Finished games score
``WIN - plies`` (see hiveai.search.score). All weights live here, each with where
its value came from; the fitted weights of some game types are in weights.ini,
which names the command that made each section and the record of its match.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import numpy as np

from hiveai.rules.borrow import counts_free
from hiveai.rules.bug import (
    ANT,
    CRITTERS,
    DRAGONFLY_INDEX,
    MOSQUITO,
    N_PIECES,
    PIECES_PER_COLOUR,
    PILLBUG,
    QUEEN,
    SPIDER,
)
from hiveai.durable import replace_atomically
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET
from hiveai.rules.movegen import (
    CRITTERS_KIND,
    GAME_TYPE_BITS,
    HOLE_BIT,
    KIND,
    find_pinned,
    slide_directions,
)
from hiveai.rules.position import GAME_TYPE, HEIGHT, LEVEL, PLY, POS, TOP, some_piece_cell
from hiveai.switches import weight_overrides

DRAW_SCORE = 0

# --- Weights ----------------------------------------------------------------
# Starting points from nokamute's BasicEvaluator at aggression 3
# (edre/nokamute, src/eval.rs), rescaled so that one enemy piece next to a queen is 100
# (nokamute: 36). A change is kept only when a match says it is stronger (the
# matches: docs/strength.md and its records). The kernel reads them from an int64
# array (indices W_*), so a tuning match can pit two weight sets against each
# other without two copies of the code (see weights_from_env).
WEIGHT_TABLE = (
    # Per piece next to a queen, against the queen's owner.
    ("queen_enemy", 100, "enemy piece next to the queen: nokamute 36 -> 100"),
    ("queen_stuck_friend", 80, "own piece next to it that cannot move away: nokamute 30 -> 83"),
    ("queen_free_friend", 40, "own piece next to it that can leave: nokamute 15 -> 42"),
    # Bestbot (boardspace) grows queen danger non-linearly, {0,5,10,15,40,80,120}
    # by neighbours; its excess over linear from the 4th neighbour, in our units.
    ("queen_crowd4", 60, "extra danger at 4 occupied neighbours (Bestbot's curve)"),
    ("queen_crowd5", 160, "extra danger at 5: one move from defeat (Bestbot's curve)"),
    ("queen_covered", 100, "enemy beetle on the queen: frozen and covered (Bestbot: buried +10 ~ 1 cell)"),
    ("queen_attacker", 15, "per enemy piece able to reach a free queen cell (guess: half a cell, discounted)"),
    ("pillbug_defence", 60, "own pillbug next to own queen (nokamute +120 at its scale when an escape exists)"),
    ("queen_mobile", 30, "the queen itself can move (Bestbot: mobile queen 0.5 of a neighbour)"),
    # Value of a piece that can move, by kind: nokamute's 2 x bug value x 2.8.
    ("mobile_queen", 0, "counted through queen_mobile"),
    ("mobile_spider", 12, "nokamute 4"),
    ("mobile_beetle", 34, "nokamute 12"),
    ("mobile_grasshopper", 12, "nokamute 4"),
    ("mobile_ant", 40, "nokamute 14"),
    ("mobile_mosquito", 34, "nokamute: what it copies; beetle-like on average"),
    ("mobile_ladybug", 34, "nokamute 12"),
    ("mobile_pillbug", 28, "nokamute 10"),
    ("mobile_dragonfly", 40, "Critters: flies almost anywhere an ant goes (guess: the ant's value)"),
    # dragonfly_threat and mobile_dragonfly: first guesses that beat their removal by less than
    # the error bars (docs/measurements/2026-12-01-critters.md).
    ("dragonfly_threat", 40, "Critters: enemy Dragonfly can fly onto a free queen cell (guess)"),
    ("hand_percent", 50, "a piece in hand, % of its mobile value (nokamute 1x in hand vs 2x mobile)"),
    ("pre_queen_percent", 50, "a side's pieces while its queen is in hand, % (they cannot move yet)"),
    ("tempo", 10, "having the move"),
)
WEIGHT_NAMES = tuple(name for name, _, _ in WEIGHT_TABLE)
_INDEX = {name: i for i, name in enumerate(WEIGHT_NAMES)}
W_QUEEN_ENEMY = _INDEX["queen_enemy"]
W_QUEEN_STUCK_FRIEND = _INDEX["queen_stuck_friend"]
W_QUEEN_FREE_FRIEND = _INDEX["queen_free_friend"]
W_QUEEN_CROWD4 = _INDEX["queen_crowd4"]
W_QUEEN_CROWD5 = _INDEX["queen_crowd5"]
W_QUEEN_COVERED = _INDEX["queen_covered"]
W_QUEEN_ATTACKER = _INDEX["queen_attacker"]
W_PILLBUG_DEFENCE = _INDEX["pillbug_defence"]
W_QUEEN_MOBILE = _INDEX["queen_mobile"]
W_MOBILE = _INDEX["mobile_queen"]  # then one per kind, in bug.py's kind order
W_HAND_PERCENT = _INDEX["hand_percent"]
W_PRE_QUEEN_PERCENT = _INDEX["pre_queen_percent"]
W_TEMPO = _INDEX["tempo"]
W_DRAGONFLY_THREAT = _INDEX["dragonfly_threat"]
assert WEIGHT_NAMES[W_MOBILE + 7] == "mobile_pillbug" and WEIGHT_NAMES[W_MOBILE + 8] == "mobile_dragonfly"

# Reach of a mobile enemy piece towards a queen's free cells, in percent of
# an ant's (ants and climbers get almost anywhere; spiders and grasshoppers
# are constrained): Bestbot's per-bug distance multipliers, simplified.
# The Dragonfly (last) reaches like an ant.
ATTACK_REACH = np.array([0, 50, 100, 50, 100, 100, 100, 50, 100], dtype=np.int64)


def default_weights() -> np.ndarray:
    """The weights above, as the kernel reads them."""
    return np.array([value for _, value, _ in WEIGHT_TABLE], dtype=np.int64)


# The weights hiveai plays with: weights.ini's sections (each names the command that
# fitted it and the record of its match), over the table above for the game types
# without one.
# Package data, found with importlib.resources (pyproject.toml [tool.setuptools.package-data]).
SHIPPED_WEIGHTS_FILE = Path(str(resources.files("hiveai.evaluation").joinpath("weights.ini")))


def builtin_weights() -> dict[str, np.ndarray]:
    """The shipped weights by game type (see :func:`read_weights_file`)."""
    return read_weights_file(SHIPPED_WEIGHTS_FILE)


def weights_from_env() -> dict[str, np.ndarray]:
    """The shipped weights, with the overrides of $HIVEAI_WEIGHTS (a tuning
    switch: :mod:`hiveai.switches`) applied to every game type's set."""
    overrides = weight_overrides(WEIGHT_NAMES)
    sets = builtin_weights()
    for w in sets.values():
        for name, value in overrides.items():
            w[_INDEX[name]] = value
    return sets


# --- Weights files (``hiveai tune`` writes them, the UHP option EvalFile loads them) ---
# INI sections: ``[*]`` for every game type, ``[Base+MLP]`` (any GameTypeString)
# for one; each line ``name = value``. A game type's weights are the built-in
# ones, then ``[*]``'s, then its own section's.
ALL_GAME_TYPES = "*"


def read_weights_file(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Weights by game type (key ``*`` or a canonical GameTypeString) from a weights file.

    Raises ValueError naming the file and the problem: missing or unreadable, not
    INI, an unknown section, weight name or a value that is not a whole number.
    """
    import configparser

    from hiveai.rules.bug import game_type_string, parse_game_type

    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",), comment_prefixes=("#", ";"))
    parser.optionxform = str  # weight names are case-sensitive
    try:
        with open(path, encoding="utf-8") as f:
            parser.read_file(f)
    except OSError as e:
        raise ValueError(f"cannot read weights file '{path}': {e.strerror or e}") from None
    except (configparser.Error, UnicodeDecodeError) as e:
        raise ValueError(f"weights file '{path}' is not a weights file: {_one_line(e)}") from None
    raw: dict[str, dict[str, int]] = {}
    for section in parser.sections():
        if section == ALL_GAME_TYPES:
            key = section
        else:
            gt = parse_game_type(section)
            if gt is None:
                raise ValueError(f"weights file '{path}': [{section}] is not a game type "
                                 "(use * or a GameTypeString such as Base+MLP)")
            key = game_type_string(gt)
        values = raw.setdefault(key, {})
        for name, text in parser.items(section):
            if name not in WEIGHT_NAMES:
                raise ValueError(f"weights file '{path}': '{name}' in [{section}] is not a weight "
                                 f"(the weights are {', '.join(WEIGHT_NAMES)})")
            try:
                values[name] = int(text)
            except ValueError:
                raise ValueError(f"weights file '{path}': {name} = {text} in [{section}] "
                                 "is not a whole number") from None
    if not raw:
        raise ValueError(f"weights file '{path}' has no [*] or game type section")
    common = default_weights()
    for name, value in raw.get(ALL_GAME_TYPES, {}).items():
        common[_INDEX[name]] = value
    sets = {ALL_GAME_TYPES: common}
    for key, values in raw.items():
        if key != ALL_GAME_TYPES:
            w = common.copy()
            for name, value in values.items():
                w[_INDEX[name]] = value
            sets[key] = w
    return sets


def write_weights_file(path: str | os.PathLike, sets: dict[str, np.ndarray], header: str = "",
                       notes: dict[str, str] | None = None) -> None:
    """Write weights by game type (as :func:`read_weights_file` returns them), every
    weight in every section, with ``header`` as comment lines on top and ``notes``
    (by section) as comment lines above a section (what made it)."""
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    for key in sorted(sets, key=lambda k: (k != ALL_GAME_TYPES, k)):
        lines.append("")
        lines += [f"# {line}".rstrip() for line in (notes or {}).get(key, "").splitlines()]
        lines.append(f"[{key}]")
        lines += [f"{name} = {int(v)}" for name, v in zip(WEIGHT_NAMES, sets[key])]
    # Atomic, so an interrupted `hiveai tune` never leaves half a weights file behind.
    replace_atomically(path, "\n".join(lines).lstrip("\n") + "\n")


def weights_for(weights: np.ndarray | dict[str, np.ndarray], game_type: str) -> np.ndarray:
    """The weights a search of ``game_type`` uses: a single array serves every game type."""
    if isinstance(weights, dict):
        return weights.get(game_type, weights.get(ALL_GAME_TYPES, default_weights()))
    return weights


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


@counts_free(nogil=True)
def _nb(cell, d):
    return (cell + DIR_OFFSET[d]) & CELL_MASK


@counts_free(nogil=True)
def evaluate(b, ws, w):
    """Score of an unfinished position for the side to move (higher is better)."""
    return evaluate_pinned(b, ws, w, np.int64(-1))


@counts_free(nogil=True)
def evaluate_pinned(b, ws, w, pinned):
    """evaluate(), given the pinned-piece mask (movegen.find_pinned) when the
    caller knows it already (the search: movegen.pinned_after_move), else -1."""
    side = b[PLY] & 1
    root = some_piece_cell(b)
    if root < 0:
        return 0
    if pinned < 0:
        pinned = find_pinned(b, ws, root)
    critters = (b[GAME_TYPE] & GAME_TYPE_BITS) == CRITTERS
    kinds = CRITTERS_KIND if critters else KIND

    # Material and mobility, one pass over the pieces. ``mobile`` has bit p
    # for a piece p that can move; ``reach_*`` sum each colour's attack reach.
    # Mobility is judged as if the queen were down (exact for pins and cover;
    # crawlers need a slidable exit; a grasshopper always has a jump, a beetle
    # or ladybug almost always a step), then pieces of a side whose queen is
    # still in hand count at pre_queen_percent: they cannot move yet.
    white = 0
    black = 0
    mobile = 0
    reach_w = 0
    reach_b = 0
    for p in range(N_PIECES):
        c = b[POS + p]
        k = kinds[p]
        if c < 0:
            v = w[W_MOBILE + k] * w[W_HAND_PERCENT] // 100
            if p < PIECES_PER_COLOUR:
                white += v
            else:
                black += v
            continue
        if b[TOP + c] != p:
            continue  # covered: worth nothing while buried
        if b[LEVEL + p] == 0:
            if (pinned >> p) & 1:
                continue
            if k == QUEEN or k == SPIDER or k == ANT or k == PILLBUG:
                if slide_directions(b, c, c) == 0:
                    continue
            elif k == MOSQUITO:
                copies = False
                for d in range(6):
                    q = b[TOP + _nb(c, d)]
                    if q >= 0 and KIND[q] != MOSQUITO:
                        copies = True
                if not copies:
                    continue
        mobile |= 1 << p
        if p < PIECES_PER_COLOUR:
            white += w[W_MOBILE + k]
            reach_w += ATTACK_REACH[k]
        else:
            black += w[W_MOBILE + k]
            reach_b += ATTACK_REACH[k]
    if b[POS] < 0:
        white = white * w[W_PRE_QUEEN_PERCENT] // 100
        reach_w = 0
    if b[POS + PIECES_PER_COLOUR] < 0:
        black = black * w[W_PRE_QUEEN_PERCENT] // 100
        reach_b = 0

    # Queen safety: danger for each colour's own queen.
    for colour in range(2):
        base = colour * PIECES_PER_COLOUR
        qc = b[POS + base]
        if qc < 0:
            continue
        danger = 0
        nocc = 0
        # Attack reach of the enemy's mobile pieces not yet touching the queen.
        reach = reach_b if colour == 0 else reach_w
        for d in range(6):
            q = b[TOP + _nb(qc, d)]
            if q < 0:
                continue
            nocc += 1
            if (q >= PIECES_PER_COLOUR) != (colour == 1):
                danger += w[W_QUEEN_ENEMY]
                if (mobile >> q) & 1:
                    reach -= ATTACK_REACH[kinds[q]]
            elif (mobile >> q) & 1:
                danger += w[W_QUEEN_FREE_FRIEND]
                if kinds[q] == PILLBUG and b[LEVEL + q] == 0:
                    danger -= w[W_PILLBUG_DEFENCE]
            else:
                danger += w[W_QUEEN_STUCK_FRIEND]
        if nocc == 4:
            danger += w[W_QUEEN_CROWD4]
        elif nocc == 5:
            danger += w[W_QUEEN_CROWD5]
        top = b[TOP + qc]
        if top != base:
            danger += w[W_QUEEN_COVERED]
            if (mobile >> top) & 1:
                reach -= ATTACK_REACH[kinds[top]]
        elif (mobile >> base) & 1:
            danger -= w[W_QUEEN_MOBILE]
        # Attackers: enough reach for one more neighbour each, up to the free cells.
        attackers = max(reach, 0) // 100
        if attackers > 6 - nocc:
            attackers = 6 - nocc
        danger += w[W_QUEEN_ATTACKER] * attackers
        if critters:
            danger += w[W_DRAGONFLY_THREAT] * _dragonfly_threat(b, mobile, qc, (1 - colour) * PIECES_PER_COLOUR)
        if colour == 0:
            white -= danger
        else:
            black -= danger
    return (white - black if side == 0 else black - white) + w[W_TEMPO]



@counts_free(nogil=True)
def _dragonfly_threat(b, mobile, qc, enemy_base):
    """1 if the enemy Dragonfly can move and fly onto a free cell next to the
    queen on ``qc`` (one not beside the Dragonfly itself), else 0."""
    p = enemy_base + DRAGONFLY_INDEX
    dc = b[POS + p]
    if dc < 0 or not (mobile >> p) & 1 or HOLE_BIT[(dc - qc) & CELL_MASK] != 0:
        return 0
    for d in range(6):
        f = _nb(qc, d)
        if b[HEIGHT + f] == 0 and f != dc and HOLE_BIT[(f - dc) & CELL_MASK] == 0:
            return 1
    return 0
