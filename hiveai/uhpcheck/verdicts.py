"""What a case concludes, and the report made of the conclusions.

Every case ends as one of:

* ``pass``: the engine does what the protocol or the rules say;
* ``fail``: it does not; the report shows the exchange that failed;
* ``note``: it follows a documented convention that differs from Mzinga's,
  recognised by what the engine does, never by its name (see :data:`NOTES`);
* ``skip``: the case cannot run here (a game type the engine does not
  announce), or a flaw another case has reported already stops it (the
  message names the flaw and that case).

>>> Result("eof", "protocol", FAIL, "did not exit").line()
'FAIL  eof               did not exit'
>>> summary([Result("eof", "protocol", FAIL, "did not exit")])
{'pass': 0, 'fail': 1, 'note': 0, 'skip': 0}
"""

from __future__ import annotations

import collections
import json
from dataclasses import asdict, dataclass, field
from typing import Sequence

PASS, FAIL, NOTE, SKIP = "pass", "fail", "note", "skip"

# Documented differences between engines' conventions, reported as notes. Each is recognised by
# behaviour in the case named; the key is the note's name in the report and the JSON.
NOTES = {
    "whole-seconds": (
        "answers err to a `bestmove time` with a fraction of a second and takes whole seconds "
        "(nokamute's convention: src/uhp_server.rs in https://github.com/edre/nokamute); MzingaViewer "
        "sends fractions such as 00:00:02.5000000"),
    "threefold-repetition": (
        "declares Draw on threefold repetition (nokamute's Rules::get_winner, "
        "https://github.com/edre/nokamute, and the Hive website hivegame.com); Mzinga has no draw by "
        "repetition, so MzingaViewer keeps asking for moves"),
    "no-sigint": (
        "does not answer a running bestmove at SIGINT; UHP does not require it, but MzingaViewer's "
        "Cancel button sends SIGINT (src/Mzinga.Viewer/CLIEngineWrapper.cs)"),
}


class CaseFailed(Exception):
    """Raised by a case: the engine broke the expectation ``args[0]`` describes."""


@dataclass
class Result:
    """One case's verdict: ``status`` is pass, fail, note or skip; ``exchange`` the
    lines around a failure (``> sent``, ``< received``)."""

    name: str
    group: str
    status: str
    message: str
    exchange: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """The report line: status, name, message."""
        return f"{self.status.upper():5} {self.name:17} {self.message}".rstrip()


class NoteMessage(str):
    """A case's message that carries the names of the notes it found."""

    notes: list[str]

    def __new__(cls, text: str, notes: Sequence[str]) -> NoteMessage:
        obj = super().__new__(cls, text)
        obj.notes = list(notes)
        return obj


def noted(message: str, *names: str) -> tuple[str, NoteMessage]:
    """A note verdict naming documented conventions (keys of :data:`NOTES`)."""
    return NOTE, NoteMessage(message + "".join(f" [{n}: {NOTES[n]}]" for n in names), names)


def summary(results: Sequence[Result]) -> dict[str, int]:
    """Counts by status."""
    counts = collections.Counter(r.status for r in results)
    return {s: counts.get(s, 0) for s in (PASS, FAIL, NOTE, SKIP)}


def report(results: Sequence[Result], seconds: float) -> str:
    """The readable report: a line per case, the exchange under each failure, a summary."""
    out = []
    for r in results:
        out.append(r.line().split("\n")[0])
        for extra in r.message.split("\n")[1:]:
            out.append(" " * 24 + extra)
        if r.exchange:
            out.append(" " * 6 + "exchange (last lines):")
            out += [" " * 8 + ln for ln in r.exchange[-12:]]
    s = summary(results)
    out.append(f"{s[PASS]} passed, {s[FAIL]} failed, {s[NOTE]} notes, {s[SKIP]} skipped in {seconds:.1f} s")
    return "\n".join(out)


def as_json(results: Sequence[Result], seconds: float, command: Sequence[str]) -> str:
    """The results as one JSON object, for scripts."""
    return json.dumps({"command": list(command), "seconds": round(seconds, 2), "summary": summary(results),
                       "cases": [asdict(r) for r in results]}, indent=1)
