"""The report's paragraph, written from the numbers: the ranking, and where a
conventional (open-model) study would have misled.

Nothing here is written by hand about a particular study: every sentence is chosen by
a comparison of the measured means, intervals and orders, so the paragraph changes
when the numbers do.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitesim.study.cross import Cell
from sitesim.study.tables import LABELS, metric_entries, number, present, ranking
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


def _open_model(cells: Sequence[Cell], rows: Sequence[Row], users: int, policies: Sequence[str]) -> list[str]:
    """Sentences on what the conventional replays would have told, for the primary metric."""
    mine = [c for c in cells if c.users == users and c.metric == PRIMARY]
    if not mine:
        return []
    site_order = ranking(rows, users, policies, PRIMARY)
    label = LABELS[PRIMARY].split(" [")[0]
    misled, agreed = [], []
    for source in policies:
        row = {c.evaluated: c.conventional.mean for c in mine if c.trace_policy == source}
        if len(row) < 2:
            continue
        order = sorted(row, key=lambda p: (row[p], policies.index(p)))
        site_kept = [p for p in site_order if p in row]
        if order == site_kept:
            agreed.append(source)
        else:
            swapped = [f"{a} before {b}" for i, a in enumerate(order) for b in order[i + 1:]
                       if site_kept.index(a) > site_kept.index(b)]
            misled.append(f"{source}'s trace puts {_list(swapped[:3])}" + (" (and more)" if len(swapped) > 3 else ""))
    out = []
    if misled:
        out.append(f"A conventional study replaying one trace would have misranked the policies by {label}:"
                   f" {'; '.join(misled)}, against the site-level order.")
    if agreed and not misled:
        out.append(f"Every policy's trace, replayed under the others, ranks them by {label} in the site-level order.")
    elif agreed:
        out.append(f"The traces of {_list(agreed)} give the site-level order.")
    off = [c for c in mine if c.trace_policy != c.evaluated and c.error.mean == c.error.mean]
    if off:
        worst = max(off, key=lambda c: abs(c.error.mean))
        ci = "" if worst.error.ci is None else f" ± {number(worst.error.ci)}"
        direction = "longer" if worst.error.mean > 0 else "shorter"
        out.append(f"The largest error: {worst.trace_policy}'s trace replayed under {worst.evaluated} predicts a"
                   f" {label} of {number(worst.conventional.mean)} s, against {number(worst.site.mean)} s when"
                   f" {worst.evaluated} serves the users itself ({worst.error.mean:+,.0f}%{ci}, a {direction} wait"
                   " than the users would see).")
    own = [c for c in mine if c.trace_policy == c.evaluated and abs(c.error.mean) >= 1]
    if own:
        far = max(own, key=lambda c: abs(c.error.mean))
        out.append(f"Even a policy's own trace is not reproduced exactly: {far.evaluated}'s replay is off by"
                   f" {far.error.mean:+,.0f}% ({label}).")
    return out


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
