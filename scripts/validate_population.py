"""Regenerate docs/validation.md: fitted sites simulated and compared with their logs.

For the six shared logs (in ``$SITESIM_TRACES`` or ``--traces``): CTC-SP2, KTH-SP2,
SDSC-SP2 and NASA-iPSC (the development logs) and LANL-CM5 and SDSC-BLUE (held out
before development: :data:`HELD_OUT`):

1. ``sitesim fit`` the log (its users, its machine and its fitted service);
2. simulate the fitted site for the log's duration, with its users, 5 seeds each
   (exact estimates, the simulator's default), in each :data:`VARIANTS`: the headline,
   the site as fitted (EASY behind the fitted service on its bounded machine); EASY
   on the nominal machine beside it; FCFS behind the same service (feedback); and
   ``hold``, every job given its wait in the log, a consistency check of the fit;
3. measure each simulated trace with the same analysis as the log (a log without
   waits on the starts its fit simulated) and hold it to the rules
   (:func:`sitesim.experiments.validation.rules`: the mean wait within ×/÷ 2 of the
   log's where the log records waits), means with 95% Student-t intervals over seeds;
4. replay the log under EASY, conventionally and with feedback, and compare;
5. blank field 3 (wait) of SDSC-SP2, fit that log (its starts simulated under EASY)
   and simulate it on the nominal machine beside the original fit (``--no-blanked``: not);
6. with ``--other-gaps``, fit each log again with each other kind of gaps inside a
   batch (``--gaps fixed``, ``--gaps reacting``; the fit's default is
   :data:`~sitesim.users.population_table.FIT_GAPS`) and simulate it behind its
   fitted service.

Usage: ``python scripts/validate_population.py [--traces DIR] [--seeds 5] [--jobs N]``.
The runs are independent and go to ``--jobs`` processes (default: the CPUs); the
results do not depend on how many. With ``--other-gaps``, about 20 minutes on a 2-core
machine. Writes docs/validation.md and
docs/figures/validation_hourly.png; ``--save FILE`` also keeps the measured results,
and ``--load FILE`` writes the document again from them without simulating.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import pickle
import sys
import tempfile
import time
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitesim.analysis.level_copula import FIT_LEVEL_MODEL, FIT_LEVEL_MODELS  # noqa: E402
from sitesim.experiments.validation import (  # noqa: E402
    TraceSignatures,
    compare_run,
    simulate_fitted,
    trace_signatures,
)
from sitesim.runs.fit import fit_log  # noqa: E402
from sitesim.users.population_table import FIT_GAPS  # noqa: E402
from validation_doc import (  # noqa: E402
    EXACT_REPLAY,
    NO_WAIT_LOG,
    OTHER_GAPS,
    SESSION_KEYS,
    VARIANTS,
    Variant,
    figure,
    render,
)

#: The shared logs, development logs first. LANL-CM5 and SDSC-BLUE were drawn as the
#: held-out pair before development began (``numpy.random.default_rng(33).choice``
#: over the five shared logs with waits): issue 33, docs/service.md.
LOGS = {
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "NASA-iPSC": "NASA-iPSC-1993-3.1-cln.swf.gz",
    "LANL-CM5": "LANL-CM5-1994-4.1-cln.swf.gz",
    "SDSC-BLUE": "SDSC-BLUE-2000-4.2-cln.swf.gz",
}
HELD_OUT = ("LANL-CM5", "SDSC-BLUE")
#: The published document and its figure (the default level model's results).
DOC = ROOT / "docs" / "validation.md"
FIGURE = ROOT / "docs" / "figures" / "validation_hourly.png"


#: Session signatures as the simulated users report their own sessions (summary.json,
#: productivity), beside the same signatures measured on their trace.
OWN_KEYS = {"jobs_per_session": "jobs_per_session", "session_hours": "mean_session_hours", "batches_per_session": "batches_per_session"}


def run_once(
    site: Path, log: TraceSignatures, variant: Variant, seed: int, nodes: int, duration: float, as_started: bool
) -> dict[str, float]:
    """One seed of one variant of a fitted site, measured against the log (in a worker;
    ``as_started``: against a log without waits, as its accounting recorded jobs)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        summary = simulate_fitted(site, out, seed=seed, scheduler=variant.scheduler, service=variant.service)
        values = compare_run(log, out / "trace.swf", nodes=nodes, duration=duration, as_started=as_started)
        values["completed"] = float(summary["completed"])
        # the users' own account of their sessions (docs/metrics.md, "User productivity")
        own = json.loads((out / "summary.json").read_text())["productivity"]
        for key, name in OWN_KEYS.items():
            values[f"own_{key}"] = float(own[name])
        if variant.scheduler == "hold":
            values.update(beyond_machine(out / "trace.swf", nodes))
    return values


def beyond_machine(trace: Path, nodes: int) -> dict[str, float]:
    """How far a run of the log's waits (which starts every job at its recorded wait,
    whatever the nodes) is from a machine of ``nodes``: the share of time the nodes in
    use exceed it, the share of node-seconds run above it, and the peak over it."""
    from sitesim.analysis.cleaning import clean_records
    from sitesim.workload.swf import SwfReader

    with SwfReader(trace) as reader:
        jobs, _ = clean_records(reader)
    starts = np.array([j.submit + j.wait for j in jobs])
    ends = starts + np.array([j.run for j in jobs])
    sizes = np.array([j.size for j in jobs], dtype=float)
    times = np.concatenate([starts, ends])
    change = np.concatenate([sizes, -sizes])
    order = np.lexsort((change, times))  # at one instant, ends before starts
    busy = np.cumsum(change[order])[:-1]
    spans = np.diff(times[order])
    above = np.maximum(busy - nodes, 0.0)
    return {
        "over_time": float(spans[busy > nodes].sum() / spans.sum()),
        "over_work": float((above * spans).sum() / (busy * spans).sum()),
        "over_peak": float(busy[spans > 0].max() / nodes),
    }


def replays(path: Path, duration: float, starts: Any, per_node: int = 1) -> dict[str, dict[str, float]]:
    """The log replayed under EASY: conventionally, with feedback, and with exact estimates;
    ``per_node``: a whole-node log's processors per node (its fit's), so it is replayed in
    the nodes its site was fitted in."""
    from sitesim.runs.replay import ReplayConfig, run_replay

    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, feedback, estimates in (
            ("conventional replay", None, "trace"),
            ("replay with feedback", "absolute", "trace"),
            (EXACT_REPLAY, None, "exact"),
        ):
            out = Path(tmp) / label.replace(" ", "-").replace(",", "")
            config = ReplayConfig(trace=str(path), scheduler="easy", feedback=feedback, estimates=estimates,
                                  processors_per_node=per_node)
            result = run_replay(config, out=out)
            sig = trace_signatures(out / "schedule.swf", nodes=result.nodes, duration=duration)
            s = result.summary
            rows[label] = {
                "completed": float(s["completed"]),
                "utilization": float(s["utilization"]),
                "mean_wait": float(s["mean_wait"]),
                "mean_bounded_slowdown": float(s["mean_bounded_slowdown"]),
                "daytime_share": sig.values["daytime_share"],
                "makespan_days": float(s["makespan"]) / 86400,
                **{k: sig.values[k] for k in SESSION_KEYS},
            }
    return rows


def blank_waits(src: Path, dst: Path) -> None:
    """Copy the SWF log ``src`` to ``dst`` with field 3 (wait) set to -1 on every job."""
    with gzip.open(src, "rt") as fin, dst.open("w") as fout:
        for line in fin:
            if not line.startswith(";") and line.strip():
                fields = line.split()
                fields[2] = "-1"
                line = " ".join(fields) + "\n"
            fout.write(line)


def fit_one(
    name: str, path: Path, work: Path, gaps: str = FIT_GAPS, blank: bool = False, levels: str = FIT_LEVEL_MODEL
) -> dict[str, Any]:
    """Fit one log (optionally with its waits blanked), and measure the log as its fit did."""
    site = work / f"{name}-{gaps}{'-blank' if blank else ''}"
    source = path
    if blank:
        source = work / f"{name}-no-waits.swf"
        blank_waits(path, source)
    info = fit_log(source, site, gaps=gaps, levels=levels)
    population = json.loads((site / "population.json").read_text())
    duration = info.days * 86400
    fitted = {
        "site": site,
        "nodes": info.nodes,
        "duration": duration,
        "starts": info.starts,
        "measured": population["measured"],
        "service": population["provenance"].get("service", {}),
    }
    if not blank and gaps == FIT_GAPS:
        # a log without waits is measured on the starts its fit simulated
        log = trace_signatures(path, starts=info.starts, per_node=info.processors_per_node)
        fitted["log"] = log
        fitted["has_waits"] = info.starts is None
        fitted["replays"] = replays(path, duration, info.starts, info.processors_per_node)
    return fitted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes to run in (default: the CPUs)")
    parser.add_argument("--only", nargs="*", help="log names (default: all six)")
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--no-blanked", action="store_true", help=f"leave out {NO_WAIT_LOG} with its waits blanked")
    parser.add_argument("--other-gaps", action="store_true",
                        help="also fit with each other kind of gaps inside a batch than the fit's default")
    parser.add_argument("--levels", choices=FIT_LEVEL_MODELS, default=FIT_LEVEL_MODEL,
                        help="how the service's levels are fitted (sitesim fit --levels); other than the"
                        f" default ({FIT_LEVEL_MODEL}) it needs --doc, since {DOC.name} holds the default's results")
    parser.add_argument("--save", type=Path, help="also pickle the measured results to this file")
    parser.add_argument("--load", type=Path, help="write the document from results pickled by --save")
    args = parser.parse_args()
    if args.levels != FIT_LEVEL_MODEL and args.doc.resolve() == DOC:
        parser.error(f"--levels {args.levels} needs --doc: {DOC.name} holds the results of the default ({FIT_LEVEL_MODEL})")
    started = time.perf_counter()
    if args.load:
        results = pickle.loads(args.load.read_bytes())
    else:
        if not args.traces:
            parser.error("set SITESIM_TRACES or pass --traces")
        names = [n for n in LOGS if not args.only or n in args.only]
        with tempfile.TemporaryDirectory() as tmp, ProcessPoolExecutor(args.jobs) as pool:
            results = measure(pool, names, Path(args.traces), Path(tmp), args)
        if args.save:
            args.save.write_bytes(pickle.dumps(results))
    # the published figure only beside the published document
    figure(results, FIGURE if args.doc.resolve() == DOC else args.doc.with_suffix(".png"))
    text = render(results)
    if args.levels != FIT_LEVEL_MODEL:
        text = (f"> Fitted with `sitesim fit --levels {args.levels}`, not the default; the text below"
                f" describes the default's results ({DOC.name}).\n\n{text}")
    args.doc.write_text(text, encoding="utf-8")
    print(f"wrote {args.doc} in {(time.perf_counter() - started) / 60:.1f} min")
    return 0


def measure(pool: ProcessPoolExecutor, names: list[str], traces: Path, work: Path, args: Any) -> dict[str, Any]:
    """Every fit, run and replay of the validation, spread over ``pool``; the results
    are collected in a fixed order, so they do not depend on the number of processes."""
    fits: dict[tuple[str, str], Future[dict[str, Any]]] = {}
    others = OTHER_GAPS if args.other_gaps else ()
    for name in names:
        path = traces / LOGS[name]
        fits[name, "fitted"] = pool.submit(fit_one, name, path, work, levels=args.levels)
        for gaps in others:
            fits[name, gaps] = pool.submit(fit_one, name, path, work, gaps, levels=args.levels)
        if name == NO_WAIT_LOG and not args.no_blanked:
            fits[name, "blanked"] = pool.submit(fit_one, name, path, work, blank=True, levels=args.levels)
    chosen = {"blanked": VARIANTS["easy"],
              **{gaps: Variant(f"fitted service, gaps {gaps}", None, True) for gaps in others}}
    runs: dict[tuple[str, str], list[Future[dict[str, float]]]] = {}
    for name in names:
        fitted = fits[name, "fitted"].result()
        print(f"{name}: fitted", flush=True)
        for key, variant in VARIANTS.items():
            runs[name, key] = seeds_of(pool, fitted, fitted, variant, args.seeds)
        for kind in chosen:
            if (name, kind) in fits:
                runs[name, kind] = seeds_of(pool, fits[name, kind].result(), fitted, chosen[kind], args.seeds)
    results: dict[str, Any] = {}
    for name in names:
        fitted = fits[name, "fitted"].result()
        entry = {k: v for k, v in fitted.items() if k not in ("site", "log")}
        log = fitted["log"]
        entry.update(log=log.values, log_hourly=log.hourly, held_out=name in HELD_OUT)
        for (n, key), futures in runs.items():
            if n == name:
                entry[key] = [f.result() for f in futures]
                print(f"{name} {key}: {len(futures)} seeds", flush=True)
        if (name, "blanked") in fits:
            entry["blanked_starts"] = fits[name, "blanked"].result()["starts"]
            entry["blanked_measured"] = fits[name, "blanked"].result()["measured"]
        results[name] = entry
    return results


def seeds_of(
    pool: ProcessPoolExecutor, fitted: dict[str, Any], against: dict[str, Any], variant: Variant, seeds: int
) -> list[Future[dict[str, float]]]:
    """The seeds of one variant of the site ``fitted``, measured against the log of ``against``."""
    return [
        pool.submit(run_once, fitted["site"], against["log"], variant, seed, against["nodes"], against["duration"],
                    not against["has_waits"])
        for seed in range(seeds)
    ]


if __name__ == "__main__":
    sys.exit(main())
