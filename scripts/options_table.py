#!/usr/bin/env python3
"""The table of run options in docs/options.md, from their one declaration.

    python scripts/options_table.py --doc docs/options.md   # rewrite the generated block
    python scripts/options_table.py                         # print it

Every row is read from ``sitesim/runs/options.py``; ``tests/runs/test_options.py``
checks that the document's block is the one this prints, so the page cannot drift
from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sitesim.runs import options

BEGIN = "<!-- options table: begin (scripts/options_table.py) -->"
END = "<!-- options table: end -->"


def table() -> str:
    rows = [
        "| option | runs | unit | default | sweep | flag | meaning |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in options.OPTIONS:
        defaults = {m: "—" if o.defaults.get(m) is None else options.person_value(o, o.defaults[m]) for m in o.modes}
        shown = {str(v) for v in defaults.values()}
        default = next(iter(shown)) if len(shown) == 1 else ", ".join(f"{v} ({m})" for m, v in defaults.items())
        flags = ", ".join(f"`{f}`" for f in (*([o.short] if o.short else []), o.flag))
        unit = o.unit() or "—"
        rows.append(f"| `{o.name}` | {' and '.join(o.modes)} | {unit} | {default}"
                    f" | {'yes' if o.sweep else 'no'} | {flags} | {o.help} |")
    return "\n".join(rows)


def block() -> str:
    return f"{BEGIN}\n{table()}\n{END}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doc", type=Path, help="rewrite the generated block of this document")
    args = parser.parse_args(argv)
    if args.doc is None:
        print(block())
        return 0
    text = args.doc.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    args.doc.write_text(head + block() + tail, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
