"""Command-line helpers for ``hiveai tournament`` that click does not provide.

Cheap to import (click only): ``hiveai.cli`` imports it at start-up.
"""

from __future__ import annotations

import click

SPRT_USAGE = "--sprt ELO0 ELO1 [ALPHA BETA]"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class TournamentCommand(click.Command):
    """A click command whose ``--sprt`` takes 2 or 4 numbers, as in ``--sprt 0 10 0.05 0.05``.

    click options have a fixed number of values, so before parsing, ``--sprt``
    and the numbers after it (up to four) are joined into one value.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(args):
            if args[i] == "--sprt":
                j = i + 1
                while j < len(args) and j - i <= 4 and _is_number(args[j]):
                    j += 1
                out.append("--sprt=" + " ".join(args[i + 1:j]))
                i = j
            else:
                out.append(args[i])
                i += 1
        return super().parse_args(ctx, out)


def parse_sprt(text: str | None) -> list[float] | None:
    """``"ELO0 ELO1 [ALPHA BETA]"`` to ``[elo0, elo1, alpha, beta]`` (defaults 0.05, 0.05)."""
    if text is None:
        return None
    from hiveai.tournament.stats import ALPHA, BETA, Sprt

    values = text.replace(",", " ").split()
    if len(values) not in (2, 4) or not all(_is_number(v) for v in values):
        raise click.BadParameter(f"expected {SPRT_USAGE}, got {text!r}", param_hint="--sprt")
    numbers = [float(v) for v in values] + ([ALPHA, BETA] if len(values) == 2 else [])
    try:
        Sprt(*numbers)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--sprt") from None
    return numbers
