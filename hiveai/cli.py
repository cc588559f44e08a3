"""The ``hiveai`` command.

``hiveai`` with no subcommand, and ``hiveai uhp``, run the UHP engine on
stdin/stdout. This module must stay cheap to import: the UHP banner has to
appear before numba loads, so heavy modules are imported inside commands.
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from typing import Callable

import click

from hiveai import __version__
from hiveai.player import CPUS
from hiveai.text import plural
from hiveai.tournament.timeouts import (
    BANNER_TIMEOUT,
    COMMAND_TIMEOUT,
    COMPILE_TIMEOUT,
    DEFAULT_RANDOM_PLIES,
    DEPTH_HANG_TIMEOUT,
    HANG_MARGIN_FRACTION,
    HANG_MARGIN_MIN,
    MAX_PLIES,
    TIME_TOLERANCE,
    TIME_TOLERANCE_MS,
)


def _board(text: str, param_hint: str):
    """The position a GameString or GameTypeString names, or a usage error.

    Stricter than UHP's ``newgame``: a GameString whose state and turn disagree
    with its moves is refused, since these commands report on exactly the
    position asked for (``hiveai perft 'Base;BlackWins;Black[41]'`` must not
    quietly count from the empty board).
    """
    from hiveai.rules.board import Board
    from hiveai.errors import HiveError

    try:
        board = Board.parse(text)
    except HiveError as e:
        raise click.BadParameter(str(e), param_hint=param_hint) from None
    mismatch = board.head_mismatch(text)
    if mismatch:
        raise click.BadParameter(f"{mismatch} Correct the state and turn, or give the moves that lead to them.",
                                 param_hint=param_hint)
    return board


# --- `hiveai tournament`'s --sprt, which takes 2 or 4 numbers --------------------------

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


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="hiveai")
@click.pass_context
def main(ctx: click.Context) -> None:
    """hiveai: a Hive engine speaking the Universal Hive Protocol.

    With no command, runs the UHP engine on stdin/stdout (same as `hiveai uhp`):
    type UHP commands such as `newgame` or `info`, and `exit` (or end of input,
    Ctrl-D) to quit. Protocol: https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(uhp)


@main.command()
def uhp() -> None:
    """Run the UHP engine on stdin/stdout (logs go to stderr).

    Quit with the command `exit` or by ending the input (Ctrl-D).
    """
    from hiveai.uhp.server import main as uhp_main

    sys.exit(uhp_main())


@main.command()
def warmup() -> None:
    """Compile every numba kernel now, into numba's disk cache.

    Later starts of the engine then load the compiled code instead of
    compiling it after the first command.
    """
    from hiveai.player.levels import warm as warm_levels
    from hiveai.rules.board import Board
    from hiveai.search.searcher import WARM_GAME
    from hiveai.search.searcher import warmup as search_warmup

    start = time.perf_counter()
    search_warmup()
    warm_levels(Board.parse(WARM_GAME))
    click.echo(f"hiveai warmup: kernels compiled and cached in {time.perf_counter() - start:.1f} s", err=True)


@main.command()
@click.option("--depth", "-d", default=5, show_default=True, type=click.IntRange(1, 20), help="Deepest ply to count.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per depth, for scripts.")
@click.argument("game", required=False, default="Base")
def perft(depth: int, as_json: bool, game: str) -> None:
    """Count leaf positions to each depth from GAME and time it.

    GAME is a GameTypeString (default Base, from the empty board) or a full
    GameString. The last ply is bulk-counted, like the reference tables. A
    finished game has no moves: 0 leaves at every depth.
    """
    import json

    board = _board(game, "GAME")
    if board.is_game_over():
        click.echo(f"note: the game is over ({board.state}), so every depth has 0 leaves", err=True)
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


@main.command()
@click.option("--depth-offset", default=0, show_default=True, type=int,
              help="Add N plies to every position's depth (negative: a quicker bench; depths stay >= 1).")
@click.option("--tt-mb", default=None, type=click.IntRange(1, 4096),
              help="Transposition table per search, in MB [default: hiveai.search.bench.BENCH_TT_MB]. "
                   "The signature depends on it.")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, CPUS),
              help="Search threads per position (Lazy SMP; more than one: node counts vary).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object with every figure, for scripts.")
def bench(depth_offset: int, tt_mb: int | None, threads: int, as_json: bool) -> None:
    """Search fixed positions to fixed depths: speed and a signature.

    Like Stockfish's bench: each position gets a fresh search, so the total
    node count (the `signature:` line) is deterministic and changes exactly
    when the search's behaviour does. Also prints per position time to each
    depth, effective branching factor and TT hit rate, and nodes/s on the
    mid-game positions against the perft rate on them. Times are noisy on a
    busy machine; the signature is not.
    """
    import json

    from hiveai.search.bench import BENCH_TT_MB, format_header, format_position, format_totals, run_bench

    tt_mb = BENCH_TT_MB if tt_mb is None else tt_mb
    if as_json:
        report = run_bench(depth_offset, tt_mb, threads=threads)
        click.echo(json.dumps(report.to_json()))
        return
    for line in format_header(tt_mb, depth_offset, threads=threads):
        click.echo(line)
    report = run_bench(depth_offset, tt_mb, on_position=lambda r: click.echo(format_position(r)), threads=threads)
    for line in format_totals(report):
        click.echo(line)


@main.command()
@click.argument("game", required=False, metavar="[GAMESTRING | GAMETYPE]")
@click.option("--depth", "-d", type=click.IntRange(min=1), help="Search this many plies.")
@click.option("--time", "-t", "seconds", type=click.FloatRange(min=0, min_open=True),
              help="Search this many seconds (per position with --game).")
@click.option("--multipv", "-k", default=1, show_default=True, type=click.IntRange(min=1),
              help="Report the K best moves, each with its score and PV.")
@click.option("--game", "game_file", type=click.Path(exists=True, dir_okay=False),
              help="Review every move of a game record (PGN or GameString file).")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, CPUS),
              help="Search threads (Lazy SMP; one thread gives reproducible results).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line instead of text.")
@click.option("--color/--no-color", default=None, help="ANSI colour in the picture [default: if stdout is a terminal].")
@click.option("--svg", "svg_file", metavar="FILE",
              help="Also write the position as an SVG picture, the best move as an arrow.")
@click.option("--html", "html_file", metavar="FILE",
              help="With --game: also write the review as one HTML page (graph, moves, diagrams).")
def analyse(game: str | None, depth: int | None, seconds: float | None, multipv: int, game_file: str | None,
            threads: int, as_json: bool, color: bool | None, svg_file: str | None, html_file: str | None) -> None:
    """Analyse a position, or every move of a game.

    The position is a GameString or a GameTypeString (default Base, the empty
    board). Prints the position, one line per completed search iteration
    (depth, score, nodes, nodes/s, time, PV) and the best move (the K best
    with --multipv K). With --game FILE, reviews each move of the record:
    score before and after it (for the side that moved), the engine's move,
    ?/?? on mistakes and blunders, a summary. Scores are for the side to
    move, in hundredths: +1.00 is about one more cell filled around the enemy
    queen than around ours. With both --depth and --time the search stops at
    whichever comes first; with neither, a position gets the search's default
    depth and a game review depth 3. --svg FILE writes the position's picture
    (best move as an arrow); --html FILE with --game writes a review page
    with an evaluation graph and a diagram of every mistake.
    """
    from pathlib import Path

    from hiveai.analysis.analyse import analyse_game, analyse_position
    from hiveai.errors import HiveError
    from hiveai.records import read_game

    if color is None:
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")

    def emit(line: str) -> None:
        click.echo(line, color=color)

    if game_file is not None:
        if game is not None:
            raise click.UsageError("Give either a position or --game FILE, not both.")
        if multipv != 1:
            raise click.UsageError("--multipv applies to one position, not to --game.")
        if svg_file is not None:
            raise click.UsageError("--svg draws one position; with --game use --html.")
        html_path = _output_path(html_file, "--html")
        try:
            record = read_game(Path(game_file))
        except (HiveError, OSError) as e:
            raise click.BadParameter(str(e), param_hint="--game") from None
        review = analyse_game(record, emit, depth=depth, time=seconds, as_json=as_json, name=game_file,
                              threads=threads)
        if html_path is not None:
            from hiveai.analysis.pages import review_page

            _write_output(html_path, review_page(review, name=Path(game_file).name), "--html")
        return
    if html_file is not None:
        raise click.UsageError("--html writes a game review: give --game FILE.")
    svg_path = _output_path(svg_file, "--svg")
    board = _board(game or "Base", "GAME")
    result = analyse_position(board, emit, depth=depth, time=seconds, multipv=multipv, as_json=as_json,
                              color=color, threads=threads)
    if svg_path is not None:
        from hiveai.svg import board as board_svg

        arrows = [result.move_string] if result is not None and result.move_string else []
        _write_output(svg_path, board_svg(board, arrows=arrows), "--svg")


def _output_path(text: str | None, hint: str):
    """The file an option names for writing, checked before any search starts (None if not given)."""
    if text is None:
        return None
    from pathlib import Path

    path = Path(text)
    if path.is_dir():
        raise click.BadParameter(f"{text} is a directory, not a file", param_hint=hint)
    if not path.parent.is_dir():
        raise click.BadParameter(f"cannot write {text}: there is no directory {path.parent}", param_hint=hint)
    return path


def _write_output(path, text: str, hint: str) -> None:
    """Write a result file whole (a reader never sees half of it), or stop with a message naming it."""
    from hiveai.durable import replace_atomically

    try:
        replace_atomically(path, text)
    except OSError as e:
        raise click.ClickException(f"{hint}: cannot write {path}: {e.strerror or e}") from None
    click.echo(f"wrote {path}", err=True)


@main.command()
@click.argument("inputs", nargs=-1, required=True, metavar="IN...", type=click.Path(exists=True))
@click.option("--to", "to", default="pgn", show_default=True,
              type=click.Choice(["pgn", "hivegame", "gamestring", "sgf"]),
              help="Mzinga PGN, hivegame.com PGN, UHP GameString (one line a game) or boardspace SGF.")
@click.option("-o", "--out", "out", metavar="OUT",
              help="A folder (existing, or ending in /): one file per game; else one file with every game. "
                   "Default: stdout.")
def convert(inputs: tuple[str, ...], to: str, out: str | None) -> None:
    """Convert game records: boardspace SGF, hivegame.com or Mzinga PGN, GameStrings, MoveString lists.

    IN is a file, a folder (its .sgf, .pgn, .txt, .uhp and .zip files) or a
    zip archive; the format of each is told by its content. Every game is
    replayed with hiveai's rules: one that cannot be read or replayed is
    refused with the file, the move and the rule, the others are converted,
    and the exit status is 1 if any was refused. Output files are written
    whole or not at all. A summary line goes to stderr. Formats and
    conventions: docs/records.md.
    """
    from hiveai.records.convert import convert as convert_records

    if out is not None and not out.endswith(("/", os.sep)) and not os.path.isdir(out):
        _output_path(out, "--out")
    try:
        report = convert_records(inputs, to, out, emit=lambda text: click.echo(text, nl=False),
                                 refused=lambda message: click.echo(f"refused: {message}", err=True))
    except BrokenPipeError:  # stdout closed early (| head): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except OSError as e:
        raise click.ClickException(f"--out: cannot write {e.filename or out}: {e.strerror or e}") from None
    click.echo(report.summary(), err=True)
    if report.refused:
        sys.exit(1)


@main.group()
def book() -> None:
    """Opening books: build them, look positions up, summarise them.

    Books live in openings/ (one file per game type; format in
    openings/README.md). The engine plays from them while a position is in
    the book (UHP option UseBook).
    """


@book.command("build")
@click.argument("game_types", nargs=-1, metavar="[GAMETYPE]...")
@click.option("--out", "out_dir", default="openings", show_default=True, type=click.Path(file_okay=False),
              help="Directory of the book files (created if missing).")
@click.option("--plies", type=click.IntRange(1, 40),
              help="Cover every line the engine plays from the book this many plies deep.")
@click.option("--depth", "-d", type=click.IntRange(1, 60), help="Search depth per position.")
@click.option("--time", "-t", "seconds", type=click.FloatRange(min=0, min_open=True),
              help="Seconds per position instead of a depth (not reproducible).")
@click.option("--multipv", type=click.IntRange(1, 50), help="Distinct moves ranked per position.")
@click.option("--margin", type=click.IntRange(0),
              help="A book move scores at most this much below the best (100 = one queen cell).")
@click.option("--width", help="Book moves kept per position, by ply (comma list; the last value repeats).")
@click.option("--named/--no-named", default=True, show_default=True,
              help="Also follow the named openings (named.txt in --out) as far as the search agrees.")
@click.option("--records", "record_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Merge a game record file (PGN or GameString lines); repeatable. Counts add up on "
                   "every run, so merge each file once.")
@click.option("--min-count", type=click.IntRange(1),
              help="Record moves played this often are searched like named ones.")
@click.option("--concurrency", "-j", default=1, show_default=True, type=click.IntRange(1),
              help="Searches run in parallel.")
@click.option("--cluster", help="Run searches on Ray: 'ray' (local or RAY_ADDRESS) or 'ray:ADDRESS'.")
@click.option("--fresh", is_flag=True, help="Start the books again instead of resuming them.")
def book_build(game_types: tuple[str, ...], out_dir: str, plies: int | None, depth: int | None,
               seconds: float | None, multipv: int | None, margin: int | None, width: str | None, named: bool,
               record_files: tuple[str, ...], min_count: int | None, concurrency: int, cluster: str | None,
               fresh: bool) -> None:
    """Grow opening books by deep search.

    Grows the books of the GAMETYPEs given (default: all eight). Searches
    every book position with --multipv and expands the good moves (within
    --margin of the best, --width of them), breadth first from the empty
    board. Each finished search is saved at once: stop with Ctrl-C at
    any moment and run the same command again to resume. Options left out
    take the defaults of hiveai.training.bookbuild (printed when the build starts).
    """
    from dataclasses import replace

    from hiveai.training.bookbuild import ALL_GAME_TYPES, BuildSettings, build
    from hiveai.durable import LockedError
    from hiveai.errors import HiveError
    from hiveai.records import read_games

    settings = BuildSettings()
    given = {"plies": plies, "multipv": multipv, "margin": margin, "min_count": min_count}
    settings = replace(settings, named=named, **{k: v for k, v in given.items() if v is not None})
    if seconds is not None:
        settings = replace(settings, time=seconds, depth=depth)
    elif depth is not None:
        settings = replace(settings, depth=depth)
    if width is not None:
        try:
            widths = tuple(int(w) for w in width.split(","))
            if min(widths) < 1:
                raise ValueError
        except ValueError:
            raise click.BadParameter("expected positive integers separated by commas", param_hint="--width") from None
        settings = replace(settings, width=widths)
    records = []
    for path in record_files:
        try:
            records += read_games(path)
        except (HiveError, OSError) as e:
            raise click.BadParameter(str(e), param_hint="--records") from None
    click.echo("book build: " + " ".join(f"{k}={v}" for k, v in settings.header().items())
               + f" min_count={settings.min_count} named={settings.named}", err=True)
    bars = _ProgressBars()
    try:
        report = build(game_types or ALL_GAME_TYPES, out_dir, settings, records=records,
                       concurrency=concurrency, cluster=cluster, fresh=fresh, progress=bars)
    except LockedError as e:
        raise click.ClickException(f"{e}: another book build is writing there. Wait for it to end, "
                                   "or choose another --out") from None
    except (HiveError, ValueError, RuntimeError) as e:  # RuntimeError: --cluster ray without Ray
        raise click.ClickException(str(e)) from None
    finally:
        bars.close()
    for gt, n in report.positions.items():
        click.echo(f"{gt:<9} {plural(n, 'position'):>16} ({report.searched[gt]} searched now, "
                   f"{report.search_seconds[gt]:.0f} s of search)", err=True)
    if report.stopped:
        click.echo(f"stopped after {report.seconds:.0f} s; finished searches are saved: run the same command "
                   "to resume", err=True)
        sys.exit(130)
    click.echo(f"book build finished in {report.seconds:.0f} s", err=True)


class _ProgressBars:
    """A ``progress(label, done, total)`` callback drawing one click bar per label on stderr."""

    def __init__(self) -> None:
        self._bar = None
        self._label: str | None = None
        self._done = 0

    def __call__(self, label: str, done: int, total: int) -> None:
        if label != self._label:
            self.close()
            self._bar = click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True)
            self._bar.__enter__()
            self._label, self._done = label, 0
        self._bar.update(done - self._done)
        self._done = done

    def close(self) -> None:
        """Finish the bar being drawn, if any."""
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar, self._label = None, None


@book.command("show")
@click.argument("game", metavar="GAMESTRING")
@click.option("--dir", "book_dir", type=click.Path(exists=True, file_okay=False),
              help="Read the books here instead of the installed ones.")
def book_show(game: str, book_dir: str | None) -> None:
    """List the book moves of a position.

    For each: weight, score, search depth, games played and points scored.
    """
    from hiveai.player.book import Book, book_path, lookup
    from hiveai.search.score import format_score
    from hiveai.rules.symmetry import frame_of

    board = _board(game, "GAMESTRING")
    path = book_path(board.game_type, book_dir)
    if not path.is_file():
        raise click.ClickException(f"no {board.game_type_string} book ({path})")
    try:
        book = Book.read(path)
    except (OSError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"{board.game_string()}")
    click.echo(f"key {frame_of(board.position_array).key} in {path}")
    moves = lookup(board, book)
    if moves is None:
        click.echo("not in the book")
        return
    click.echo(f"{'move':<14} {'weight':>6} {'score':>10} {'depth':>5} {'games':>6} {'points':>6}")
    for m in moves:
        click.echo(f"{m.move_string:<14} {m.weight:>6} {format_score(m.score):>10} {m.depth:>5} {m.count:>6} "
                   f"{m.points:>6g}")


@book.command("stats")
@click.option("--dir", "book_dir", type=click.Path(exists=True, file_okay=False),
              help="Read the books here instead of the installed ones.")
def book_stats(book_dir: str | None) -> None:
    """Summarise the books, one line per game type.

    Positions, plies covered, book moves, search depth, games merged, size.
    """
    from pathlib import Path

    from hiveai.player.book import book_dir as default_dir
    from hiveai.player.book import book_stats as stats

    directory = Path(book_dir) if book_dir else default_dir()
    if directory is None:
        raise click.ClickException("no opening books found")
    click.echo(f"books in {directory}")
    click.echo(f"{'game type':<9} {'positions':>9} {'plies':>5} {'book moves':>10} {'depth':>5} {'games':>6} "
               f"{'KiB':>6}")
    for s in stats(directory):
        click.echo(f"{s.game_type:<9} {s.positions:>9} {s.max_ply + 1:>5} {s.book_moves:>10} {s.depth:>5} "
                   f"{s.games:>6} {s.size / 1024:>6.1f}")


@main.command(cls=TournamentCommand)
@click.option("--engine", "engines", multiple=True, required=True, metavar="NAME=COMMAND",
              help="A participant (repeat). COMMAND is split like a shell; `hiveai` alone (or NAME=hiveai) "
                   "is this installed engine.")
@click.option("--option", "options", multiple=True, metavar="NAME:OPT=VALUE",
              help="UHP option for one engine, sent as `options set OPT VALUE` after every start (repeat).")
@click.option("--time", "move_time", type=click.FloatRange(min=0), metavar="S",
              help="Every engine gets `bestmove time` with S seconds per move.")
@click.option("--depth", type=click.IntRange(min=0), metavar="D", help="Every engine gets `bestmove depth D`.")
@click.option("--go", "go", multiple=True, metavar='NAME:"ARGS"',
              help='bestmove arguments for one engine, e.g. d1:"depth 1" or fast:"time 00:00:01" (repeat).')
@click.option("--game-type", required=True, metavar="TYPE", help="GameTypeString, e.g. Base or Base+MLP.")
@click.option("--games", type=click.IntRange(min=1), required=True, metavar="N",
              help="Games per encounter (pair of engines), rounded up to whole game pairs.")
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="GameStrings, one a line (or a PGN); each opens one game pair, cycling through the file.")
@click.option("--random-plies", type=click.IntRange(min=0), metavar="K",
              help=f"Open each game pair with K random legal plies (default {DEFAULT_RANDOM_PLIES}, "
                   "when no --openings).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the random openings.")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="Games at once on this machine (each engine its own process). With --cluster: "
                   "at most K Ray tasks at once (default: one per cluster CPU).")
@click.option("--cluster", metavar="ray[:ADDRESS]",
              help="Play each game as a Ray task: `ray` starts a local Ray instance, `ray:ADDRESS` "
                   "(e.g. ray:auto) joins a running cluster. Needs pip install 'hiveai[cluster]'.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="tournament", show_default=True,
              metavar="DIR", help="Directory for games.jsonl, pgn/, logs/, standings.txt, report.html "
                                  "and replays/.")
@click.option("--resume", is_flag=True, help="Continue the tournament in --out with the same arguments.")
@click.option("--sprt", metavar="ELO0 ELO1 [ALPHA BETA]",
              help="Sequential probability ratio test (two engines; logistic Elo of the first engine, "
                   "alpha and beta default 0.05): stop as soon as H0 or H1 is accepted.")
@click.option("--gauntlet", is_flag=True, help="The first engine plays each of the others (default: round-robin).")
@click.option("--max-plies", type=click.IntRange(min=0), default=MAX_PLIES, show_default=True,
              help="Adjudicate a draw after this many plies, opening included (0: never).")
@click.option("--repetition/--no-repetition", default=True, show_default=True,
              help="Adjudicate a draw at the third occurrence of a position.")
@click.option("--hang-timeout", type=click.FloatRange(min=0, min_open=True), default=DEPTH_HANG_TIMEOUT,
              show_default=True, metavar="S",
              help="Seconds any answer in a game may take before the engine loses as hung: options, newgame, "
                   f"a non-timed bestmove (depth); play and pass at most {COMMAND_TIMEOUT:g} s. Timed moves hang "
                   f"after the budget + max({HANG_MARGIN_MIN:g} s, {HANG_MARGIN_FRACTION:g} x budget).")
@click.option("--banner-timeout", type=click.FloatRange(min=0, min_open=True), default=BANNER_TIMEOUT,
              show_default=True, metavar="S",
              help="Seconds an engine may take to print its start-up banner, before the games and in them. "
                   f"Only the check's newgame and first bestmove wait longer (up to {COMPILE_TIMEOUT:g} s, "
                   "for a cold numba cache).")
@click.option("--time-tolerance", type=click.FloatRange(min=0), default=TIME_TOLERANCE, show_default=True,
              metavar="FRACTION",
              help="A timed move may overrun its budget by this fraction, plus --time-tolerance-ms.")
@click.option("--time-tolerance-ms", type=click.FloatRange(min=0), default=TIME_TOLERANCE_MS, show_default=True,
              metavar="MS", help="Milliseconds allowed on top of --time-tolerance; a slower answer loses on time.")
@click.option("--restart", is_flag=True,
              help="A fresh engine process for every game (default: engines stay up between games and "
                   "are restarted after a failure; with --cluster always fresh).")
def tournament(engines: tuple[str, ...], options: tuple[str, ...], move_time: float | None, depth: int | None,
               go: tuple[str, ...], game_type: str, games: int, openings: str | None, random_plies: int | None,
               seed: int, concurrency: int, cluster: str | None, out_dir: str, resume: bool, sprt: str | None,
               gauntlet: bool, max_plies: int, repetition: bool, hang_timeout: float, banner_timeout: float,
               time_tolerance: float, time_tolerance_ms: float, restart: bool) -> None:
    """Play a match or tournament between UHP engines.

    hiveai's rules referee every move. Each opening is played twice with
    colours swapped. Illegal moves, crashes, hangs, clock oversteps and
    unparseable output lose the game. Every game is saved at once to --out
    (games.jsonl, PGN, engine logs), so --resume after a kill plays only what
    is missing. Example:

    \b
    hiveai tournament --engine d1=hiveai --engine d2=hiveai \\
        --go d1:"depth 1" --go d2:"depth 2" --game-type Base+MLP --games 20
    """
    from hiveai.errors import HiveError
    from hiveai.tournament.runner import TournamentError, run
    from hiveai.tournament.schedule import build_config

    sprt_values = parse_sprt(sprt)
    try:
        config = build_config(
            engines=list(engines), options=list(options), go=list(go), time=move_time, depth=depth,
            game_type=game_type, games=games, openings=openings, random_plies=random_plies, seed=seed,
            gauntlet=gauntlet, sprt=sprt_values, max_plies=max_plies, repetition=repetition,
            time_tolerance=time_tolerance, time_tolerance_ms=time_tolerance_ms, hang_timeout=hang_timeout,
            restart=restart)
        run(config, out_dir, resume=resume, concurrency=concurrency, cluster=cluster, banner_timeout=banner_timeout)
    except (ValueError, HiveError, TournamentError, RuntimeError) as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        sys.exit(130)


def _selfplay_options(concurrency_help: str, cluster_help: str) -> Callable:
    """The self-play options ``tune`` and ``train`` share: the openings, and where the games run."""
    options = [
        click.option("--random-plies", type=click.IntRange(min=0), default=2, show_default=True,
                     help="Random plies after the book moves, so that games differ."),
        click.option("--book/--no-book", default=True, show_default=True,
                     help="Open the games from the opening book."),
        click.option("--concurrency", "-j", type=click.IntRange(min=1), default=1, show_default=True,
                     help=concurrency_help),
        click.option("--cluster", metavar="ray[:ADDRESS]", help=cluster_help),
    ]

    def apply(command: Callable) -> Callable:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


@main.command()
@click.option("--game-type", "game_types", multiple=True, metavar="TYPE",
              help="Game type to play and fit (repeat; default Base+MLP).")
@click.option("--games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Self-play games per game type.")
@click.option("--depth", "-d", type=click.IntRange(1, 10), default=2, show_default=True,
              help="Search depth of every self-play move.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the games' random choices.")
@click.option("--eval-file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Start from these weights (and self-play with them) instead of the built-in ones.")
@click.option("--common", is_flag=True, help="Also fit one set for all the game types together, as [*].")
@_selfplay_options("Games at once on this machine.", "Play the games as Ray tasks.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="tune", show_default=True,
              help="Directory for games.jsonl and weights.ini; a rerun resumes from what is there.")
@click.option("--weights", "weights_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Where to write the weights [default: OUT/weights.ini].")
def tune(game_types: tuple[str, ...], games: int, depth: int, random_plies: int, book: bool, seed: int,
         eval_file: str | None, common: bool, concurrency: int, cluster: str | None, out_dir: str,
         weights_path: str | None) -> None:
    """Fit the evaluation weights to games hiveai plays against itself (Texel's method).

    Plays hiveai against itself, collects the quiet positions with the games'
    results, and fits the weights of each game type so that the static score
    predicts the result. Every game is saved as it finishes, so rerunning the
    same command after an interruption resumes. Load the result in the engine
    with `options set EvalFile FILE`. Example:

    \b
    hiveai tune --game-type Base+MLP --games 1000 -j 2 --out tune
    """
    from hiveai.durable import LockedError
    from hiveai.errors import HiveError
    from hiveai.evaluation.linear import read_weights_file
    from hiveai.training.tune import tune as run_tune

    try:
        start = read_weights_file(eval_file) if eval_file else None
        run_tune(out_dir, list(game_types) or ["Base+MLP"], games, depth=depth, random_plies=random_plies,
                 use_book=book, seed=seed, start=start, common=common, concurrency=concurrency, cluster=cluster,
                 weights_file=weights_path, say=lambda text: click.echo(text))
    except LockedError as e:
        raise click.ClickException(f"{e}: another tune run is writing its games there. Wait for it to end, "
                                   "or choose another --out") from None
    except (ValueError, HiveError, RuntimeError, OSError) as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        click.echo("Interrupted: the finished games are saved; run the same command to resume.", err=True)
        sys.exit(130)


@main.command()
@click.option("--no-browser", is_flag=True, help="Do not open the page in the default browser.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but the loopback address lets other machines drive the engine.")
@click.option("--port", type=click.IntRange(0, 65535), help="Port to listen on [default: 8421, or a free one if taken].")
@click.option("--engine", "engine_command", metavar="COMMAND",
              help='A UHP engine to play instead of hiveai, e.g. --engine "nokamute uhp".')
@click.option("--db", type=click.Path(dir_okay=False), help="The games database [default: in the user's data directory].")
def play(no_browser: bool, host: str, port: int | None, engine_command: str | None, db: str | None) -> None:
    """Play and analyse on a board in the browser (a local web server).

    Opens the board in the default browser; every game is kept in a database
    in the user's data directory ($XDG_DATA_HOME/hiveai, else
    ~/.local/share/hiveai). Ctrl-C stops the server. See docs/play.md.
    """
    from hiveai.play import serve

    try:
        serve(host, port, open_browser=not no_browser, engine_command=engine_command, db=db)
    except OSError as e:
        raise click.ClickException(f"cannot serve on {host}:{port}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        pass


def _command_line() -> str:
    """This command as typed (``hiveai`` and its arguments), to record with what it makes."""
    import shlex

    return "hiveai " + shlex.join(sys.argv[1:])


@main.command()
@click.option("--game-type", "game_types", multiple=True, metavar="TYPE",
              help="Game type to play, label and fit (repeat; default Base+MLP).")
@click.option("--games", type=click.IntRange(min=0), default=200, show_default=True,
              help="Self-play games per game type (0: fit on the dataset as it is).")
@click.option("--eval-file", type=click.Path(dir_okay=False), metavar="FILE|<built-in>",
              help="Self-play and label with this network or weights file (the linear fit starts from its "
                   "weights) [default: the engine's default evaluation, which '<built-in>' also names].")
@click.option("--fit", "fit_kind", type=click.Choice(["network", "linear"]), default="network", show_default=True,
              help="Fit a network, or the linear evaluation's weights (Texel's coordinate descent on the labels).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="The dataset to add the labels to and fit from [default: OUT/data].")
@click.option("--selfplay-depth", type=click.IntRange(1, 10), default=2, show_default=True,
              help="Search depth of every self-play move.")
@click.option("--label-depth", type=click.IntRange(1, 12),
              help="Search depth of the labels [default: hiveai.training.train.LABEL_DEPTH, docs/network.md says why].")
@click.option("--sample-every", type=click.IntRange(min=1),
              help="Label every N-th position of a game from the end of the opening "
                   "[default: hiveai.training.train.SAMPLE_EVERY].")
@click.option("--hidden", help="Hidden layer widths, comma separated (network) "
                                "[default: hiveai.training.train.HIDDEN].")
@click.option("--feature-set", type=int, metavar="ID",
              help="The features the network reads, recorded in its file: 2 (the shipped network's, cheaper) "
                   "or 1 (docs/network.md) [default: 2; network only].")
@click.option("--result-weight", type=click.FloatRange(0, 1),
              help="Weight of the game result in the target (the rest: the squashed search score; network) "
                   "[default: hiveai.training.train.RESULT_WEIGHT].")
@click.option("--freeze", default="tempo", show_default=True,
              help="Weights the linear fit leaves alone, comma separated ('' for none).")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the games and of the fit.")
@_selfplay_options("Games played or labelled at once on this machine.",
                   "Play and label the games as Ray tasks.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="train", show_default=True,
              help="Directory for games.jsonl, the fitted file and fit.json; a rerun resumes.")
@click.option("--output", "output_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Where to write the network or weights [default: OUT/network.hnn or OUT/weights.ini].")
@click.option("--against", metavar="FILE|default|<built-in>",
              help="What the declared match plays the new evaluation against: a network or weights file, or "
                   "'default' (or '<built-in>'), the engine's default evaluation (for a refit of labels an older evaluation made) "
                   "[default: the evaluation that labelled the data].")
def train(game_types: tuple[str, ...], games: int, eval_file: str | None, fit_kind: str, data_dir: str | None,
          selfplay_depth: int, label_depth: int | None, sample_every: int | None, hidden: str | None,
          feature_set: int | None, result_weight: float | None, freeze: str, random_plies: int, book: bool, seed: int,
          concurrency: int, cluster: str | None, out_dir: str, output_path: str | None, against: str | None) -> None:
    """Fit an evaluation to the engine's own searches: one generation (network: the [train] extra).

    Plays hiveai against itself with an evaluation (--eval-file, or the
    default), searches sampled positions of those games to a fixed depth
    with it (the labels, added to a dataset that lasts: docs/network.md),
    and fits a small network to every label that evaluation gave at that
    depth, with a linear model of the same features as the yardstick; or,
    with --fit linear, the linear evaluation's weights. Games and labels
    are saved as they finish: rerunning the same command resumes. The
    generation is recorded in the dataset's generations.jsonl with the
    match that decides whether it is kept, which the command prints.
    Example:

    \b
    hiveai train --game-type Base+MLP --games 200 -j 2 --data data --out gen2
    """
    from hiveai.durable import LockedError, RecordLineError
    from hiveai.errors import HiveError
    from hiveai.training.train import HIDDEN, LABEL_DEPTH, RESULT_WEIGHT, SAMPLE_EVERY
    from hiveai.training.train import train as run_train

    try:
        widths = HIDDEN if hidden is None else tuple(int(w) for w in hidden.split(",") if w.strip())
        if not widths or min(widths) < 1:
            raise ValueError
    except ValueError:
        raise click.BadParameter(f"'{hidden}' is not a list of positive widths such as 32,16",
                                 param_hint="--hidden") from None
    try:
        run_train(out_dir, list(game_types) or ["Base+MLP"], games, data=data_dir, eval_file=eval_file,
                  fit_kind=fit_kind, selfplay_depth=selfplay_depth, label_depth=label_depth or LABEL_DEPTH,
                  sample_every=sample_every or SAMPLE_EVERY, random_plies=random_plies, use_book=book,
                  seed=seed, hidden=widths, result_weight=RESULT_WEIGHT if result_weight is None else result_weight,
                  frozen=tuple(n.strip() for n in freeze.split(",") if n.strip()), feature_set=feature_set,
                  concurrency=concurrency, cluster=cluster, output_file=output_path, against=against,
                  command=_command_line(),
                  say=lambda text: click.echo(text))
    except (ValueError, HiveError, RuntimeError, OSError, LockedError, RecordLineError) as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        click.echo("Interrupted: the finished games and labels are saved; run the same command to resume.",
                   err=True)
        sys.exit(130)


@main.group()
def data() -> None:
    """Labelled-position datasets: check, count, import; the generations fitted to them.

    A dataset is a folder of compressed shards, one labelled game a line
    (the format: docs/network.md, "The dataset"). `hiveai train` adds to it.
    """


def _data_error(e: Exception) -> click.ClickException:
    return click.ClickException(str(e))


@data.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True), metavar="DIR_OR_SHARD...")
def data_check(paths: tuple[str, ...]) -> None:
    """Read every line and replay every game; exit status 1 naming the first bad line.

    Repeated games (the same game labelled by the same evaluation to the
    same depth) are counted and named, not an error: training uses each once.
    """
    from pathlib import Path

    from hiveai.durable import RecordLineError
    from hiveai.training.dataset import check_moves, read_shard, shard_paths

    files = [f for p in map(Path, paths) for f in (shard_paths(p) if p.is_dir() else [p])]
    try:
        seen: dict[str, tuple] = {}
        lines = positions = 0
        repeated = []
        for f in files:
            shard = read_shard(f)
            check_moves((f, no, g) for no, g in shard)
            for no, g in shard:
                lines += 1
                positions += len(g.positions)
                if g.key in seen:
                    repeated.append(f"{f}:{no} repeats {seen[g.key][0]}:{seen[g.key][1]}")
                else:
                    seen[g.key] = (f, no)
    except (RecordLineError, OSError) as e:
        raise _data_error(e) from None
    for r in repeated:
        click.echo(f"repeated: {r}")
    click.echo(f"{plural(len(files), 'shard')}, {plural(lines, 'labelled game')}, {positions:,} positions: "
               f"every game legal, {plural(len(repeated), 'repeated game')}")


@data.command("stats")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True), metavar="DIR_OR_SHARD...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per group, for scripts.")
def data_stats(paths: tuple[str, ...], as_json: bool) -> None:
    """Games and positions by game type, evaluation and label depth."""
    import json

    from hiveai.durable import RecordLineError
    from hiveai.training.dataset import read_dataset, summary

    try:
        games, report = read_dataset(paths)
    except (RecordLineError, OSError) as e:
        raise _data_error(e) from None
    rows = summary(games)
    if as_json:
        for row in rows:
            click.echo(json.dumps(row))
        return
    for row in rows:
        nodes = f", {row['mean_nodes']:,} nodes a position" if row["mean_nodes"] is not None else ""
        click.echo(f"{row['game_type']:<10} depth {row['depth']:>2}  {row['eval']:<22} {row['games']:>7,} games "
                   f"{row['positions']:>9,} positions{nodes}  ({', '.join(row['engines'])})")
    click.echo(f"{plural(report.shards, 'shard')}, {plural(report.lines, 'line')}, "
               f"{plural(len(report.duplicates), 'repeated game')} (each used once)")


@data.command("import")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--data", "data_dir", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The dataset to add the games to.")
@click.option("--eval-file", type=click.Path(dir_okay=False), metavar="FILE",
              help="The evaluation that self-played and labelled the folder [default: the default one].")
@click.option("--engine", "engine_name", required=True, metavar="TEXT",
              help='The program that labelled it, e.g. "hiveai 0.2.0 (a56da25)".')
@click.option("--selfplay-depth", type=click.IntRange(1, 10), required=True, help="Its self-play depth.")
@click.option("--random-plies", type=click.IntRange(min=0), required=True, help="Its self-play random plies.")
@click.option("--book/--no-book", default=True, show_default=True, help="Whether its self-play opened from the book.")
@click.option("--seed", type=int, required=True, help="Its --seed (each game's own seed is checked against it).")
def data_import(folder: str, data_dir: str, eval_file: str | None, engine_name: str, selfplay_depth: int,
                random_plies: int, book: bool, seed: int) -> None:
    """Add a `hiveai train` folder made before the dataset existed (games.jsonl, labels.jsonl).

    The old files do not say what labelled them: give the settings of the
    command that made the folder, which name its run as `hiveai train`
    would now, so that command finds its games labelled and plays none again.
    """
    from hiveai.durable import LockedError, RecordLineError
    from hiveai.training.dataset import Dataset, import_train_folder
    from hiveai.training.train import keep_evaluation, load_evaluation, selfplay_run

    try:
        evaluation = load_evaluation(eval_file)
        games = import_train_folder(folder, engine_name, evaluation.id_for,
                                    lambda eval_id: selfplay_run(eval_id, selfplay_depth, random_plies, book, seed),
                                    seed)
        with Dataset.open(data_dir) as store:
            added = sum(store.add(g) for g in games)
            store.compact()
            for game_type in sorted({g.game_type for g in games}):
                keep_evaluation(store.directory, evaluation, game_type)
    except (ValueError, RecordLineError, OSError, LockedError) as e:
        raise _data_error(e) from None
    click.echo(f"{plural(added, 'game')} added to {data_dir} ({len(games) - added} there already), "
               f"{sum(len(g.positions) for g in games):,} positions")


@data.command("generations")
@click.option("--data", "data_dir", required=True, type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.option("--markdown", is_flag=True, help="A Markdown table, as the docs' record holds it.")
def data_generations(data_dir: str, markdown: bool) -> None:
    """The generations fitted to a dataset, with their matches."""
    import json

    from hiveai.durable import RecordLineError
    from hiveai.training.train import generations_table, read_generations

    try:
        gens = read_generations(data_dir)
    except (ValueError, RecordLineError) as e:
        raise _data_error(e) from None
    if markdown:
        click.echo(generations_table(gens))
    else:
        for g in gens:
            click.echo(json.dumps(g))


@data.command("declare-match")
@click.option("--data", "data_dir", required=True, type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.option("--game-type", required=True, metavar="GAMETYPE",
              help="One of the game types the generation was fitted for.")
@click.option("--games", required=True, type=click.IntRange(min=2), help="Games of the new trial (even: both colours).")
@click.option("--seed", required=True, type=click.IntRange(min=0), help="The openings' seed: one not declared before.")
@click.argument("generation")
def data_declare_match(data_dir: str, generation: str, game_type: str, games: int, seed: int) -> None:
    """Declare a further match of GENERATION before it is played.

    A new trial, not a continuation: openings of its own (--seed), its own
    game count, its result read on its own games and decided by the same
    keep rule. The declaration is added to the dataset's generations file
    (commit it before the match starts); the command prints the match, which
    `hiveai data record-match` then accepts.
    """
    from pathlib import Path

    from hiveai.durable import RecordLineError
    from hiveai.rules.board import Board
    from hiveai.training.train import GENERATIONS_FILE, declare_match

    try:
        line = declare_match(data_dir, generation, Board(game_type).game_type_string, games, seed)
    except (ValueError, RecordLineError, OSError) as e:
        raise _data_error(e) from None
    click.echo(f"Declared in {Path(data_dir) / GENERATIONS_FILE} (commit it before the match starts):\n"
               f"  {line['command']}\n  ({line['keep_rule']})")


@data.command("record-match")
@click.option("--data", "data_dir", required=True, type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.argument("generation")
@click.argument("tournament", type=click.Path(exists=True, file_okay=False))
def data_record_match(data_dir: str, generation: str, tournament: str) -> None:
    """Add a finished match's result to GENERATION (its id, or the start of it).

    TOURNAMENT is the folder of a match declared for the generation (by
    `hiveai train`, or later by `hiveai data declare-match`); it is checked
    against that declaration (game type, games, openings' seed, engines new
    and old), and the keep rule declared with it applied.
    """
    from hiveai.durable import RecordLineError
    from hiveai.training.train import record_match

    try:
        line = record_match(data_dir, generation, tournament)
    except (ValueError, RecordLineError, OSError) as e:
        raise _data_error(e) from None
    click.echo(f"{line['id']} in {line['game_type']}: {line['wins']} + {line['draws']} = {line['losses']} -, "
               f"{100 * line['score']:.1f} %, Elo {line['elo']:+.1f} [{line['elo95'][0]:+.1f}, "
               f"{line['elo95'][1]:+.1f}]: {'kept' if line['kept'] else 'rejected'}")


@main.command("uhp-check", context_settings={"ignore_unknown_options": True})
@click.argument("engine", nargs=-1, required=True, type=click.UNPROCESSED, metavar="ENGINE_COMMAND...")
@click.option("--quick", is_flag=True, help="The protocol and a few hundred positions (seconds).")
@click.option("--game-type", "game_types", multiple=True, metavar="GAMETYPE",
              help="Check only this game type (repeatable) [default: every type the engine announces].")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the random games.")
@click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds a command may take before the engine counts as hung.")
@click.option("--case", "cases", multiple=True, metavar="NAME", help="Run only this case (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object with every case, for scripts.")
def uhp_check(engine: tuple[str, ...], quick: bool, game_types: tuple[str, ...], seed: int, timeout: float,
              cases: tuple[str, ...], as_json: bool) -> None:
    """Check a UHP engine's protocol and move generation; exit status 0 if it conforms.

    Starts ENGINE_COMMAND (put it after `--` if it has options of its own) and
    runs the cases of docs/engine-authors.md against it, hiveai's rules as the
    reference. Example:

    \b
    hiveai uhp-check --quick -- nokamute uhp --num-threads=1
    """
    from hiveai.uhpcheck.check import CASES, FAIL, as_json as to_json, report, run_checks

    names = {c.name for c in CASES}
    bad = [c for c in cases if c not in names]
    if bad:
        raise click.BadParameter(f"unknown case {', '.join(bad)}; cases: {', '.join(c.name for c in CASES)}",
                                 param_hint="--case")
    start = time.monotonic()
    say = None if as_json else (lambda r: click.echo(r.line().split("\n")[0], err=True))
    try:
        results = run_checks(list(engine), cases, quick=quick, game_type=game_types, seed=seed, timeout=timeout,
                             progress=say)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--game-type") from None
    seconds = time.monotonic() - start
    if as_json:
        click.echo(to_json(results, seconds, engine))
    else:
        click.echo("\n" + report(results, seconds))
    sys.exit(1 if any(r.status == FAIL for r in results) else 0)


@main.group()
def puzzles() -> None:
    """Puzzles: tactics mined from games, proven by exhaustive search (docs/puzzles.md).

    The collection that ships with hiveai is used when no FILE is given.
    """


def _targets(values: tuple[str, ...]) -> dict[str, int] | None:
    """``--target GAMETYPE=COUNT`` values (none: the default targets)."""
    if not values:
        return None
    from hiveai.rules.board import Board
    from hiveai.errors import HiveError

    out = {}
    for text in values:
        name, _, count = text.partition("=")
        try:
            out[Board(name).game_type_string] = int(count)
        except (HiveError, ValueError):
            raise click.BadParameter(f"expected GAMETYPE=COUNT, got {text!r}", param_hint="--target") from None
    return out


@puzzles.command("build")
@click.option("--out", "out_dir", default="puzzles-build", show_default=True, type=click.Path(file_okay=False),
              help="Folder of the build (mined.jsonl, collection.txt); the same folder resumes it.")
@click.option("--records", "record_files", multiple=True, type=click.Path(exists=True),
              help="Mine the games of a record file, folder or zip (any format `hiveai convert` reads); "
                   "repeatable.")
@click.option("--target", "targets", multiple=True, metavar="GAMETYPE=COUNT",
              help="Puzzles wanted of a game type; repeatable [default: the shipped collection's counts].")
@click.option("--seed", default=1, show_default=True, type=int, help="Seed of the self-play games.")
@click.option("--concurrency", "-j", default=1, show_default=True, type=click.IntRange(1),
              help="Games mined in parallel (processes).")
@click.option("--max-games", type=click.IntRange(1), help="Stop after mining this many games in this run.")
def puzzles_build(out_dir: str, record_files: tuple[str, ...], targets: tuple[str, ...], seed: int,
                  concurrency: int, max_games: int | None) -> None:
    """Mine puzzles from self-play at the weaker levels and from game records.

    Every puzzle is proven by exhaustive search before it is kept. Each
    finished game is saved at once: stop at any moment and run the same
    command to resume. The collection is OUT/collection.txt.
    """
    from hiveai.durable import LockedError
    from hiveai.errors import HiveError
    from hiveai.puzzles.build import build

    def progress(record: dict, report) -> None:
        have = " ".join(f"{gt}:{n}" for gt, n in report.counts.items())
        if record.get("error"):
            click.echo(f"{record['task']}: FAILED: {record['error']}", err=True)
        click.echo(f"{record['task']}: {len(record['lines'])} found in {record['seconds']:.0f} s "
                   f"({report.games} games, {report.seconds:.0f} s) {have}", err=True)

    try:
        report = build(out_dir, _targets(targets), list(record_files), seed=seed, concurrency=concurrency,
                       on_game=progress, max_games=max_games)
    except LockedError as e:
        raise click.ClickException(f"{e}: another build is writing there") from None
    except (HiveError, OSError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    total = sum(report.counts.values())
    click.echo(f"{plural(total, 'puzzle')} from {plural(report.games, 'game')} in {out_dir}/collection.txt "
               f"({report.mined_now} mined now, {report.seconds:.0f} s)", err=True)


def _puzzle_file(path: str | None):
    """The puzzles of FILE (default: the shipped collection), or a usage error naming the bad line."""
    from hiveai.puzzles.puzzlefile import PuzzleFileError, read_puzzles, shipped

    try:
        return read_puzzles(path) if path else shipped()
    except PuzzleFileError as e:
        raise click.ClickException(str(e)) from None
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror or e}") from None


@puzzles.command("verify")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--quiet", "-q", is_flag=True, help="Print only the puzzles that fail.")
def puzzles_verify(file: str | None, quiet: bool) -> None:
    """Re-prove every puzzle of FILE (default: the shipped collection).

    A malformed line stops the check with the file, the line and the reason;
    a puzzle whose solution is illegal, or not a forced win (or not the only
    one, or not the only save), is reported with its line and the exit status is 1.
    """
    from hiveai.puzzles.prove import make_prover
    from hiveai.puzzles.puzzlefile import PuzzleFileError, parse_line, shipped_path
    from hiveai.puzzles.solving import verify_puzzle

    if file is None:
        from importlib.resources import as_file

        with as_file(shipped_path()) as path:
            name, text = str(path), path.read_text(encoding="utf-8")
    else:
        try:
            with open(file, encoding="utf-8") as f:
                name, text = file, f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise click.ClickException(f"cannot read {file}: {getattr(e, 'strerror', None) or e}") from None
    prover = make_prover()
    start = time.monotonic()
    checked = failed = nodes = 0
    seen: dict[str, int] = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            puzzle = parse_line(line, replay=False)
        except ValueError as e:
            raise click.ClickException(str(PuzzleFileError(name, no, str(e)))) from None
        checked += 1
        before = prover.nodes
        reason = verify_puzzle(puzzle, prover)
        nodes += prover.nodes - before
        if reason is None and puzzle.id in seen:
            reason = f"the same position as line {seen[puzzle.id]} (up to symmetry)"
        seen.setdefault(puzzle.id, no)
        if reason is not None:
            failed += 1
            click.echo(f"{name}:{no}: {puzzle.id}: {reason}")
        elif not quiet:
            click.echo(f"{name}:{no}: {puzzle.id}: ok ({puzzle.kind}, {plural(puzzle.depth, 'ply', 'plies')})")
    click.echo(f"{checked - failed}/{checked} puzzles proven in {time.monotonic() - start:.1f} s "
               f"({nodes} positions)", err=True)
    sys.exit(1 if failed else 0)


@puzzles.command("show")
@click.argument("which", metavar="N|ID")
@click.option("--file", type=click.Path(dir_okay=False), help="A puzzle file [default: the shipped collection].")
@click.option("--svg", "as_svg", is_flag=True, help="Print an SVG picture instead of text.")
@click.option("--solution", is_flag=True, help="Also print the solution line.")
def puzzles_show(which: str, file: str | None, as_svg: bool, solution: bool) -> None:
    """Draw one puzzle: the N-th of the file (from 1), or the one whose id starts with ID."""
    from hiveai.analysis.render import render_board
    from hiveai.rules.bug import COLOUR_NAMES

    puzzles_ = _puzzle_file(file)
    if which.isdigit() and len(which) < 16:
        n = int(which)
        if not 1 <= n <= len(puzzles_):
            raise click.BadParameter(f"there are {len(puzzles_)} puzzles: give 1 to {len(puzzles_)}",
                                     param_hint="N")
        puzzle = puzzles_[n - 1]
    else:
        from hiveai.puzzles.puzzlefile import puzzle_by_id

        try:
            puzzle = puzzle_by_id(puzzles_, which.lower())
        except LookupError as exc:
            raise click.BadParameter(str(exc), param_hint="ID") from None
    board = puzzle.board()
    side = COLOUR_NAMES[board.turn]
    task = (f"{side} to move wins in {puzzle.moves}" if puzzle.kind == "win"
            else f"{side} to move: find the only move that stops a loss in {puzzle.moves}")
    if as_svg:
        from hiveai.svg import board as board_svg

        click.echo(board_svg(board, arrows=puzzle.solution[:1] if solution else ()))
        return
    click.echo(f"puzzle {puzzle.id} ({puzzle.game_type}, rating {puzzle.rating}, {', '.join(puzzle.themes)})")
    click.echo(task)
    click.echo(render_board(board))
    if solution:
        click.echo("solution: " + "; ".join(puzzle.solution))
    click.echo(f"source: {puzzle.source}")


def _limit(seconds: float | None, depth: int | None):
    from hiveai.search.timeman import Limit

    if seconds is not None and depth is not None:
        raise click.UsageError("give --time or --depth, not both")
    return Limit(depth=depth) if depth is not None else Limit(time=1.0 if seconds is None else seconds)


@puzzles.command("solve")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--engine", "engine_command", metavar="COMMAND",
              help='A UHP engine, e.g. --engine "nokamute uhp --num-threads=1" [default: hiveai].')
@click.option("--time", "-t", "seconds", type=click.FloatRange(min=0, min_open=True),
              help="Seconds a position [default: 1].")
@click.option("--depth", "-d", type=click.IntRange(1, 60), help="Search depth a position instead of a time.")
@click.option("--whole-seconds", is_flag=True, help="Send whole seconds only (engines such as nokamute).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def puzzles_solve(file: str | None, engine_command: str | None, seconds: float | None, depth: int | None,
                  whole_seconds: bool, as_json: bool) -> None:
    """Run puzzles against a UHP engine and report its solve rate.

    FILE is a puzzle file or a plain list (GameString TAB best move [TAB depth];
    Mzinga's GameString TAB depth TAB move too) [default: the shipped collection].
    Reports solved/total by game type and proof depth, the time a position and
    each failure with the move played.
    """
    import json
    import shlex

    from hiveai.engine import EngineError
    from hiveai.puzzles.puzzlefile import Case, PuzzleFileError, read_cases
    from hiveai.puzzles.suite import report_text, solve

    if file is None:
        cases = [Case(p.game, [p.solution[0]], None, p.id, proof_depth=p.depth) for p in _puzzle_file(None)]
    else:
        try:
            cases = read_cases(file)
        except PuzzleFileError as e:
            raise click.ClickException(str(e)) from None
        except OSError as e:
            raise click.ClickException(f"cannot read {file}: {e.strerror or e}") from None
    command = shlex.split(engine_command) if engine_command else None

    def progress(result, done: int, total: int) -> None:
        mark = "ok" if result.solved else f"FAIL (played {result.played or result.error})"
        click.echo(f"[{done}/{total}] {result.name} {result.game_type}: {mark} {result.seconds:.2f} s", err=True)

    try:
        report = solve(cases, command, _limit(seconds, depth), whole_seconds=whole_seconds, on_case=progress)
    except (EngineError, OSError) as e:
        raise click.ClickException(f"the engine failed: {e}") from None
    click.echo(json.dumps(report.to_json(), indent=1) if as_json else report_text(report))


@puzzles.command("playout")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--engine", "engine_command", metavar="COMMAND", help="The defending UHP engine [default: hiveai].")
@click.option("--time", "-t", "seconds", type=click.FloatRange(min=0, min_open=True),
              help="Seconds a defending move [default: 1].")
@click.option("--depth", "-d", type=click.IntRange(1, 60), help="Search depth a defending move instead.")
@click.option("--whole-seconds", is_flag=True, help="Send whole seconds only (engines such as nokamute).")
@click.option("--count", type=click.IntRange(1), help="Play out only the first COUNT win puzzles.")
def puzzles_playout(file: str | None, engine_command: str | None, seconds: float | None, depth: int | None,
                    whole_seconds: bool, count: int | None) -> None:
    """Play each win puzzle's solution against an engine's defence.

    The solver's moves come from the proof, the defence from the engine; a
    puzzle passes when the enemy queen is surrounded within its moves.
    """
    import shlex

    from hiveai.engine import EngineError
    from hiveai.puzzles.suite import playout

    chosen = [p for p in _puzzle_file(file) if p.kind == "win"][:count]

    def progress(result, done: int, total: int) -> None:
        if result.error:
            mark = f"not played (the engine failed: {result.error[:200]})"
        else:
            mark = "won" if result.won else f"NOT WON ({result.reason})"
        click.echo(f"[{done}/{total}] {result.id} {result.game_type} depth {result.depth}: {mark}: "
                   f"{'; '.join(result.line)}", err=True)

    try:
        results = playout(chosen, shlex.split(engine_command) if engine_command else None,
                          _limit(seconds, depth), whole_seconds=whole_seconds, on_puzzle=progress)
    except (EngineError, OSError) as e:
        raise click.ClickException(f"the engine failed: {e}") from None
    played = [r for r in results if not r.error]
    won = sum(r.won for r in played)
    skipped = len(results) - len(played)
    click.echo(f"{won}/{len(played)} puzzles won against {engine_command or 'hiveai'}'s defence"
               + (f"; {skipped} not played: the engine failed on them (listed above)" if skipped else ""))
    # Success: every puzzle played out was won, and at least one was played.
    sys.exit(0 if played and won == len(played) else 1)


def _keep_short_help_whole(group: click.Group) -> None:
    """click cuts a command's summary in a group's list to the terminal width,
    ending it with '...'; an explicit short_help is wrapped instead, whole."""
    for command in group.commands.values():
        if command.short_help is None and command.help:
            command.short_help = " ".join(inspect.cleandoc(command.help).split("\n\n")[0].split())
        if isinstance(command, click.Group):
            _keep_short_help_whole(command)


_keep_short_help_whole(main)
