r"""Check any UHP engine against the protocol and the rules: ``hiveai uhp-check ENGINE...``.

The checker starts the engine with :func:`hiveai.engine.popen_uhp` and runs
*cases*, each a short conversation with an expectation taken from the
`Universal Hive Protocol <https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol>`_
and from the clients that speak it (MzingaViewer, the Hive website's bot
bridge hive-hydra), or from the rules, with hiveai's move generator
(:class:`hiveai.rules.board.Board`) as the reference. Every case ends as pass,
fail, note or skip (:mod:`hiveai.uhpcheck.verdicts`).

A difference in move generation is shrunk to the shortest game that still
shows it (moves are taken out while the difference stays) and printed as a
GameString with the moves each side has and the other lacks. A hang is waited
out once: a later case that meets it again stops as soon as the engine sits
idle (:mod:`hiveai.uhpcheck.harness`).

The package, in reading order:

* :mod:`hiveai.uhpcheck.check` (here): :func:`run_checks`, the entry point
  ``hiveai uhp-check`` calls, and the names it uses;
* :mod:`hiveai.uhpcheck.cases`: the cases, in report order;
* :mod:`hiveai.uhpcheck.harness`: the :class:`Checker`, which owns the engine
  process, gives the cases their verbs and remembers hangs;
* :mod:`hiveai.uhpcheck.reference`: hiveai's rules as the yardstick, and the
  shipped move sets and illegal moves (the two .tsv files beside it);
* :mod:`hiveai.uhpcheck.verdicts`: the statuses, the notes, the report and the JSON.

>>> [c.name for c in CASES][:3]
['banner', 'info', 'newgame']
"""

from __future__ import annotations

from typing import Sequence

from hiveai.uhpcheck.cases import CASES
from hiveai.uhpcheck.harness import Checker
from hiveai.uhpcheck.verdicts import FAIL, NOTE, PASS, SKIP, Result, as_json, report, summary

__all__ = ["CASES", "FAIL", "NOTE", "PASS", "SKIP", "Checker", "Result", "as_json", "report", "run_checks",
           "summary"]


def run_checks(command: Sequence[str], cases: Sequence[str] = (), **kwargs) -> list[Result]:
    """Run the cases (all, or those named) against ``command`` and return their results in order;
    ``kwargs`` are :class:`Checker`'s (quick, game_type, seed, timeout, progress).

    Raises ValueError for a case name that does not exist, before the engine is started.
    """
    unknown = [n for n in cases if n not in {c.name for c in CASES}]
    if unknown:
        raise ValueError(f"unknown case {', '.join(unknown)}; cases: {', '.join(c.name for c in CASES)}")
    return Checker(command, **kwargs).run([c for c in CASES if not cases or c.name in cases])
