"""The house in layers: import-linter's contracts in pyproject.toml hold.

Rules, evaluation, search, the engine (hiveai.player), the front ends, the CLI: each imports only
from the layers below it, imports inside functions included; nothing below the front ends imports
the web server, the CLI library, Ray or scikit-learn. The contracts are in ``[tool.importlinter]``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.integration  # runs lint-imports


def test_import_linter_contracts_are_kept():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in run.stdout
