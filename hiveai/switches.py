"""Tuning switches: environment variables a match sets to give one engine other settings.

A tuning match runs two hiveai engines that differ in one setting, e.g.
``hiveai tournament --engine new="env HIVEAI_SEARCH=nullmove=0 hiveai" --engine base=hiveai ...``.
Every switch is read here, in one format (docs/switches.md has the table):

* a variable holds ``name=value`` items separated by commas (spaces around
  them are ignored), or, for :data:`NODESTIME_ENV`, the one value alone;
* every value is a whole number;
* an unknown name or a value out of range is a :class:`ValueError` that names
  the variable, the item and what it may be. An unset or empty variable
  means the defaults.

The variables:

* :data:`SEARCH_ENV` (``HIVEAI_SEARCH``): search features, :data:`SEARCH_SWITCHES`;
* :data:`WEIGHTS_ENV` (``HIVEAI_WEIGHTS``): evaluation weights by name
  (:data:`hiveai.evaluation.linear.WEIGHT_NAMES`), over the shipped ones;
* :data:`NODESTIME_ENV` (``HIVEAI_NODESTIME``): nodes per second of a UHP
  ``bestmove time T``, which then searches ``T x N`` nodes instead of ``T``
  seconds (cutechess's "nodestime"), so a match does not depend on the
  machine's load.

This module imports nothing of hiveai's, so anything may read its switches.

>>> parse_items("HIVEAI_SEARCH", " nullmove=0 ", {"nullmove": (0, 1)})
{'nullmove': 0}
>>> parse_items("HIVEAI_SEARCH", "nullmove=2", {"nullmove": (0, 1)})
Traceback (most recent call last):
...
ValueError: HIVEAI_SEARCH: 'nullmove=2' is not one of nullmove=0|1
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

SEARCH_ENV = "HIVEAI_SEARCH"
WEIGHTS_ENV = "HIVEAI_WEIGHTS"
NODESTIME_ENV = "HIVEAI_NODESTIME"

# The search switches: name -> (default with the linear evaluation, default with a network, the
# values it takes). A switch takes only the values some default uses (the playing levels'
# hiveai.player.levels.CALIBRATED_SWITCHES are defaults too), each a pruning of
# hiveai.search.negamax at a null-window node:
# * rfp, reverse futility's margin per ply (0: off): at depth 1 to 3, with neither queen one cell
#   from surrounded, a static score at least margin x depth above beta stands for the node.
#   50 with the linear evaluation (docs/measurements/2026-12-04-base-retune.md), off with a
#   network (docs/measurements/2026-12-03-pruning.md, 2026-12-06-pruning-set2.md).
# * nullmove, the null move (1: on): at depth 3 or more, with a static score at least beta, the
#   side to move passes; if the opponent, searched shallower, still cannot bring the score under
#   beta, the node fails high. On with the linear evaluation, off with a network
#   (docs/measurements/2026-12-03-pruning.md, 2026-12-06-pruning-set2.md).
SEARCH_SWITCHES: dict[str, tuple[int, int, tuple[int, ...]]] = {
    "rfp": (50, 0, (0, 50)),
    "nullmove": (1, 0, (0, 1)),
}


def parse_items(variable: str, text: str, allowed: Mapping[str, Collection[int] | None]) -> dict[str, int]:
    """The ``name=value`` items of ``text`` (comma separated) as a dict.

    ``allowed`` maps each name to the values it takes, or None for any whole
    number. ``variable`` is named in the ValueError a bad item raises.
    """
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, eq, value = (part.strip() for part in item.partition("="))
        if not eq or name not in allowed:
            names = ", ".join(allowed)
            raise ValueError(f"{variable}: '{item}' is not name=value with a name from {names}")
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{variable}: '{item}' needs a whole number") from None
        choices = allowed[name]
        if choices is not None and number not in choices:
            raise ValueError(f"{variable}: '{item}' is not one of {name}={'|'.join(map(str, choices))}")
        out[name] = number
    return out


def search_switches(network: bool = False) -> dict[str, int]:
    """Every search switch: the value $HIVEAI_SEARCH gives it, else its default
    with the linear evaluation, or with a network if ``network``.

    >>> search_switches()["rfp"], search_switches(network=True)["rfp"]
    (50, 0)
    """
    values = {name: (net if network else linear) for name, (linear, net, _) in SEARCH_SWITCHES.items()}
    allowed = {name: choices for name, (_, _, choices) in SEARCH_SWITCHES.items()}
    values.update(parse_items(SEARCH_ENV, os.environ.get(SEARCH_ENV, ""), allowed))
    return values


def weight_overrides(names: Collection[str]) -> dict[str, int]:
    """The weights $HIVEAI_WEIGHTS sets, by name (any of ``names``); empty when unset."""
    return parse_items(WEIGHTS_ENV, os.environ.get(WEIGHTS_ENV, ""), dict.fromkeys(names))


def nodes_per_second() -> int:
    """Nodes per second of $HIVEAI_NODESTIME (a whole number >= 0); 0 when unset."""
    text = os.environ.get(NODESTIME_ENV, "").strip()
    if not text:
        return 0
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{NODESTIME_ENV} must be a whole number of nodes per second, not '{text}'.")
    return int(text)
