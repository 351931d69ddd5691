"""The report's paragraph, written from the numbers: the ranking, and where a
conventional (open-model) study would have misled.

Nothing here is written by hand about a particular study: every sentence is chosen by
a comparison of the measured means, intervals and orders, so the paragraph changes
when the numbers do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sitesim.study.cross import Cell
from sitesim.study.tables import LABELS, metric_entries, number, present, ranking, significant, values
from sitesim.sweep.run import Row

#: The metric the ranking is stated for first, then the others the paragraph reports.
PRIMARY = "mean_wait"


def _list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _ranked(rows: Sequence[Row], users: int, policies: Sequence[str], metric: str, unit: str = "") -> str:
    entries = metric_entries(rows, users, policies, metric)
    order = ranking(rows, users, policies, metric)
    return ", ".join(f"{p} ({number(entries[p].mean)}{unit})" for p in order)


def _lead(rows: Sequence[Row], users: int, policies: Sequence[str], metric: str) -> str:
    """Which policy is best by ``metric``, and over which others its lead is significant."""
    entries = metric_entries(rows, users, policies, metric)
    best = next((p for p, e in entries.items() if e.best), None)
    if best is None:
        return ""
    others = [p for p in ranking(rows, users, policies, metric) if p != best]
    clear = [p for p in others if entries[p].significant]
    unclear = [p for p in others if not entries[p].significant]
    label = LABELS.get(metric, metric).split(" [")[0]
    if not others:
        return f"{best} is the only policy measured by {label}."
    if not unclear:
        return f"By {label}, {best} is best, significantly so against every other policy (95%, paired over seeds)."
    if not clear:
        return (f"By {label}, {best} comes first, but no difference from it is significant at 95%"
                " (more seeds would tell them apart, or they are alike).")
    return (f"By {label}, {best} is best: significantly better than {_list(clear)} (95%, paired over seeds),"
            f" not significantly better than {_list(unclear)}.")


def _distinct(rows: Sequence[Row], users: int, a: str, b: str) -> bool:
    """Whether the site-level runs tell ``a`` and ``b`` apart by the primary metric (95%,
    paired over seeds): only such a pair can be put in the wrong order."""
    return significant(values(rows, users, a, PRIMARY), values(rows, users, b, PRIMARY))


def _span(errors: Sequence[float]) -> str:
    low, high = min(errors), max(errors)
    return f"{low:+,.0f}%" if round(low) == round(high) else f"{low:+,.0f}% to {high:+,.0f}%"


def _open_model(cells: Sequence[Cell], rows: Sequence[Row], users: int, policies: Sequence[str]) -> list[str]:
    """Sentences on what the conventional replays would have told, for the primary metric."""
    mine = [c for c in cells if c.users == users and c.metric == PRIMARY]
    if not mine:
        return []
    site_order = ranking(rows, users, policies, PRIMARY)
    label = LABELS[PRIMARY].split(" [")[0]
    wrong, loose = [], 0
    for source in policies:
        row = {c.evaluated: c.conventional.mean for c in mine if c.trace_policy == source}
        order = sorted(row, key=lambda p: (row[p], policies.index(p)))
        swapped = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]
                   if site_order.index(a) > site_order.index(b)]
        real = [f"{a} before {b}" for a, b in swapped if _distinct(rows, users, a, b)]
        loose += len(swapped) - len(real)
        if real:
            wrong.append(f"{source}'s trace puts {_list(real)}")
    out = []
    if wrong:
        out.append(f"Replaying one trace, as a conventional study would, reverses pairs the site-level runs"
                   f" tell apart (95%) by {label}: {'; '.join(wrong)}.")
    else:
        out.append(f"No trace, replayed under the policies, reverses a pair the site-level runs tell apart"
                   f" (95%) by {label}.")
    if loose:
        out.append(f"{'Other' if wrong else 'The'} reversals ({loose}) are between policies whose site-level"
                   " difference is not significant.")
    off = [c for c in mine if c.trace_policy != c.evaluated and math.isfinite(c.error.mean)]
    if off:
        worst = max(policies, key=lambda e: max((abs(c.error.mean) for c in off if c.evaluated == e), default=0.0))
        column = [c.error.mean for c in off if c.evaluated == worst]
        out.append(f"The open model errs most on {worst}: the other policies' traces replayed under it give a"
                   f" {label} {_span(column)} off its site-level {number(values_mean(rows, users, worst)[0])} s.")
        for source in policies:
            # The worst-judged policy's column is said above; each trace's other columns here.
            errors = [c.error.mean for c in off if c.trace_policy == source and c.evaluated != worst]
            but = "" if source == worst else f" but {worst}"
            for sign, looks in ((-1, "better"), (1, "worse")):
                if len(errors) > 1 and all(sign * e >= 10 for e in errors):
                    out.append(f"{source}'s trace makes every other policy{but} look {looks} than its users"
                               f" would find it ({_span(errors)}).")
    own = [c for c in mine if c.trace_policy == c.evaluated and abs(c.error.mean) >= 1]
    if own:
        far = max(own, key=lambda c: abs(c.error.mean))
        out.append(f"Even a policy's own trace is not reproduced exactly: {far.evaluated}'s replay is off by"
                   f" {far.error.mean:+,.0f}% ({label}).")
    return out


def values_mean(rows: Sequence[Row], users: int, policy: str) -> list[float]:
    """The site-level mean of the primary metric for one policy (a one-item list)."""
    seeds = values(rows, users, policy, PRIMARY)
    return [math.fsum(seeds.values()) / len(seeds)] if seeds else [math.nan]


def paragraph(rows: Sequence[Row], cells: Sequence[Cell], users: int, policies: Sequence[str],
              seeds: int) -> str:
    """The findings for one user count, as plain text (the report escapes it)."""
    sentences = [f"With {users} users over {seeds} seed{'s' if seeds != 1 else ''}, the policies ranked by"
                 f" mean wait at site level are: {_ranked(rows, users, policies, PRIMARY, ' s')}."]
    sentences.append(_lead(rows, users, policies, PRIMARY))
    sentences.append(_lead(rows, users, policies, "throughput_per_day"))
    if present(rows, "jobs_per_active_day"):
        sentences.append(_lead(rows, users, policies, "jobs_per_active_day"))
    sentences += _open_model(cells, rows, users, policies)
    return " ".join(s for s in sentences if s)
