"""README stays a short front page: at most 80 lines, links that resolve, the set-up commands CI uses,
a Python example that runs, and no CI counts (those belong to a CI run, not to the README)."""

from __future__ import annotations

import doctest
import importlib.util
import re
import unicodedata
from pathlib import Path

REPO = Path(__file__).parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")

# The two commands a newcomer pastes; .ci/run installs the test one exactly as README says.
ENGINE_COMMAND = "python3 -m venv .venv && . .venv/bin/activate && pip install . && hiveai warmup && hiveai"
TEST_COMMAND = "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && pytest"

INLINE_LINK = re.compile(r"\]\(([^)\s]+)\)")
REFERENCE_LINK = re.compile(r"^\[[^\]]+\]:\s*(\S+)", re.MULTILINE)


def relative_links(text: str) -> list[str]:
    """The links of a Markdown text that point into the repository (not to a web address).

    >>> relative_links("[a](docs/a.md) [b](https://x.org) [c](#top)\\n[d]: docs/d.md#part\\n")
    ['docs/a.md', 'docs/d.md#part']
    """
    links = INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)
    return [link for link in links if not re.match(r"[a-z]+:|#", link)]


def heading_slugs(markdown: str) -> set[str]:
    """The anchors of a page's headings, as GitHub and the docs site (MyST) make them.

    >>> sorted(heading_slugs("# Tournaments: `hiveai tournament`\\n## Example: depth 1, 2 and 3\\n"))
    ['example-depth-1-2-and-3', 'tournaments-hiveai-tournament']
    """
    slugs = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", markdown, re.MULTILINE):
        text = unicodedata.normalize("NFKC", heading).lower()
        slugs.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return slugs


def test_readme_is_one_screen_or_so():
    assert len(README.splitlines()) <= 80


def test_every_readme_link_into_the_repository_resolves():
    links = relative_links(README)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        path, _, anchor = link.partition("#")
        target = REPO / path
        assert target.exists(), f"README links to {link}, which does not exist"
        if anchor:
            assert anchor in heading_slugs(target.read_text(encoding="utf-8")), f"no heading #{anchor} in {path}"


def test_readme_gives_the_two_set_up_commands_ci_uses():
    lines = README.splitlines()
    assert ENGINE_COMMAND in lines and TEST_COMMAND in lines
    assert "pip install '.[test]'" in (REPO / ".ci" / "run").read_text()


def test_readme_quotes_no_ci_counts():
    assert not re.search(r"\d[\d,]* (fast |slow )?tests? in \d", README), "CI counts belong to the CI log"


def docs_conftest():
    """docs/conftest.py, the pages' doctest collector, under a name of its own."""
    spec = importlib.util.spec_from_file_location("docs_conftest", REPO / "docs" / "conftest.py")
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    return pages


def test_docs_collector_examples_run():
    """The docstring examples of docs/conftest.py (not collected itself: see its collect_ignore)."""
    result = doctest.testmod(docs_conftest(), report=True)
    assert result.attempted >= 1 and result.failed == 0


def test_readme_python_example_runs():
    """README's Python example runs as shown, read the way the docs pages' examples are (docs/conftest.py)."""
    pages = docs_conftest()
    test = doctest.DocTestParser().get_doctest(pages.doctest_source(README), {}, "README.md", "README.md", 0)
    assert len(test.examples) >= 5
    result = doctest.DocTestRunner().run(test)  # prints any failure, which pytest shows
    assert result.failed == 0
