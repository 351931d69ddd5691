"""ruff and mypy are clean (both are in the test extra; skipped where not installed)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_is_clean() -> None:
    done = _run("ruff", "check", "sitesim", "tests", "scripts", "examples")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean() -> None:
    done = _run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
