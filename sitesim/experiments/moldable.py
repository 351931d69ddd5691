"""The paper's replay experiments with moldable jobs (Cirne & Berman 1999, section 5).

- :func:`slice_trace` cuts a log into slices of ``days`` days by submit time (the paper:
  one-month workloads), each replayed on an empty machine;
- :func:`run_moldable` replays a log, or each of its slices, with a share of the jobs
  replaced (the *bushel of AppLeS*) and reports the replaced jobs' turn-around and the
  load ratio over all slices -- what ``sitesim -c LOG --moldable F`` runs;
- :func:`one_apples` replaces a single job of a slice and replays the slice under each
  policy: the application's turn-around under Gas and under static (*one AppLeS*).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from sitesim.errors import InputError
from sitesim.moldable.replace import MoldableSpec, moldable_block
from sitesim.runs.outdir import OutputDir
from sitesim.runs.output import summary_document, write_json
from sitesim.runs.replay import DEFAULT_NODES, ReplayConfig, ReplayResult, run_replay
from sitesim.workload.swf import SwfReader, SwfRecord, read_swf, write_swf

DAY = 86_400

#: The logs of the paper's section 5, by the name the tables use: the archive's
#: cleaned versions (file names under SITESIM_TRACES).
PAPER_LOGS = {
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
}


def slice_trace(
    path: str | Path,
    days: float,
    directory: Path,
    *,
    skip_malformed: bool = False,
    max_slices: int | None = None,
) -> list[Path]:
    """Write the log's slices of ``days`` days (from its first submit) as SWF files.

    Each slice keeps the log's header (machine size), and its jobs keep their numbers
    and times; empty slices are left out. With ``max_slices``, only the first ones are
    written and the rest of the log is not read.
    """
    if not days > 0:
        raise InputError(f"slice length must be positive, got {days}", field="--slice-days")
    width = days * DAY
    paths: list[Path] = []
    with SwfReader(path, skip_malformed=skip_malformed) as reader:
        t0: float | None = None
        current: list[SwfRecord] = []
        index = -1

        def flush() -> None:
            out = directory / f"slice-{index:03d}.swf"
            start = (t0 or 0) + index * width
            note = f"; sitesim: slice {index} ({days:g} days from submit {start:g}) of {Path(path).name}"
            write_swf(out, current, [*reader.header.lines, note])
            paths.append(out)

        for record in reader:
            if t0 is None:
                t0 = record.submit_time
            k = int((record.submit_time - t0) // width)
            if k != index:
                if current:
                    flush()
                    if max_slices is not None and len(paths) >= max_slices:
                        return paths
                current, index = [], k
            current.append(record)
        if current:
            flush()
    return paths


def run_slices(config: ReplayConfig, slice_days: float | None) -> list[ReplayResult]:
    """Replay the whole log (``slice_days`` None) or each of its slices."""
    if slice_days is None:
        return [run_replay(config)]
    with tempfile.TemporaryDirectory(prefix="sitesim-slices-") as tmp:
        paths = slice_trace(config.trace, slice_days, Path(tmp), skip_malformed=config.skip_malformed)
        return [run_replay(attrs.evolve(config, trace=str(p))) for p in paths]


def moldable_document(config: ReplayConfig, slice_days: float | None, results: list[ReplayResult]) -> dict[str, Any]:
    """summary.json of a moldable replay: the ``moldable`` block over all slices, and per slice."""
    assert config.moldable is not None
    parts = [r.replacement for r in results if r.replacement is not None]
    slices = [
        {
            "trace_jobs": r.counts,
            "system": {k: r.summary[k] for k in ("utilization", "mean_wait", "mean_response", "completed")},
            "moldable": r.replacement.summary() if r.replacement else {},
        }
        for r in results
    ]
    document_config = attrs.asdict(config)
    document_config["slice_days"] = slice_days
    return summary_document(
        "moldable-replay",
        document_config,
        {"moldable": moldable_block(config.moldable.policy, parts), "slices": slices},
    )


def run_moldable(
    config: ReplayConfig, slice_days: float | None = None, out: Path | None = None
) -> tuple[list[ReplayResult], dict[str, Any]]:
    """Replay with moldable replacement; with ``out``, write summary.json there."""
    if config.moldable is None:
        raise ValueError("run_moldable needs a config with a moldable spec")
    with ExitStack() as stack:
        # Entered first, so a refused target fails before the replays, not after.
        staged = stack.enter_context(OutputDir(out)) if out is not None else None
        results = run_slices(config, slice_days)
        document = moldable_document(config, slice_days, results)
        if staged is not None:
            write_json(staged.path("summary.json"), document)
    return results, document


def one_apples(
    slice_path: str | Path,
    job: int,
    *,
    policies: Iterable[str] = ("gas", "static"),
    seed: int = 0,
    estimates: str = "trace",
) -> dict[str, int]:
    """Turn-around of job ``job`` of the slice, made moldable, under each policy."""
    out = {}
    for policy in policies:
        spec = MoldableSpec(policy=policy, jobs=(job,), stop_when_done=True)
        config = ReplayConfig(trace=str(slice_path), scheduler="cons", estimates=estimates, seed=seed, moldable=spec)
        result = run_replay(config)
        assert result.replacement is not None
        records = result.replacement.records
        if len(records) != 1:
            raise InputError(f"job {job} is not replayed from {slice_path}")
        out[policy] = records[0].turnaround
    return out


def replaceable_jobs(slice_path: str | Path, count: int, rng: np.random.Generator) -> list[int]:
    """``count`` distinct job numbers of the slice, uniformly, among jobs a replay runs."""
    header, records = read_swf(slice_path)
    nodes = header.machine_size() or DEFAULT_NODES
    ok = [
        r.job_number for r in records
        if 0 < (r.allocated_processors if r.allocated_processors > 0 else r.requested_processors) <= nodes
        and r.run_time >= 0
    ]
    picks = rng.choice(len(ok), size=min(count, len(ok)), replace=False)
    return [ok[int(k)] for k in sorted(picks)]


def one_apples_runs(
    trace: str | Path, per_slice: int, *, slice_days: float = 30, seed: int = 0, max_slices: int | None = None
) -> list[dict[str, Any]]:
    """One AppLeS over the log's slices: ``per_slice`` replaced jobs each, Gas vs static."""
    rng = np.random.default_rng(seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sitesim-slices-") as tmp:
        for k, path in enumerate(slice_trace(trace, slice_days, Path(tmp), max_slices=max_slices)):
            for job in replaceable_jobs(path, per_slice, rng):
                t = one_apples(path, job, seed=seed)
                rows.append({"slice": k, "job": job, **t})
    return rows


def run_replay_command(args: argparse.Namespace, config: ReplayConfig) -> int:
    """``sitesim -c LOG --moldable F ...``: replay (by slices), print and write the block."""
    spec = MoldableSpec(
        policy=args.moldable_policy or "gas", fraction=args.moldable, table=args.moldable_table
    )
    config = attrs.evolve(config, moldable=spec)
    started = time.perf_counter()
    cpu = time.process_time()
    results, document = run_moldable(config, args.slice_days, args.out)
    m = document["moldable"]
    print(
        f"# moldable ({m['policy']}): {m['jobs']} jobs replaced in {len(results)} replay(s);"
        f" turn-around mean {m['mean_turnaround']:.0f} s, median {m['median_turnaround']:.0f} s,"
        f" max {m['max_turnaround']} s; load ratio {m['load_ratio']:.4f}"
    )
    print(
        f"# {sum(r.counts['submitted'] for r in results)} jobs replayed in"
        f" {time.perf_counter() - started:.2f} s ({time.process_time() - cpu:.2f} s CPU)"
    )
    return 0
