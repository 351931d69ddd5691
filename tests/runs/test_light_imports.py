"""The replay path stays light: it imports only what a replay uses; and no site run
nor fit imports scipy.

No scipy or matplotlib to replay a trace; and with the trace's own estimates (the
default), no numpy, simulated users, trace analysis or site-level runner (numpy alone
costs more to import than the rest of a small replay). Start-up is most of the time of
a small replay (docs/performance.md), so each of these would be paid by every short run
and by every process of a sweep.

Checked in a fresh interpreter (this test process may have imported them already),
through the whole command: parse the arguments, replay, print the summary.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Runs ``sitesim`` with the arguments after the first, then lists the modules of the
#: first (comma-separated names: packages, or modules' parents) it imported.
SCRIPT = """
import sys
from sitesim.cli import main
code = main(sys.argv[2:])
unwanted = set(sys.argv[1].split(","))
heavy = sorted(m for m in sys.modules if m.split(".")[0] in unwanted or m.rsplit(".", 1)[0] in unwanted)
print("HEAVY", heavy[:5], file=sys.stderr)
sys.exit(code if not heavy else 3)
"""
#: Never on the replay path.
HEAVY = "scipy,matplotlib"
#: Not needed by a replay with the trace's estimates either.
UNUSED = "numpy,sitesim.users,sitesim.analysis,sitesim.distributions,sitesim.runs.site,sitesim.moldable"


def replay_imports(tmp_path: Path, scheduler: str, unwanted: str) -> subprocess.CompletedProcess[str]:
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 -1 -1 -1 -1\n")
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, unwanted, "-c", str(trace), "-s", scheduler],
        capture_output=True, text=True, timeout=120,
    )


def test_replay_imports_neither_scipy_nor_matplotlib(tmp_path: Path) -> None:
    done = replay_imports(tmp_path, "easy", HEAVY)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr


@pytest.mark.parametrize("scheduler", ["fcfs", "easy", "cons", "timed:easy"])
def test_replay_with_trace_estimates_imports_only_what_it_uses(tmp_path: Path, scheduler: str) -> None:
    done = replay_imports(tmp_path, scheduler, f"{HEAVY},{UNUSED}")
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr


def test_bench_script_smoke(tmp_path: Path) -> None:
    """scripts/bench.py runs end to end on tiny workloads and prints its tables."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"
    done = subprocess.run(
        [sys.executable, str(script), "--traces", str(tmp_path), "--jobs", "200",
         "--scales", "1,2", "--repeat", "1", "--users", "", "--compare", "1"],
        capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| synthetic")]
    # fcfs and easy at 1x and 2x, cons at 1x, then the comparison row
    assert len(rows) == 6
    assert "| 400 |" in rows[3]
    assert rows[3].count("|") == 8
    assert "| cons |" in rows[4]
    assert rows[5].count("|") == 11  # the ratios, the SimPy floor, sitesim without output
    assert sum(line.startswith("| start-up") for line in done.stdout.splitlines()) == 1
    assert sum(line.startswith("| interpreter alone") for line in done.stdout.splitlines()) == 1


def test_bench_peers_names_what_it_found(tmp_path: Path) -> None:
    """``bench.py --peers`` times sitesim on the same trace whatever is installed, and
    says which peers it found and why the others are missing."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"
    done = subprocess.run(
        [sys.executable, str(script), "--peers", "--jobs", "100", "--repeat", "1",
         "--accasim-python", str(tmp_path / "no-python"), "--pyss", str(tmp_path)],
        capture_output=True, text=True, timeout=240,
        # without logs, the peers run on bench.py's synthetic trace (with them, on KTH-SP2)
        env={k: v for k, v in os.environ.items() if k != "SITESIM_TRACES"},
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert "# peers found: none" in out
    assert any(line.startswith("# AccaSim: not importable by") for line in out)
    assert f"# pyss: {tmp_path / 'run_simulator.py'} not found" in out
    rows = [line for line in out if line.startswith("| synthetic-100.swf |")]
    assert len(rows) == 1 and "| sitesim |" in rows[0] and rows[0].endswith("| 1.00 |")


def test_bench_peers_copy_gives_accasim_a_memory_request(tmp_path: Path) -> None:
    """AccaSim's copy of a trace has field 10 set to 1 on job lines, the rest unchanged."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    try:
        from bench_peers import plain_copy
    finally:
        sys.path.pop(0)
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 8\n1 0 -1 5 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n\n")
    copy = plain_copy(trace, tmp_path / "copy.swf", memory=True)
    assert copy.read_text() == "; MaxProcs: 8\n1 0 -1 5 2 -1 -1 2 10 1 1 1 1 -1 1 -1 -1 -1\n\n"
    assert plain_copy(trace, tmp_path / "plain.swf").read_text() == trace.read_text()


def test_the_fit_and_site_runs_import_no_scipy(tmp_path: Path) -> None:
    """``sitesim fit``, a fitted site and the default site run without scipy: its
    import is half a second of CPU (docs/service.md, "Speed"), once paid by every site
    run through the population table's checks, and the fit's own uses of it were a
    bounded minimization and the normal quantile function."""
    from tests.helpers import stress_trace

    log = stress_trace(tmp_path / "log.swf")
    for argv in (["fit", str(log), "-o", str(tmp_path / "fit")],
                 ["--site", str(tmp_path / "fit" / "site.toml"), "--duration", "2"], ["--duration", "1"]):
        done = subprocess.run([sys.executable, "-c", SCRIPT, "scipy", *argv], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "HEAVY []" in done.stderr


def test_fit_speed_script_smoke(tmp_path: Path) -> None:
    """scripts/fit_speed.py fits a log and runs a year in two trees (here the same one,
    twice) and prints each round's ratio and their median; another folder is refused."""
    from tests.helpers import stress_trace

    script = Path(__file__).resolve().parents[2] / "scripts" / "fit_speed.py"
    root = str(Path(__file__).resolve().parents[2])
    log = stress_trace(tmp_path / "log.swf", n=400)
    done = subprocess.run([sys.executable, str(script), str(log), "--against", root, "--rounds", "1", "--year"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| fit") or line.startswith("| fitted year")]
    assert len(rows) == 4 and all(line.count("|") == 6 for line in rows)
    assert "median (range)" in rows[1] and "median (range)" in rows[3]
    refused = subprocess.run([sys.executable, str(script), str(log), "--against", str(tmp_path)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "not a checkout of sitesim" in refused.stderr
