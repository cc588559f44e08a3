"""The ``hiveai`` command.

``hiveai`` with no subcommand, and ``hiveai uhp``, run the UHP engine on
stdin/stdout. This module must stay cheap to import: the UHP banner has to
appear before numba loads, so heavy modules are imported inside commands.
"""

from __future__ import annotations

import sys
import time

import click

from hiveai import __version__


@click.group(invoke_without_command=True)
@click.version_option(version=__version__, prog_name="hiveai")
@click.pass_context
def main(ctx: click.Context) -> None:
    """hiveai: a Hive engine speaking the Universal Hive Protocol.

    With no command, runs the UHP engine on stdin/stdout (same as `hiveai uhp`).
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(uhp)


@main.command()
def uhp() -> None:
    """Run the UHP engine on stdin/stdout (logs go to stderr)."""
    from hiveai.uhp import main as uhp_main

    sys.exit(uhp_main())


@main.command()
def warmup() -> None:
    """Compile all numba kernels into numba's on-disk cache, ahead of time.

    Later starts of the engine then load the compiled code instead of
    compiling it after the first command.
    """
    from hiveai.search import warmup as search_warmup

    start = time.perf_counter()
    search_warmup()
    click.echo(f"hiveai warmup: kernels compiled and cached in {time.perf_counter() - start:.1f} s", err=True)


@main.command()
@click.option("--depth", "-d", default=5, show_default=True, type=click.IntRange(1, 20), help="Deepest ply to count.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per depth, for scripts.")
@click.argument("game", required=False, default="Base")
def perft(depth: int, as_json: bool, game: str) -> None:
    """Count leaf positions to each depth from GAME and time it.

    GAME is a GameTypeString (default Base, from the empty board) or a full
    GameString. The last ply is bulk-counted, like the reference tables.
    """
    import json

    from hiveai.board import Board
    from hiveai.errors import HiveError

    try:
        board = Board.parse(game)
    except HiveError as e:
        raise click.BadParameter(str(e), param_hint="GAME") from None
    board.perft(1)  # load or compile the kernel outside the timings
    if not as_json:
        click.echo(f"perft from {board.game_string()}")
        click.echo(f"{'depth':>5} {'leaves':>15} {'seconds':>9} {'leaves/s':>14}")
    for d in range(1, depth + 1):
        start = time.perf_counter()
        leaves = board.perft(d)
        secs = time.perf_counter() - start
        nps = leaves / secs if secs > 0 else 0.0
        if as_json:
            click.echo(json.dumps({"depth": d, "leaves": leaves, "seconds": round(secs, 6), "nps": round(nps)}))
        else:
            click.echo(f"{d:>5} {leaves:>15,} {secs:>9.3f} {nps:>14,.0f}")
