"""Replay real logs under every backfilling policy: the classic variants next to EASY.

Each of KTH-SP2, SDSC-SP2 and CTC-SP2 is replayed with the users' own estimates
(``trace``) under ``fcfs``, ``easy``, ``cons``, ``sjbf``, ``easy++``, ``los`` and
``multifactor`` (their defaults; docs/schedulers.md), and the mean wait, mean response,
mean bounded slowdown and utilisation are tabulated, each mean also as a ratio to
EASY's. Replays are deterministic (no random estimates), so one run per cell. Each
run's wall-clock time goes to stderr, not into the tables, which therefore regenerate
byte-identical.

    SITESIM_TRACES=DIR python scripts/variants_table.py --doc docs/backfilling-results.md [--jobs N]

With ``--doc FILE`` the tables replace what lies between ``<!-- variants-table:start -->``
and ``<!-- variants-table:end -->`` in FILE. ``--lines-doc FILE`` writes the size of
each variant's module (the proof that the kernel's hooks carry the variants) between
``<!-- variant-lines:start -->`` and ``<!-- variant-lines:end -->``; it needs no log.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import sys
import time
import tokenize
from pathlib import Path

from estimates_table import write_doc

from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.sweep.executors import map_in_order

TRACES = {
    "KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-SP2": "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2": "CTC-SP2-1996-3.1-cln.swf.gz",
}
POLICIES = ("fcfs", "easy", "cons", "sjbf", "easy++", "los", "multifactor")
START, END = "<!-- variants-table:start -->", "<!-- variants-table:end -->"
LINES_START, LINES_END = "<!-- variant-lines:start -->", "<!-- variant-lines:end -->"
#: The variants' modules, relative to the package's schedulers folder.
MODULES = {"sjbf": "sjbf.py", "easy++": "easypp.py", "los": "los.py", "multifactor": "multifactor.py",
           "creasy": "creasy.py"}


def code_lines(source: str) -> int:
    """Lines holding code: neither blank, nor only a comment, nor part of a docstring."""
    doc_lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                doc_lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                              tokenize.DEDENT, tokenize.ENDMARKER):
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - doc_lines)


def lines_table(folder: Path | None = None) -> str:
    """Each variant's module in ``folder`` (the package's schedulers): all lines, and code lines."""
    if folder is None:
        import sitesim.schedulers

        folder = Path(sitesim.schedulers.__file__).parent
    rows = ["| policy | module | lines | code lines |", "|---|---|---:|---:|"]
    for policy, name in MODULES.items():
        source = (folder / name).read_text(encoding="utf-8")
        rows.append(f"| `{policy}` | `sitesim/schedulers/{name}` | {len(source.splitlines())} | {code_lines(source)} |")
    return "\n".join(rows) + "\n"


def one_run(args: tuple[str, str, str]) -> dict:
    """Replay one (trace, policy) cell with trace estimates."""
    name, path, policy = args
    t0 = time.perf_counter()
    s = run_replay(ReplayConfig(trace=path, scheduler=policy, estimates="trace")).summary
    return {
        "trace": name, "policy": policy, "jobs": s["completed"], "killed": s["killed"],
        "wait": s["mean_wait"], "max_wait": s["max_wait"] / 86_400, "response": s["mean_response"], "bsld": s["mean_bounded_slowdown"],
        "util": s["utilization"], "seconds": time.perf_counter() - t0,
    }


def markdown(rows: list[dict]) -> str:
    lines = ["Trace estimates. Wait and response in seconds; bounded slowdown with a 10 s threshold;"
             " *× easy* is the ratio to EASY's mean on the same log (below 1: better).", ""]
    for trace in dict.fromkeys(r["trace"] for r in rows):
        mine = [r for r in rows if r["trace"] == trace]
        easy = next(r for r in mine if r["policy"] == "easy")
        lines += [
            f"### {trace} ({mine[0]['jobs']:,} jobs)",
            "",
            "| policy | mean wait | × easy | mean response | × easy | mean bounded slowdown | × easy"
            " | max wait (days) | utilisation | killed |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in mine:
            lines.append(
                f"| {r['policy']} | {r['wait']:,.0f} | {r['wait'] / easy['wait']:.2f}"
                f" | {r['response']:,.0f} | {r['response'] / easy['response']:.2f}"
                f" | {r['bsld']:.1f} | {r['bsld'] / easy['bsld']:.2f} | {r['max_wait']:.1f} | {r['util']:.3f} | {r['killed']:,} |"
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", default=os.environ.get("SITESIM_TRACES"), help="directory of the SWF logs")
    parser.add_argument("--only", nargs="*", choices=sorted(TRACES), help="logs to replay (default: all)")
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated policies")
    parser.add_argument("--jobs", type=int, default=None, help="replays run in parallel (default: every CPU)")
    parser.add_argument("--doc", type=Path, help="markdown file whose table section to replace")
    parser.add_argument("--lines-doc", type=Path, help="markdown file whose module-size table to replace")
    args = parser.parse_args(argv)
    if args.lines_doc:
        write_doc(args.lines_doc, lines_table(), LINES_START, LINES_END)
        return 0
    if not args.traces:
        print("SITESIM_TRACES is not set (or give --traces): nothing to replay", file=sys.stderr)
        return 0
    cells = []
    for name in args.only or TRACES:
        path = Path(args.traces) / TRACES[name]
        if not path.exists():
            print(f"skipping {name}: {path.name} not in {args.traces}", file=sys.stderr)
            continue
        cells += [(name, str(path), policy) for policy in args.policies.split(",")]
    rows = map_in_order(one_run, cells, jobs=args.jobs)
    for row in rows:
        print(f"{row['trace']:9} {row['policy']:12} wait {row['wait']:9.0f}  {row['seconds']:6.1f} s", file=sys.stderr)
    table = markdown(rows)
    if args.doc:
        write_doc(args.doc, table, START, END)
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
