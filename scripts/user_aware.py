#!/usr/bin/env python3
"""User-aware scheduling and user productivity: creasy against easy, multifactor and sjbf
on fitted sites, in closed loop and as an open-model study would see it (docs/user-aware.md).

    SITESIM_TRACES=DIR nice -n 5 python scripts/user_aware.py --cache CACHE --seeds 5 \\
        --doc docs/user-aware.md --figure docs/figures/user_aware.png

Sites: SDSC-SP2, CTC-SP2 and KTH-SP2 fitted from their logs (``sitesim fit``, into the
cache) at ×1, ×1.25 and ×1.5 of their fitted users, and the shipped ``paper`` site at
20, 25 and 30 users (×1, ×1.25, ×1.5 of 20: at its own 10 users the machine is half
idle and there is no queue to order). Policies: easy, creasy, multifactor, sjbf, each
with seeds 1..N. Then each site-level EASY trace (the run's ``trace.swf``) is replayed
open-model under easy and creasy: what a trace-driven study would conclude.

Every run is one row of ``CACHE/runs.csv``, appended as it finishes, so an interrupted
experiment resumes where it stopped; at most ``--jobs`` (default 2) runs at a time.
With ``--doc`` the tables replace what lies between ``<!-- user-aware:start -->`` and
``<!-- user-aware:end -->``; the tables depend only on the CSV (CPU seconds go to the
cost line alone), so they regenerate byte-identical from a finished cache.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from estimates_table import write_doc

import sitesim
import sitesim.api  # noqa: F401  (loaded before the workers fork, so they share one version of the code)
from sitesim.experiments.resumable import ResumableCsv
from sitesim.sweep.aggregate import mean_ci

LOGS = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
}
#: The paper site's ×1: 20 users (its own default of 10 leaves the machine half idle).
PAPER_BASE = 20
SCALES = (1.0, 1.25, 1.5)
POLICIES = ("easy", "creasy", "multifactor", "sjbf")
REPLAYED = ("easy", "creasy")
#: Variants of creasy run at ×1.5 of KTH-SP2 and the paper site: the age bound, and the
#: presence term made flat (slope -0.01: shortest estimate first, with the same bound).
DESIGNS = {
    "creasy:aging=1d": "creasy with the earlier 24 h bound",
    "creasy:aging=3d": "creasy, 3-day bound",
    "creasy": "creasy as shipped (7-day bound)",
    "creasy:aging=1d,slope=-0.01": "shortest estimate first, 24 h bound",
    "creasy:aging=7d,slope=-0.01": "shortest estimate first, 7-day bound",
    "creasy:aging=7d,slope=-2.4": "creasy, presence twice as steep",
}
#: Where the designs run: a fitted site, whose users leave after long waits, and the
#: paper's, whose users never leave (a starved job stops its user for good).
DESIGN_SITES = ("KTH-SP2", "paper")
START, END = "<!-- user-aware:start -->", "<!-- user-aware:end -->"
SYSTEM = ("completed", "utilization", "mean_wait", "max_wait", "mean_response", "mean_bounded_slowdown")
PRODUCTIVITY = (
    "jobs_per_active_day", "jobs_per_session", "batches_per_session", "sessions_completed",
    "mean_session_hours", "ended_after_long_response",
)
FIELDS = ("site", "scale", "users", "kind", "policy", "seed", *SYSTEM, *PRODUCTIVITY, "cpu")
KEY = ("site", "users", "kind", "policy", "seed")
Row = dict[str, Any]


# --- runs (module level: they run in worker processes) ---------------------------------


def _row(site: str, scale: float, users: int, kind: str, policy: str, seed: int, summary: dict, cpu: float) -> Row:
    system, productivity = summary["system"], summary.get("productivity") or {}
    row: Row = {"site": site, "scale": scale, "users": users, "kind": kind, "policy": policy, "seed": seed}
    row.update({k: system[k] for k in SYSTEM})
    row.update({k: "" if productivity.get(k) is None else productivity[k] for k in PRODUCTIVITY})
    row["cpu"] = round(cpu, 2)
    return row


def simulate_cell(cell: tuple[str, str, float, int, str, int, str | None]) -> Row:
    """One site-level run; EASY's writes its outputs (the trace the replays read)."""
    site, path, scale, users, policy, seed, out = cell
    t0 = time.process_time()
    result = sitesim.simulate(site=path, users=users, scheduler=policy, seed=seed, out=out, progress=False)
    return _row(site, scale, users, "site", policy, seed, result.summary, time.process_time() - t0)


def replay_cell(cell: tuple[str, str, float, int, str, int, str | None]) -> Row:
    """The open-model replay of EASY's site-level trace under ``policy``."""
    site, trace, scale, users, policy, seed, _ = cell
    t0 = time.process_time()
    result = sitesim.replay(trace, scheduler=policy, estimates="trace", progress=False)
    return _row(site, scale, users, "replay", policy, seed, result.summary, time.process_time() - t0)


# --- the experiment ------------------------------------------------------------------


def fitted_sites(traces: Path, cache: Path) -> dict[str, tuple[str, int]]:
    """Site name -> (site file, users at ×1); each log is fitted once into the cache."""
    sites: dict[str, tuple[str, int]] = {}
    for name, log in LOGS.items():
        directory = cache / f"fit-{name}"
        if not (directory / "site.toml").exists():
            subprocess.run([sys.executable, "-m", "sitesim", "fit", str(traces / log), "-o", str(directory)], check=True, stdout=sys.stderr)
        with open(directory / "site.toml", "rb") as f:
            sites[name] = (str(directory / "site.toml"), int(tomllib.load(f)["users"]))
    sites["paper"] = ("paper", PAPER_BASE)
    return sites


def run_all(
    store: ResumableCsv, run: Callable[[Any], Row], cells: Sequence[tuple], jobs: int
) -> None:
    """Run the cells not yet in the store, ``jobs`` at a time, appending each row as it ends."""
    todo = [c for c in cells if not store.done(c[0], c[3], "replay" if run is replay_cell else "site", c[4], c[5])]
    if not todo:
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending = {pool.submit(run, c) for c in todo}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                row = future.result()
                store.append([row])
                print(f"{row['kind']:6} {row['site']:8} {row['users']:5} {row['policy']:11} seed {row['seed']}"
                      f"  {row['cpu']:6.1f} s", file=sys.stderr, flush=True)


def experiment(traces: Path, cache: Path, seeds: int, jobs: int, keep_traces: bool, only: Sequence[str] | None) -> list[Row]:
    sites = {k: v for k, v in fitted_sites(traces, cache).items() if not only or k in only}
    store = ResumableCsv(cache / "runs.csv", FIELDS, KEY)
    cells = []
    for name, (path, base) in sites.items():
        for scale in SCALES:
            users = round(base * scale)
            for policy in POLICIES:
                for seed in range(1, seeds + 1):
                    out = str(cache / "easy" / f"{name}-{users}-{seed}") if policy == "easy" else None
                    cells.append((name, path, scale, users, policy, seed, out))
    if "KTH-SP2" in sites:  # the must-show comparison again on fresh seeds (creasy's aging was chosen on 1..N)
        path, base = sites["KTH-SP2"]
        users = round(base * SCALES[-1])
        cells += [("KTH-SP2", path, SCALES[-1], users, p, seed, None)
                  for p in ("easy", "creasy") for seed in range(seeds + 1, 2 * seeds + 1)]
    for name in DESIGN_SITES:
        if name in sites:
            path, base = sites[name]
            cells += [(name, path, SCALES[-1], round(base * SCALES[-1]), p, seed, None)
                      for p in DESIGNS if p != "creasy" for seed in range(1, seeds + 1)]
    cells.sort(key=lambda c: -c[3] * (2 if c[4] == "creasy" else 1))  # the longest first
    run_all(store, simulate_cell, cells, jobs)
    redo = [c for c in cells if c[6] is not None and not Path(c[6], "trace.swf").exists()
            and not all(store.done(c[0], c[3], "replay", p, c[5]) for p in REPLAYED)]
    for cell in redo:  # outputs removed before every replay was done: write them again
        simulate_cell(cell)
    replays = [
        (name, f"{out}/trace.swf", scale, users, policy, seed, None)
        for name, _, scale, users, easy, seed, out in cells if easy == "easy" and out is not None
        for policy in REPLAYED
    ]
    run_all(store, replay_cell, replays, jobs)
    if not keep_traces:
        shutil.rmtree(cache / "easy", ignore_errors=True)
    return [r for r in read_rows(cache / "runs.csv") if not only or r["site"] in only]


def read_rows(path: Path) -> list[Row]:
    import csv

    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in (*SYSTEM, *PRODUCTIVITY, "cpu", "scale"):
            r[k] = float(r[k]) if r[k] != "" else None
        r["users"], r["seed"] = int(r["users"]), int(r["seed"])
    return sorted(rows, key=lambda r: (r["site"], r["users"], r["kind"], r["policy"], r["seed"]))


# --- tables ---------------------------------------------------------------------------


def values(rows: list[Row], metric: str, **match: Any) -> list[float]:
    """``metric`` of the matching rows, in seed order."""
    picked = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return [r[metric] for r in sorted(picked, key=lambda r: r["seed"]) if r[metric] is not None]


def mean(vals: list[float]) -> float:
    return math.fsum(vals) / len(vals) if vals else math.nan


def ci(vals: list[float], fmt: str = ",.0f") -> str:
    """``mean ± half-width`` of a 95% Student-t interval over seeds."""
    if not vals:
        return "–"
    mean, half = mean_ci(vals)
    return f"{mean:{fmt}}" if half is None else f"{mean:{fmt}} ± {half:{fmt}}"


def paired(rows: list[Row], metric: str, policy: str, relative: bool = True, **match: Any) -> tuple[float, float | None]:
    """Mean and CI half-width of (policy − easy) on the same seed, in % of easy's value
    when ``relative``."""
    mine = {r["seed"]: r[metric] for r in rows if r["policy"] == policy and all(r[k] == v for k, v in match.items())}
    base = {r["seed"]: r[metric] for r in rows if r["policy"] == "easy" and all(r[k] == v for k, v in match.items())}
    diffs = [
        (mine[s] - base[s]) / base[s] * 100 if relative else mine[s] - base[s]
        for s in sorted(mine.keys() & base.keys()) if mine[s] is not None and base[s]
    ]
    return mean_ci(diffs) if diffs else (math.nan, None)


def pct(pair: tuple[float, float | None], fmt: str = "+.1f") -> str:
    mean, half = pair
    if math.isnan(mean):
        return "–"
    star = "" if half is None or abs(mean) <= half else " *"
    return f"{mean:{fmt}} ± {half:{fmt.lstrip('+')}}{star}" if half is not None else f"{mean:{fmt}}"


def site_order(rows: list[Row]) -> list[tuple[str, float, int]]:
    keys = {(r["site"], r["scale"], r["users"]) for r in rows}
    order = {name: i for i, name in enumerate([*LOGS, "paper"])}
    return sorted(keys, key=lambda k: (order.get(k[0], 9), k[1]))


MUST_SHOW = (
    ("completed", "completed jobs", ",.0f"), ("jobs_per_session", "jobs per session", ".3f"),
    ("jobs_per_active_day", "jobs per active day", ".3f"), ("mean_wait", "mean wait (s)", ",.0f"),
    ("utilization", "utilisation", ".4f"),
)


def versus(rows: list[Row], metric: str, label: str, fmt: str, match: dict[str, Any]) -> str:
    """A must-show row: easy, creasy, their paired difference, absolute and in %."""
    return (
        f"| {label} | {ci(values(rows, metric, policy='easy', **match), fmt)}"
        f" | {ci(values(rows, metric, policy='creasy', **match), fmt)}"
        f" | {pct(paired(rows, metric, 'creasy', relative=False, **match), '+' + fmt)}"
        f" | {pct(paired(rows, metric, 'creasy', **match))} |"
    )


def designs(site_rows: list[Row], seeds: int, cells: list[tuple[str, float, int]]) -> list[str]:
    """creasy's variants against easy on the cells they ran on."""
    out = ["", f"### Designs: creasy's variants at ×{SCALES[-1]:g} (seeds 1–{seeds})", "",
           "Paired gains over easy in % of easy; max wait: the mean over seeds of the run's longest wait."
           " The paper site's users never end a session, so it has no jobs per session;"
           " its productivity is the jobs per active day, which moves with completed jobs.", "",
           "| site | spec | what | completed jobs | jobs per session | mean wait | max wait (days) |",
           "|---|---|---|---:|---:|---:|---:|"]
    for site, _, users in cells:
        m = {"site": site, "users": users}
        for spec, what in DESIGNS.items():
            if values(site_rows, "completed", policy=spec, **m):
                out.append(
                    f"| {site} {users} | `{spec}` | {what} | {pct(paired(site_rows, 'completed', spec, **m))}"
                    f" | {pct(paired(site_rows, 'jobs_per_session', spec, **m))}"
                    f" | {pct(paired(site_rows, 'mean_wait', spec, **m))}"
                    f" | {ci([v / 86400 for v in values(site_rows, 'max_wait', policy=spec, **m)], '.1f')} |"
                )
        longest = ci([v / 86400 for v in values(site_rows, "max_wait", policy="easy", **m)], ".1f")
        out.append(f"| {site} {users} | `easy` | EASY | – | – | – | {longest} |")
    return out


def markdown(all_rows: list[Row], seeds: int, cost: str) -> str:
    rows = [r for r in all_rows if r["seed"] <= seeds]
    fresh = [r for r in all_rows if seeds < r["seed"] <= 2 * seeds and r["kind"] == "site"]
    site_rows = [r for r in rows if r["kind"] == "site"]
    replays = [r for r in rows if r["kind"] == "replay"]
    cells = site_order(site_rows)
    out = [f"Seeds 1–{seeds} per cell; ± is the half-width of the 95% Student-t interval over seeds.", ""]

    out += ["### Paired gains over easy (same seed), in % of easy", "",
            "Closed loop. * marks an interval that excludes zero.", "",
            "| site | × | users | policy | completed jobs | jobs per active day | jobs per session"
            " | mean wait | mean bounded slowdown | utilisation |",
            "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for site, scale, users in cells:
        for policy in POLICIES[1:]:
            m = {"site": site, "users": users}
            out.append(
                f"| {site} | {scale:g} | {users} | {policy} | {pct(paired(site_rows, 'completed', policy, **m))}"
                f" | {pct(paired(site_rows, 'jobs_per_active_day', policy, **m))}"
                f" | {pct(paired(site_rows, 'jobs_per_session', policy, **m))}"
                f" | {pct(paired(site_rows, 'mean_wait', policy, **m))}"
                f" | {pct(paired(site_rows, 'mean_bounded_slowdown', policy, **m))}"
                f" | {pct(paired(site_rows, 'utilization', policy, **m), '+.2f')} |"
            )

    out += ["", "### Saturation: what 50% more users bring", "",
            "Completed jobs and utilisation at ×1.5 of the site's users against ×1 (means over seeds):"
            " where utilisation is near its ceiling, more users add queueing, not completed work.", "",
            "| site | policy | completed jobs ×1 | ×1.25 / ×1 | ×1.5 / ×1 | utilisation ×1 | ×1.25 | ×1.5 |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for site in dict.fromkeys(c[0] for c in cells):
        for policy in POLICIES:
            jobs = [mean(values(site_rows, "completed", site=site, scale=x, policy=policy)) for x in SCALES]
            util = [mean(values(site_rows, "utilization", site=site, scale=x, policy=policy)) for x in SCALES]
            if any(math.isnan(v) for v in (*jobs, *util)):
                continue
            out.append(
                f"| {site} | {policy} | {jobs[0]:,.0f} | {jobs[1] / jobs[0]:.3f} | {jobs[2] / jobs[0]:.3f}"
                f" | {util[0]:.3f} | {util[1]:.3f} | {util[2]:.3f} |"
            )

    out += ["", "### Productivity", "",
            "The site's `productivity` section (docs/metrics.md). The paper site's users never end a"
            " session, so its per-session figures are empty.", "",
            "| site | users | policy | completed jobs | jobs per active day | jobs per session"
            " | batches per session | sessions completed | session hours | ended after long response |",
            "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for site, _, users in cells:
        for policy in POLICIES:
            m = {"site": site, "users": users, "policy": policy}
            out.append(
                f"| {site} | {users} | {policy} | {ci(values(site_rows, 'completed', **m))}"
                f" | {ci(values(site_rows, 'jobs_per_active_day', **m), '.3f')}"
                f" | {ci(values(site_rows, 'jobs_per_session', **m), '.3f')}"
                f" | {ci(values(site_rows, 'batches_per_session', **m), '.3f')}"
                f" | {ci(values(site_rows, 'sessions_completed', **m))}"
                f" | {ci(values(site_rows, 'mean_session_hours', **m), '.2f')}"
                f" | {ci(values(site_rows, 'ended_after_long_response', **m), '.3f')} |"
            )

    out += ["", "### Conventional metrics, closed loop", "",
            "Wait and response in seconds; bounded slowdown with a 10 s threshold.", "",
            "| site | users | policy | mean wait | max wait (days) | mean response | mean bounded slowdown | utilisation |",
            "|---|---:|---|---:|---:|---:|---:|---:|"]
    for site, _, users in cells:
        for policy in POLICIES:
            m = {"site": site, "users": users, "policy": policy}
            out.append(
                f"| {site} | {users} | {policy} | {ci(values(site_rows, 'mean_wait', **m))}"
                f" | {ci([v / 86400 for v in values(site_rows, 'max_wait', **m)], '.1f')}"
                f" | {ci(values(site_rows, 'mean_response', **m))}"
                f" | {ci(values(site_rows, 'mean_bounded_slowdown', **m), '.1f')}"
                f" | {ci(values(site_rows, 'utilization', **m), '.4f')} |"
            )

    out += ["", "### What an open-model study would conclude", "",
            "Each seed's site-level EASY trace replayed with its recorded submit times (estimates"
            " from the trace) under easy and creasy; creasy's change in % of easy, paired by seed."
            " Every job of a replay completes, so completed jobs cannot differ.", "",
            "| site | users | easy: mean wait | creasy: mean wait | Δ wait | easy: bounded slowdown"
            " | creasy: bounded slowdown | Δ bounded slowdown | Δ utilisation |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for site, _, users in cells:
        m = {"site": site, "users": users}
        out.append(
            f"| {site} | {users} | {ci(values(replays, 'mean_wait', policy='easy', **m))}"
            f" | {ci(values(replays, 'mean_wait', policy='creasy', **m))}"
            f" | {pct(paired(replays, 'mean_wait', 'creasy', **m))}"
            f" | {ci(values(replays, 'mean_bounded_slowdown', policy='easy', **m), '.1f')}"
            f" | {ci(values(replays, 'mean_bounded_slowdown', policy='creasy', **m), '.1f')}"
            f" | {pct(paired(replays, 'mean_bounded_slowdown', 'creasy', **m))}"
            f" | {pct(paired(replays, 'utilization', 'creasy', **m), '+.2f')} |"
        )

    kth = [c for c in cells if c[0] == "KTH-SP2" and c[1] == 1.5]
    if kth:
        site, _, users = kth[0]
        m = {"site": site, "users": users}
        out += ["", f"### Must show: creasy against easy on the fitted KTH-SP2 site with {users} users", "",
                "Paired by seed (creasy − easy); ± the 95% Student-t half-width over the seeds' differences.", "",
                "| figure | easy | creasy | creasy − easy | in % of easy |", "|---|---:|---:|---:|---:|"]
        out += [versus(site_rows, metric, label, fmt, m) for metric, label, fmt in MUST_SHOW]
        if fresh:
            out += ["", f"The same on seeds {seeds + 1}–{2 * seeds}, which played no part in choosing creasy's aging:", "",
                    "| figure | easy | creasy | creasy − easy | in % of easy |", "|---|---:|---:|---:|---:|"]
            out += [versus(fresh, metric, label, fmt, m) for metric, label, fmt in MUST_SHOW[:3]]
    out += designs(site_rows, seeds, [c for c in cells if c[1] == SCALES[-1] and c[0] in DESIGN_SITES])
    out += ["", cost]
    return "\n".join(out) + "\n"


def figure(rows: list[Row], path: Path) -> None:
    """Productivity and utilisation against the users' scale, one column per site."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    site_rows = [r for r in rows if r["kind"] == "site"]
    sites = [s for s in [*LOGS, "paper"] if any(r["site"] == s for r in site_rows)]
    fig, axes = plt.subplots(2, len(sites), figsize=(3.4 * len(sites), 6.0), squeeze=False, sharex=True)
    for col, site in enumerate(sites):
        for policy, marker in zip(POLICIES, "osD^", strict=True):
            for row, metric in enumerate(("jobs_per_active_day", "utilization")):
                xs, ys, es = [], [], []
                for scale in SCALES:
                    v = values(site_rows, metric, site=site, scale=scale, policy=policy)
                    if v:
                        mean, half = mean_ci(v)
                        xs.append(scale)
                        ys.append(mean)
                        es.append(half or 0.0)
                axes[row][col].errorbar(xs, ys, yerr=es, marker=marker, capsize=3, label=policy)
        users = sorted({r["users"] for r in site_rows if r["site"] == site})
        axes[0][col].set_title(f"{site} ({', '.join(map(str, users))} users)", fontsize=9)
        axes[1][col].set_xlabel("users (× the site's)")
    axes[0][0].set_ylabel("jobs per user-active day")
    axes[1][0].set_ylabel("utilisation")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Productivity against load; bars: 95% CI over seeds", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"), help="directory of the SWF logs")
    parser.add_argument("--cache", type=Path, default=Path("user-aware-cache"), help="fitted sites and runs.csv")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N per cell (at least 2)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--only", nargs="*", choices=[*LOGS, "paper"], help="sites to run (default: all)")
    parser.add_argument("--keep-traces", action="store_true", help="keep EASY's site-level outputs")
    parser.add_argument("--doc", type=Path, help="markdown file whose results section to replace")
    parser.add_argument("--figure", type=Path, help="where to write the figure (PNG)")
    args = parser.parse_args(argv)
    if not args.traces:
        print("SITESIM_TRACES is not set (or give --traces): nothing to fit", file=sys.stderr)
        return 0
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (intervals over seeds)")
    t0 = time.perf_counter()
    rows = experiment(Path(args.traces), args.cache, args.seeds, max(1, args.jobs), args.keep_traces, args.only)
    cpu = sum(r["cpu"] for r in rows)
    cost = (f"Cost: {len(rows)} runs, {cpu / 3600:.2f} h of CPU in all (the sum of the runs' own CPU"
            " times, recorded in the cache as they ran).")
    print(f"done in {time.perf_counter() - t0:.0f} s wall-clock; {cost}", file=sys.stderr)
    table = markdown(rows, args.seeds, cost)
    if args.doc:
        write_doc(args.doc, table, START, END)
    else:
        sys.stdout.write(table)
    if args.figure:
        figure(rows, args.figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
