"""``scripts/bench.py --peers``: sitesim beside the peer simulators installed here.

Each peer replays the same SWF file under EASY backfilling as a whole process, run
alternately with ``sitesim -c TRACE -s easy --out DIR`` so that both see the same
machine; the table gives CPU seconds (user + system of the process and whatever it
waited for) and the peer's time as a multiple of sitesim's. No peer's code is part of
sitesim: a peer is found where it is installed, and driven through its own entry
points.

- **AccaSim** (PyPI ``accasim``; 1.1.3 needs Python 3.9 or older): an interpreter that
  can ``import accasim`` is looked for (``--accasim-python``, else this Python, else
  ``python3.9`` on the PATH). It runs its ``EASYBackfilling`` dispatcher with its
  ``FirstFit`` allocator on a machine of one-core nodes, as many as the trace's
  header gives, and writes its own outputs into a scratch folder. Its SWF reader needs
  a memory request, so it reads a copy of the trace whose field 10 (requested memory)
  is 1 on every job line.
- **pyss** (the Parallel Job Scheduling Simulator, Python 2): only from a checkout
  given by path (``--pyss PATH``), run as ``run_simulator.py --num-processors N
  --input-file FILE``, its EASY scheduler, by ``--pyss-python`` (else ``python2`` or
  ``pypy`` on the PATH), on a decompressed copy of the trace.

A peer that cannot be found or fails is reported with the reason, and the rest of the
table is still printed.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sitesim.workload.swf import SwfReader

#: The SWF field AccaSim's reader insists on (1-based): requested memory.
MEMORY_FIELD = 10

#: Driver run by AccaSim's interpreter: argv = trace, system configuration, results folder.
ACCASIM_DRIVER = """
import sys
from accasim.base.allocator_class import FirstFit
from accasim.base.scheduler_class import EASYBackfilling
from accasim.base.simulator_class import Simulator
trace, system, results = sys.argv[1:4]
Simulator(trace, system, EASYBackfilling(FirstFit()), RESULTS_FOLDER_PATH=results,
          show_statistics=False).start_simulation()
"""


@dataclass(frozen=True)
class Peer:
    """A peer simulator found here: its name, version, and how to run it on a trace."""

    name: str
    version: str
    #: The command line for (trace as read by sitesim, machine size, scratch folder).
    command: Callable[[Path, int, Path], list[str]]


def child_cpu(argv: list[str], cwd: Path) -> float:
    """CPU seconds (user + system) of one whole process and the children it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        raise RuntimeError(f"{Path(argv[1]).name if len(argv) > 1 else argv[0]} exited {done.returncode}: {tail[0]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def plain_copy(trace: Path, dest: Path, *, memory: bool = False) -> Path:
    """``trace`` decompressed into ``dest``; with ``memory``, field 10 set to 1 on job lines."""
    opener = gzip.open if trace.suffix == ".gz" else open
    with opener(trace, "rt") as src, open(dest, "w") as out:
        for line in src:
            fields = line.split()
            if memory and fields and not fields[0].startswith(";") and len(fields) >= MEMORY_FIELD:
                fields[MEMORY_FIELD - 1] = "1"
                line = " ".join(fields) + "\n"
            out.write(line)
    return dest


def machine_size(trace: Path) -> int:
    """The trace header's machine size (as sitesim reads it), else 128."""
    with SwfReader(trace) as reader:
        return reader.header.machine_size() or 128


def _probe(python: str, code: str) -> str | None:
    """What ``python -c code`` prints, or None if that interpreter is missing or fails."""
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def find_accasim(given: str | None, tried: list[str]) -> Peer | None:
    """AccaSim in the first interpreter that imports it (see the module docstring)."""
    candidates = [given] if given else [sys.executable, shutil.which("python3.9") or ""]
    for python in filter(None, candidates):
        version = _probe(python, "import importlib.metadata as m; print(m.version('accasim'))")
        if version is None:
            tried.append(f"AccaSim: not importable by {python}")
            continue

        def command(trace: Path, nodes: int, scratch: Path, python: str = python) -> list[str]:
            system = scratch / "accasim-system.json"
            system.write_text(json.dumps({"groups": {"node": {"core": 1, "mem": 2**40}}, "resources": {"node": nodes}}))
            copy = plain_copy(trace, scratch / f"accasim-{trace.name.removesuffix('.gz')}", memory=True)
            return [python, "-c", ACCASIM_DRIVER, str(copy), str(system), str(scratch / "accasim-results")]

        return Peer("AccaSim", version, command)
    return None


def find_pyss(checkout: str | None, python: str | None, tried: list[str]) -> Peer | None:
    """pyss from a checkout given by path (see the module docstring)."""
    if not checkout:
        tried.append("pyss: no checkout given (--pyss PATH)")
        return None
    script = Path(checkout) / "run_simulator.py"
    if not script.is_file():
        tried.append(f"pyss: {script} not found")
        return None
    interpreter = python or shutil.which("python2") or shutil.which("pypy")
    if interpreter is None or _probe(interpreter, "import sys; print(sys.version_info[0])") is None:
        tried.append(f"pyss: no working Python 2 interpreter ({interpreter or 'none on the PATH'}; --pyss-python)")
        return None

    def command(trace: Path, nodes: int, scratch: Path) -> list[str]:
        copy = plain_copy(trace, scratch / f"pyss-{trace.name.removesuffix('.gz')}")
        return [interpreter, str(script), "--num-processors", str(nodes), "--input-file", str(copy)]

    return Peer("pyss", checkout, command)


def run_peers(
    traces: list[Path],
    repeat: int,
    *,
    accasim_python: str | None,
    pyss: str | None,
    pyss_python: str | None,
) -> int:
    """Print which peers were found, then the table of CPU times and ratios."""
    tried: list[str] = []
    peers = [p for p in (find_accasim(accasim_python, tried), find_pyss(pyss, pyss_python, tried)) if p]
    print("# peers found: " + (", ".join(f"{p.name} ({p.version})" for p in peers) or "none"))
    for reason in tried:
        print(f"# {reason}")
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sitesim-peers-") as tmp:
        scratch = Path(tmp)
        for trace in traces:
            nodes = machine_size(trace)
            sitesim = [sys.executable, "-m", "sitesim", "-c", str(trace), "-s", "easy", "--out", str(scratch / "sitesim")]
            commands = {"sitesim": sitesim}
            for peer in peers:
                commands[peer.name] = peer.command(trace, nodes, scratch)
            cpus: dict[str, list[float]] = {name: [] for name in commands}
            failed: dict[str, str] = {}
            for _ in range(repeat):
                for name, argv in commands.items():
                    if name in failed:
                        continue
                    try:
                        cpus[name].append(child_cpu(argv, scratch))
                    except RuntimeError as exc:
                        failed[name] = str(exc)
            if "sitesim" in failed:
                raise RuntimeError(failed["sitesim"])
            ours = statistics.median(cpus["sitesim"])
            rows.append(f"| {trace.name} | sitesim | {ours:.2f} | {min(cpus['sitesim']):.2f}–{max(cpus['sitesim']):.2f} | 1.00 |")
            for peer in peers:
                if peer.name in failed:
                    rows.append(f"| {trace.name} | {peer.name} | failed | {failed[peer.name]} | – |")
                    continue
                times = cpus[peer.name]
                theirs = statistics.median(times)
                rows.append(
                    f"| {trace.name} | {peer.name} | {theirs:.2f} | {min(times):.2f}–{max(times):.2f} | {theirs / ours:.1f} |"
                )
    print(f"# EASY, whole processes, CPU s (user + system), median of {repeat} alternating runs")
    print("| trace | simulator | CPU s | min–max | × sitesim |")
    print("|---|---|---:|---:|---:|")
    for row in rows:
        print(row)
    print(f"# load averages after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0
