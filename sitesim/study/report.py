"""report.html: one self-contained page a person reads, prints or mails.

The page is assembled with :class:`string.Template` and :func:`html.escape`: every
figure is a PNG inside a ``data:`` URI, the style sheet is inline, and nothing is
fetched, so the file reads the same offline, in a mail attachment or on paper. Every
number on it comes from results.csv and cross.csv through the same functions the
tests check (sitesim/study/tables.py).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from html import escape
from string import Template

from attrs import define

from sitesim.experiments.prediction import METRICS
from sitesim.study.cross import Cell
from sitesim.study.tables import GROUPS, LABELS, metric_entries, number, present
from sitesim.sweep.run import Row

STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 62rem; margin: 2rem auto;
       padding: 0 1rem; color: #111; line-height: 1.45; }
h1, h2, h3 { font-family: Helvetica, Arial, sans-serif; }
table { border-collapse: collapse; margin: 0.5rem 0 1.2rem; font-size: 0.92rem; }
th, td { border-bottom: 1px solid #bbb; padding: 0.25rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.best { font-weight: bold; background: #e6f2e6; }
.sig { color: #a00; }
figure { margin: 1rem 0; break-inside: avoid; }
figure img { max-width: 100%; }
figcaption { font-size: 0.9rem; color: #333; }
p.findings { font-size: 1.05rem; }
@media print { body { max-width: none; margin: 0; } section { break-inside: avoid-page; } }
"""

PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>$title</title>
<style>$style</style>
</head>
<body>
<h1>$title</h1>
<section id="configuration">
<h2>Site and configuration</h2>
$configuration
</section>
<section id="findings">
<h2>Findings</h2>
$findings
</section>
<section id="metrics">
<h2>Metrics by policy</h2>
<p>Mean &plusmn; half-width of the 95% confidence interval over the seeds (Student t).
The best policy of each metric is in bold on green; <span class="sig">*</span> marks a value
that differs from the best one significantly at 95% (paired over seeds).</p>
$tables
</section>
<section id="figures">
<h2>Figures</h2>
$figures
</section>
<section id="cross">
<h2>What a conventional study would have predicted</h2>
<p>Each policy's site-level trace replayed in the open model under every policy (the
trace's estimates, no feedback), against the evaluated policy's own site-level run with
the same users and seed: the paper's Tables 3&ndash;4 for every pair. Error is
(conventional &minus; site-level) / site-level, in percent, mean &plusmn; 95% CI over the seeds;
positive means the open model predicts worse performance than the users would see.</p>
$cross
</section>
</body>
</html>
""")


@define(frozen=True, slots=True)
class Figure:
    """One figure of the page: PNG bytes and what it shows."""

    name: str
    png: bytes
    caption: str


def _table(head: Sequence[str], body: Sequence[Sequence[str]], *, raw: bool = False) -> str:
    """An HTML table; cells are escaped unless ``raw`` (then they are markup already)."""
    cell = (lambda s: s) if raw else escape
    lines = ["<table>", "<thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    for row in body:
        lines.append("<tr>" + "".join(c if raw and c.startswith("<td") else f"<td>{cell(c)}</td>" for c in row) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)


def configuration(settings: Mapping[str, str]) -> str:
    return _table(("setting", "value"), [(k, v) for k, v in settings.items()])


def estimate_text(mean: float, ci: float | None) -> str:
    """``mean ± ci`` as the tables print it (``mean`` alone with one seed)."""
    return number(mean) if ci is None else f"{number(mean)} ± {number(ci)}"


def metric_tables(rows: Sequence[Row], users: Sequence[int], policies: Sequence[str]) -> str:
    """One table per metric group (groups no run has a value for are left out)."""
    parts = []
    for title, metrics in GROUPS:
        shown = [m for m, _, _ in metrics if present(rows, m)]
        if not shown:
            continue
        head = (*(("users",) if len(users) > 1 else ()), "policy", *(LABELS[m] for m in shown))
        body = []
        for u in users:
            entries = {m: metric_entries(rows, u, policies, m) for m in shown}
            for p in policies:
                cells = [f"<td>{u}</td>"] if len(users) > 1 else []
                cells.append(f"<td>{escape(p)}</td>")
                for m in shown:
                    e = entries[m].get(p)
                    if e is None:
                        cells.append("<td>–</td>")
                        continue
                    text = escape(estimate_text(e.mean, e.ci)) + (' <span class="sig">*</span>' if e.significant else "")
                    cells.append(f'<td class="best">{text}</td>' if e.best else f"<td>{text}</td>")
                body.append(cells)
        parts.append(f"<h3>{escape(title)}</h3>\n" + _table(head, body, raw=True))
    return "\n".join(parts)


def cross_tables(cells: Sequence[Cell], users: Sequence[int], policies: Sequence[str],
                 empty: Sequence[tuple[int, str, str]] = ()) -> str:
    """Per user count and metric: the matrix of signed errors, rows the trace's policy;
    "no jobs" where the trace had none to replay (``empty``)."""
    parts = []
    for u in users:
        for metric in METRICS:
            found = {(c.trace_policy, c.evaluated): c for c in cells if c.users == u and c.metric == metric}
            none = {(s, e) for n, s, e in empty if n == u}
            if not found and not none:
                continue
            body = []
            for source in policies:
                row = [f"trace of {source}"]
                for evaluated in policies:
                    c = found.get((source, evaluated))
                    if c is None:
                        row.append("no jobs" if (source, evaluated) in none else "–")
                        continue
                    row.append(f"{estimate_text(c.error.mean, c.error.ci)}%")
                body.append(row)
            title = f"{LABELS.get(metric, metric)}: error of the open model, % ({u} users)"
            parts.append(f"<h3>{escape(title)}</h3>\n" + _table(("", *(f"under {p}" for p in policies)), body))
    return "\n".join(parts)


def figure_html(figures: Sequence[Figure]) -> str:
    out = []
    for f in figures:
        data = base64.b64encode(f.png).decode("ascii")
        out.append(f'<figure id="figure-{escape(f.name)}"><img alt="{escape(f.caption)}"'
                   f' src="data:image/png;base64,{data}">\n<figcaption>{escape(f.caption)}</figcaption></figure>')
    return "\n".join(out)


def page(title: str, settings: Mapping[str, str], findings: Sequence[str], tables: str,
         figures: Sequence[Figure], cross_figures: Sequence[Figure], cross: str) -> str:
    """The whole page."""
    return PAGE.substitute(
        title=escape(title), style=STYLE, configuration=configuration(settings),
        findings="\n".join(f'<p class="findings">{escape(text)}</p>' for text in findings),
        tables=tables, figures=figure_html(figures), cross=figure_html(cross_figures) + "\n" + cross,
    )
