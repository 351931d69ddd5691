"""The replay path stays light: no scipy or matplotlib is imported to replay a trace.

Checked in a fresh interpreter (this test process may have imported them already),
through the whole command: parse the arguments, replay, print the summary.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from sitesim.cli import main
code = main(["-c", sys.argv[1], "-s", "easy"])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("scipy", "matplotlib"))
print("HEAVY", heavy, file=sys.stderr)
sys.exit(code if not heavy else 3)
"""


def test_replay_imports_neither_scipy_nor_matplotlib(tmp_path: Path) -> None:
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(trace)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr


def test_bench_script_smoke(tmp_path: Path) -> None:
    """scripts/bench.py runs end to end on a tiny synthetic workload and prints its table."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"
    done = subprocess.run(
        [sys.executable, str(script), "--traces", str(tmp_path), "--jobs", "200",
         "--scales", "1,2", "--repeat", "1"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| synthetic")]
    assert len(rows) == 4
    assert "| 400 |" in rows[-1]
    assert rows[-1].count("|") == 8
