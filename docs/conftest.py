"""The pages' examples run as doctests: ``pytest`` collects every ``docs/**/*.md``.

Only the ``>>>`` examples inside fenced ``python`` (or ``pycon``) blocks are run, so a page can show a
shell session (a ``sh`` or plain fence) without its being collected, and the closing fence is not
read as expected output. An example that cannot run takes ``# doctest: +SKIP``. The examples of one
page share one namespace, top to bottom, as a reader types them. Line numbers in a failure are the
page's own.
"""

from __future__ import annotations

import doctest
import re

import pytest

collect_ignore = ["conf.py"]  # Sphinx's configuration, not a test module

FENCE = re.compile(r"^```(?:python|pycon)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def doctest_source(text: str) -> str:
    """The page with everything outside the python fences blanked out, line numbers kept.

    >>> doctest_source("Text\\n```python\\n>>> 1 + 1\\n2\\n```\\n```sh\\n>>> not run\\n```\\n")
    '\\n\\n>>> 1 + 1\\n2\\n\\n\\n\\n\\n'
    """
    kept = [False] * (text.count("\n") + 1)
    for fence in FENCE.finditer(text):
        first = text.count("\n", 0, fence.start(1))
        for line in range(first, first + fence.group(1).count("\n")):
            kept[line] = True
    return "\n".join(line if keep else "" for line, keep in zip(text.split("\n"), kept))


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".md":
        return MarkdownFile.from_parent(parent, path=file_path)
    return None


class MarkdownFile(pytest.File):
    def collect(self):
        source = doctest_source(self.path.read_text(encoding="utf-8"))
        test = doctest.DocTestParser().get_doctest(source, {"__name__": self.path.stem}, self.path.name,
                                                   str(self.path), 0)
        if test.examples:
            yield MarkdownDoctest.from_parent(self, name=self.path.name, dtest=test)


class MarkdownDoctestFailure(Exception):
    """The doctest report of a page whose examples did not run as shown."""


class MarkdownDoctest(pytest.Item):
    def __init__(self, *, dtest: doctest.DocTest, **kwargs):
        super().__init__(**kwargs)
        self.dtest = dtest

    def runtest(self) -> None:
        report: list[str] = []
        runner = doctest.DocTestRunner()
        runner.run(self.dtest, out=report.append)
        if runner.failures:
            raise MarkdownDoctestFailure("".join(report))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MarkdownDoctestFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"[doctest] {self.name}"
