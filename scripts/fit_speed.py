"""How long ``sitesim fit`` (and a fitted year) takes in this tree against another
checkout of sitesim: the speed budget of the fit (docs/service.md, "Speed").

Each round fits LOG once with this tree's code and once with ``--against``'s, one
after the other, and (with ``--year``) runs a year of each tree's own fitted site; every
command is a whole process, timed by the CPU (user + system) it and its children used.
The machine these figures come from is shared, and the same code's time moves by up to
a third between rounds; two runs side by side see about the same machine, so each
round's ratio is the measure, and the script prints every round's, their median and
their range.

Both trees must have their compiled twins built (``python setup.py build_ext
--inplace``) and be byte-compiled (``python -m compileall -q sitesim``): where
``PYTHONDONTWRITEBYTECODE`` is set, a tree without bytecode compiles its modules at
every start (docs/performance.md). A checkout older than the fitted service needs
``--against-year-args="-s easy"`` for its year to run the same policy.

    python scripts/fit_speed.py $SITESIM_TRACES/CTC-SP2-1996-3.1-cln.swf.gz \\
        --against ../sitesim-da55db0 --rounds 5 --year
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

from bench import time_process  # scripts/ is on the path of a script run from it

HERE = Path(__file__).resolve().parents[1]


def fit(tree: Path, log: Path, out: Path, extra: list[str]) -> float:
    """CPU seconds of ``sitesim fit LOG`` with ``tree``'s code."""
    return time_process([sys.executable, "-m", "sitesim", "fit", str(log), "-o", str(out), *extra], tree)[1]


def year(tree: Path, site: Path, extra: list[str]) -> float:
    """CPU seconds of a year of the fitted ``site`` with ``tree``'s code."""
    argv = [sys.executable, "-m", "sitesim", "--site", str(site / "site.toml"), "--duration", "365", "--seed", "1"]
    return time_process(argv + extra, tree)[1]


def summary(name: str, ours: list[float], theirs: list[float]) -> list[str]:
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    rows = [f"| {name} | {k + 1} | {a:.2f} | {b:.2f} | {r:.2f} |" for k, (a, b, r) in enumerate(zip(ours, theirs, ratios))]
    rows.append(f"| {name} | median (range) | {statistics.median(ours):.2f} | {statistics.median(theirs):.2f}"
                f" | {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the SWF log to fit")
    parser.add_argument("--against", type=Path, required=True, help="another checkout of sitesim")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--year", action="store_true", help="also a year of each tree's own fitted site")
    parser.add_argument("--against-year-args", default="", help="extra arguments of the other tree's year")
    parser.add_argument("--fit-args", default="", help="extra arguments of this tree's fit (e.g. --levels recorded)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    against = args.against.resolve()
    if not (against / "sitesim" / "__init__.py").is_file():
        parser.error(f"--against {args.against}: not a checkout of sitesim (no sitesim/__init__.py)")
    log = args.log.resolve()
    rows = ["| what | round | this tree, CPU s | other tree, CPU s | ratio |", "|---|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as work:
        sites = {tree: Path(work) / name for tree, name in ((HERE, "this"), (against, "other"))}
        fits: dict[Path, list[float]] = {HERE: [], against: []}
        for _ in range(args.rounds):
            for tree, site in sites.items():
                fits[tree].append(fit(tree, log, site, shlex.split(args.fit_args) if tree == HERE else []))
        rows += summary("fit", fits[HERE], fits[against])
        if args.year:
            extra = {HERE: [], against: shlex.split(args.against_year_args)}
            years: dict[Path, list[float]] = {HERE: [], against: []}
            for _ in range(args.rounds):
                for tree, site in sites.items():
                    years[tree].append(year(tree, site, extra[tree]))
            rows += summary("fitted year", years[HERE], years[against])
    print(f"# {log.name}: this tree {HERE.name}, the other {against}; load {os.getloadavg()[0]:.2f}")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
