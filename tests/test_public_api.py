"""The library's public surface: hiveai.__all__ and hiveai.engine.__all__.

Every public name is documented with a runnable example (the doctests run
with the rest of the suite: pyproject's --doctest-modules); ``import hiveai``
stays cheap; type checkers see the names (the slow packaging tests run mypy).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest

import hiveai
import hiveai.engine


@pytest.mark.parametrize("module", [hiveai, hiveai.engine], ids=lambda m: m.__name__)
def test_every_public_name_has_a_docstring_with_an_example(module):
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__doc__ and ">>>" in obj.__doc__, f"{module.__name__}.{name} has no example"
            assert obj.__module__.startswith("hiveai"), name
        else:  # a constant: used in an example of the package's own docstring
            assert any(name in line for line in module.__doc__.splitlines() if line.startswith(">>>")), name


def test_the_lazy_names_are_the_real_ones_and_listed():
    from hiveai.rules.board import Board
    from hiveai.rules.bug import WHITE
    from hiveai.player import Engine
    from hiveai.search.searcher import SearchResult
    from hiveai.search.timeman import Limit

    assert hiveai.Board is Board and hiveai.Limit is Limit and hiveai.WHITE == WHITE
    assert hiveai.Engine is Engine and hiveai.ThinkResult is hiveai.SearchResult is SearchResult
    assert set(hiveai.__all__) <= set(dir(hiveai)) and "engine" in dir(hiveai)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        hiveai.nope  # noqa: B018


@pytest.mark.integration
def test_import_hiveai_and_hiveai_engine_load_no_numba():
    code = ("import sys, hiveai, hiveai.engine, hiveai.player, hiveai.search.timeman, hiveai.uhp.server, hiveai.rules.cell;"
            " hiveai.Engine(); print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": ""})
    assert out.stdout.strip() == "False", out.stderr


def test_the_python_api_page_runs():
    """docs/python-api.md's examples are doctests too."""
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "docs" / "python-api.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0
