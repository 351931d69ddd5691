"""Every script in examples/ runs (with a short simulated period) and prints its result."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
#: Short runs: simulated days (and replications for the comparison).
ARGS = {"compare.py": ["5", "2"], "new_scheduler.py": ["5"], "new_user_model.py": ["5"]}


def test_every_example_is_exercised() -> None:
    assert {p.name for p in EXAMPLES} == set(ARGS)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script), *ARGS[script.name]], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines, "no output"
    if script.name == "compare.py":
        assert lines[0].startswith("| scheduler |") and len(lines) == 6
        assert "new_scheduler:SmallestFirst" in lines[-1]
    if script.name == "new_user_model.py":
        assert [line.split()[0] for line in lines] == ["batch", "steady"]
