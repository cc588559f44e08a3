"""The ``hiveai`` command itself: help, version, GameString arguments, package metadata."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from hiveai import __version__
from hiveai.rules.board import Board
from hiveai.cli import main

REPO = Path(__file__).resolve().parent.parent
# Both queens' games end here: White surrounds Black's queen with its 13th ply.
WON = ("wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 -wQ", "bA1 bQ/", "wA2 -wA1", "bA2 bQ\\", "wA3 -wA2",
       "bG1 bQ-", "wA3 \\bQ", "bB1 bG1-", "wA2 /bQ")


def invoke(*args: str, width: int = 80) -> click.testing.Result:
    result = CliRunner().invoke(main, list(args), prog_name="hiveai", terminal_width=width)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def commands(group: click.Group = main, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command and group under ``group``, with the words that invoke it."""
    out = []
    for name, command in sorted(group.commands.items()):
        out.append(((*path, name), command))
        if isinstance(command, click.Group):
            out += commands(command, (*path, name))
    return out


COMMANDS = commands()
GROUPS = [((), main)] + [(p, c) for p, c in COMMANDS if isinstance(c, click.Group)]


def test_every_command_is_listed():
    assert {" ".join(p) for p, _ in COMMANDS} >= {"uhp", "warmup", "perft", "bench", "analyse", "book",
                                                   "book build", "book show", "book stats", "tournament"}


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("path", [()] + [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "hiveai")
def test_help_flags(path, flag):
    result = invoke(*path, flag)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: {' '.join(('hiveai', *path))} ")


def _listing(output: str) -> dict[str, str]:
    """The Commands section of a group's help: name -> its (re-joined) summary."""
    section = output.split("\nCommands:\n", 1)[1]
    entries: dict[str, str] = {}
    name = None
    for line in section.splitlines():
        m = re.match(r"^  (\S+)\s+(.*)$", line)
        if m:
            name = m.group(1)
            entries[name] = m.group(2)
        elif line.strip() and name:
            # a wrapped summary (click's wrapper may break after a hyphen, as in "self-play")
            entries[name] += ("" if entries[name].endswith("-") else " ") + line.strip()
    return entries


@pytest.mark.parametrize("width", [80, 50])
@pytest.mark.parametrize("path,group", GROUPS, ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_command_summaries_are_whole(path, group, width):
    """Each command's summary in its group's list is its help's whole first paragraph, never cut with '...'."""
    result = invoke(*path, "--help", width=width)
    assert result.exit_code == 0
    listed = _listing(result.output)
    assert set(listed) == set(group.commands)
    for name, command in group.commands.items():
        first = " ".join(inspect.cleandoc(command.help).split("\n\n")[0].split())
        assert listed[name] == first, (name, listed[name])
        assert not listed[name].endswith("...")


def test_version():
    for flag in ("--version", "-V"):
        result = invoke(flag)
        assert result.exit_code == 0
        assert result.output == f"hiveai, version {__version__}\n"
    assert metadata.version("hiveai") == __version__


def test_main_help_says_how_to_quit_and_where_the_protocol_is():
    text = " ".join(invoke("-h").output.split())
    assert "`exit`" in text and "end of input" in text
    assert "https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol" in text


# --- GameString arguments ------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["perft", "--depth", "2"], ["analyse", "--depth", "1"], ["book", "show"]],
                         ids=lambda c: c[0] if c[0] != "book" else "book show")
@pytest.mark.parametrize("game,declared,actual", [
    ("Base;BlackWins;Black[41]", "BlackWins;Black[41]", "NotStarted;White[1]"),  # finished, but no moves
    ("Base;InProgress;White[1]", "InProgress;White[1]", "NotStarted;White[1]"),
    ("Base;InProgress;White[3];wS1;bS1 wS1-", "InProgress;White[3]", "InProgress;White[2]"),
])
def test_contradictory_game_string_is_refused(command, game, declared, actual):
    """The command line reports on exactly the position asked for: a state that the moves do not
    lead to is a usage error (exit 2) naming both, and nothing is computed from another position."""
    result = invoke(*command, game)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert f"says {declared}, but its move list" in text and f"gives {actual}." in text
    assert "perft from" not in result.output and "depth" not in result.stdout


def test_consistent_game_strings_are_accepted_in_any_letter_case():
    for game in ("base;notstarted;white[1]", "Base;InProgress;Black[1];wS1", "Base"):
        result = invoke("perft", "--depth", "1", "--json", game)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["leaves"] > 0


def test_perft_on_a_finished_game_counts_no_leaves():
    """A finished game has no moves, so every depth has 0 leaves (perft's definition); stderr says why."""
    board = Board("Base")
    for m in WON:
        board.play(m)
    assert board.state == "WhiteWins"
    result = invoke("perft", "--depth", "3", "--json", board.game_string())
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["leaves"] for line in result.stdout.splitlines()] == [0, 0, 0]
    assert "game is over (WhiteWins)" in result.stderr


def test_bad_game_string_is_a_usage_error():
    result = invoke("perft", "Base;InProgress;White[2];wS1;bQ wS1-")
    assert result.exit_code == 2
    assert "Invalid value for GAME" in result.output and "bQ wS1-" in result.output


# --- package metadata -----------------------------------------------------------------------------


def test_licence_file():
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "hiveai developers" in text


def test_package_metadata():
    """What `pip show` and PyPI display. An editable install writes it at install time: after editing
    pyproject.toml, run `pip install -e '.[test]'` again."""
    meta = metadata.metadata("hiveai")
    assert meta["License"] == "MIT"
    assert "License :: OSI Approved :: MIT License" in meta.get_all("Classifier")
    assert meta["Author"] == "hiveai developers"
    # Only links that are real: the project has no home page of its own yet.
    assert meta["Home-page"] is None
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls == {"UHP specification": "https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol",
                    "MzingaViewer": "https://github.com/jonthysell/Mzinga"}
    assert "hive" in meta["Keywords"].split(",")
    assert meta["Requires-Python"] == ">=3.11"
    requires = meta.get_all("Requires-Dist")
    for name, version in min_versions().items():  # the lower bounds CI tests
        spec = next(r for r in requires if re.match(rf"{name}\b", r))
        assert re.match(rf"{name}>={re.escape(version)}(;|$)", spec.replace(" ", "")), spec


def min_versions() -> dict[str, str]:
    """The pins of .ci/min-versions.txt, the oldest versions CI installs and tests."""
    pins = {}
    for line in (REPO / ".ci" / "min-versions.txt").read_text().splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name] = version
    return pins


def test_lower_bounds_are_the_tested_minimum_versions():
    """pyproject's lower bounds are exactly the pins CI tests, and bound nothing from above."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    # The train extra (hiveai train's fit) is not installed with the oldest versions: scikit-learn
    # 1.9.1, the one tested, needs numpy >= 1.24.1, above the oldest numpy (.ci/min-versions.txt).
    extras = {name: specs for name, specs in project["optional-dependencies"].items() if name != "train"}
    specs = project["dependencies"] + [s for extra in extras.values() for s in extra]
    bounds = {}
    for spec in specs:
        name, version = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", spec).groups()
        assert bounds.setdefault(name, version) == version, spec
    assert bounds == min_versions()


@pytest.mark.integration
def test_pip_show_displays_licence_and_no_invented_homepage():
    out = subprocess.run([sys.executable, "-m", "pip", "show", "hiveai"], capture_output=True, text=True,
                         check=True).stdout
    assert "License: MIT\n" in out
    # pip prints an empty Home-page line (or, on newer pips, none) when there is no home page.
    assert not re.search(r"^Home-page: \S", out, re.MULTILINE), out
    assert "github.com/hiveai" not in out
