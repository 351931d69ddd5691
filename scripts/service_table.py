#!/usr/bin/env python3
"""Each shared log with waits, replayed under its fitted service and under EASY on the
nominal machine, against the log's own waits (issue 33, must-show 1; docs/service.md).

    python scripts/service_table.py --traces "$SITESIM_TRACES"              # development logs
    python scripts/service_table.py --traces "$SITESIM_TRACES" --held-out   # the held-out pair

For each log: ``sitesim fit`` into a temporary directory; the log replayed on the fitted
site (``sitesim -c LOG --site DIR/site.toml``: its machine under its fitted service) on
seeds 0..SEEDS-1, and under ``easy`` on the nominal machine (the header's size); each
replayed job's wait read back from ``schedule.swf`` and set beside its wait in the log.
Rows: mean wait (the service's over the seeds: mean, and the range of its ratio to the
log's), wait quantiles (50/90/99 %, seed 0), and the rank correlation (Spearman) of the
users' mean waits with the log's, over users with at least :data:`MIN_JOBS` replayed
jobs. The table is written into docs/service.md (one block for the development logs, one for
the held-out pair: :data:`MARKERS`), and as CSV under docs/data/.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from sitesim.analysis.level_copula import FIT_LEVEL_MODEL, FIT_LEVEL_MODELS
from sitesim.runs.fit import fit_log
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.sitefile import load_site_file, replay_on_site
from sitesim.workload.swf import SwfReader

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "service.md"
#: Developed on (with NASA-iPSC, which records no waits).
DEVELOPMENT = ("CTC-SP2", "KTH-SP2", "SDSC-SP2")
#: Held out before development (numpy default_rng(33).choice over the five shared logs
#: with waits): never looked at or tuned on; run once, at the end.
HELD_OUT = ("LANL-CM5", "SDSC-BLUE")
#: Users with fewer replayed jobs are left out of the rank correlation.
MIN_JOBS = 5
QUANTILES = (0.5, 0.9, 0.99)


def waits(path: Path) -> dict[int, tuple[int, int]]:
    """Job number -> (user, wait) of every job of an SWF file with a known wait."""
    with SwfReader(path) as reader:
        return {int(r.job_number): (int(r.user_id), int(r.wait_time)) for r in reader if r.wait_time >= 0}


def figures(replayed: dict[int, tuple[int, int]], log: dict[int, tuple[int, int]]) -> dict[str, float]:
    """Mean wait, quantiles and the users' rank correlation with the log, over the jobs
    replayed that the log has a wait for."""
    jobs = sorted(set(replayed) & set(log))
    mine = np.array([replayed[j][1] for j in jobs], dtype=float)
    theirs = np.array([log[j][1] for j in jobs], dtype=float)
    users = np.array([log[j][0] for j in jobs])
    out = {"jobs": float(len(jobs)), "mean": float(mine.mean()), "log_mean": float(theirs.mean())}
    for q in QUANTILES:
        out[f"q{q * 100:g}"] = float(np.quantile(mine, q))
        out[f"log_q{q * 100:g}"] = float(np.quantile(theirs, q))
    ids, counts = np.unique(users, return_counts=True)
    kept = ids[counts >= MIN_JOBS]
    per_user = [(mine[users == u].mean(), theirs[users == u].mean()) for u in kept]
    rho = spearmanr([a for a, _ in per_user], [b for _, b in per_user]).statistic if len(per_user) > 2 else float("nan")
    out["spearman"] = float(rho)
    out["users"] = float(len(kept))
    return out


def replay(config: ReplayConfig, out: Path) -> dict[int, tuple[int, int]]:
    run_replay(config, out=out, progress=False)
    return waits(out / "schedule.swf")


def measure(name: str, trace: Path, seeds: int, work: Path, levels: str = FIT_LEVEL_MODEL) -> dict[str, object]:
    site = work / name / "site"
    fit_log(trace, site, levels=levels)
    log = waits(trace)
    on_site = replay_on_site(load_site_file(site / "site.toml"), {})
    service = [
        figures(replay(ReplayConfig(str(trace), seed=s, **on_site), work / name / f"service-{s}"), log)
        for s in range(seeds)
    ]
    easy = figures(replay(ReplayConfig(str(trace), scheduler="easy"), work / name / "easy"), log)
    return {"log": name, "service": service, "easy": easy}


def rows(results: list[dict[str, object]]) -> list[dict[str, str]]:
    out = []
    for r in results:
        service: list[dict[str, float]] = r["service"]  # type: ignore[assignment]
        easy: dict[str, float] = r["easy"]  # type: ignore[assignment]
        first = service[0]
        log_mean = first["log_mean"]
        ratios = [s["mean"] / s["log_mean"] - 1 for s in service]
        mean = float(np.mean([s["mean"] for s in service]))
        q = lambda f, p: " / ".join(f"{f[f'{p}q{x * 100:g}']:,.0f}" for x in QUANTILES)  # noqa: E731
        out.append({
            "log": str(r["log"]),
            "jobs": f"{first['jobs']:,.0f}",
            "log mean wait (s)": f"{log_mean:,.0f}",
            "service mean wait (s)": f"{mean:,.0f}",
            f"service vs log ({len(service)} seeds)": f"{min(ratios):+.0%} .. {max(ratios):+.0%}",
            "within ±30%": "yes" if all(abs(x) <= 0.30 for x in ratios) else "no",
            "EASY mean wait (s)": f"{easy['mean']:,.0f}",
            "EASY vs log": f"{easy['mean'] / easy['log_mean'] - 1:+.0%}",
            "log q50/q90/q99 (s)": q(first, "log_"),
            "service q50/q90/q99 (s)": q(first, ""),
            "EASY q50/q90/q99 (s)": q(easy, ""),
            "users": f"{first['users']:.0f}",
            "Spearman, service": f"{first['spearman']:.2f}",
            "Spearman, EASY": f"{easy['spearman']:.2f}",
        })
    return out


def markdown(table: list[dict[str, str]]) -> list[str]:
    keys = list(table[0])
    return [
        "| " + " | ".join(keys) + " |",
        "|" + "|".join("---" if k == "log" else "---:" for k in keys) + "|",
        *("| " + " | ".join(r[k] for k in keys) + " |" for r in table),
    ]


#: The blocks of docs/service.md this script writes, by which logs.
MARKERS = {
    "development": ("<!-- service table, development logs: begin (scripts/service_table.py) -->",
                    "<!-- service table, development logs: end -->"),
    "held-out": ("<!-- service table, held-out logs: begin (scripts/service_table.py --held-out) -->",
                 "<!-- service table, held-out logs: end -->"),
}


def write_block(which: str, lines: list[str]) -> None:
    """Replace the block of docs/service.md for ``which`` logs (:data:`MARKERS`)."""
    text = DOC.read_text(encoding="utf-8")
    begin, end = MARKERS[which]
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    DOC.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", type=Path, required=True, help="directory of the shared logs")
    parser.add_argument("--held-out", action="store_true", help="the held-out pair instead of the development logs")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the service's replays (default 5)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the docs as they are")
    parser.add_argument("--levels", choices=FIT_LEVEL_MODELS, default=FIT_LEVEL_MODEL,
                        help="how the fitted service's levels are fitted (sitesim fit --levels); other than the"
                        " default, with --no-write only: the docs hold the default's tables")
    args = parser.parse_args(argv)
    if args.levels != FIT_LEVEL_MODEL and not args.no_write:
        parser.error(f"--levels {args.levels} needs --no-write: docs/service.md holds the default's ({FIT_LEVEL_MODEL})")
    names = HELD_OUT if args.held_out else DEVELOPMENT
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            (trace,) = sorted(args.traces.glob(f"{name}-*.swf*"))
            results.append(measure(name, trace, args.seeds, Path(tmp), args.levels))
            print(f"# {name} done", file=sys.stderr)
    table = rows(results)
    lines = markdown(table)
    print("\n".join(lines))
    if not args.no_write:
        which = "held-out" if args.held_out else "development"
        write_block(which, lines)
        with (ROOT / "docs" / "data" / f"service-{which}.csv").open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(table[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
