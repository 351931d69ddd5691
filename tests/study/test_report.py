"""report.html: valid, balanced HTML5, self-contained, and its numbers are results.csv's."""

from __future__ import annotations

import base64
import csv
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sitesim.study.tables import number
from sitesim.sweep.aggregate import mean_ci

#: Elements HTML5 defines as void (no end tag).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class StrictPage(HTMLParser):
    """Parse a page and fail on anything a strict HTML5 reading would: an unclosed or
    misnested element, an end tag without a start, a void element closed, no doctype.
    Keeps the images' sources and the tables' text cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.doctype = ""
        self.sources: list[str] = []
        self.attributes: list[tuple[str, str]] = []
        self.tables: list[list[list[str]]] = []
        self.headings: list[str] = []
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes += [(k, v or "") for k, v in attrs]
        if tag == "img":
            self.sources.append(dict(attrs).get("src") or "")
        if tag == "table":
            self.tables.append([])
        if tag == "tr":
            self.tables[-1].append([])
        if tag in ("td", "th"):
            self._cell = []
        if tag in ("h2", "h3"):
            self._heading = []
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise AssertionError(f"self-closing <{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        assert tag not in VOID, f"end tag of the void element {tag}"
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        if tag in ("h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._heading is not None:
            self._heading.append(data)


def parse(path: Path) -> tuple[StrictPage, str]:
    text = path.read_text(encoding="utf-8")
    page = StrictPage()
    page.feed(text)
    page.close()
    assert page.doctype.lower() == "doctype html"
    assert page.stack == [], f"unclosed: {page.stack}"
    return page, text


def test_report_is_balanced_html5_and_self_contained(study_dir: Path) -> None:
    page, text = parse(study_dir / "report.html")
    assert text.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    pngs = [s for s in page.sources if s.startswith("data:image/png;base64,")]
    assert len(pngs) >= 3 and len(pngs) == len(page.sources)
    for source in pngs:
        assert base64.b64decode(source.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    # Nothing fetched: no address, no link, no script, no style sheet from elsewhere.
    plain = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:", text)
    assert not re.search(r"https?:|//[a-z]|<link|<script|<iframe|url\(|@import", plain, re.IGNORECASE)
    assert all(k != "href" for k, _ in page.attributes)
    assert all(v.startswith("data:") for k, v in page.attributes if k == "src")
    for heading in ("Site and configuration", "Findings", "Metrics by policy", "Figures",
                    "What a conventional study would have predicted"):
        assert heading in page.headings


def _results(study_dir: Path) -> list[dict[str, str]]:
    with open(study_dir / "results.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_report_tables_hold_the_means_and_cis_of_results_csv(study_dir: Path) -> None:
    page, _ = parse(study_dir / "report.html")
    rows = _results(study_dir)
    by_header = {tuple(t[0]): t[1:] for t in page.tables if t}
    checked = 0
    for header, body in by_header.items():
        if header[:1] != ("policy",):
            continue
        labels = {"mean wait [s]": "mean_wait", "mean response [s]": "mean_response",
                  "throughput [jobs/day]": "throughput_per_day", "utilisation": "utilization",
                  "jobs per active day": "jobs_per_active_day", "completed jobs": "completed"}
        for line in body:
            policy = line[0]
            for label, cell in zip(header[1:], line[1:], strict=True):
                metric = labels.get(label)
                if metric is None:
                    continue
                values = [float(r[metric]) for r in rows if r["scheduler"] == policy]
                mean, half = mean_ci(values)
                assert half is not None
                assert cell.removesuffix("*").strip() == f"{number(mean)} ± {number(half)}", (policy, metric)
                checked += 1
    assert checked == 2 * 6


def test_best_policy_and_significance_marks(study_dir: Path) -> None:
    """The best mean is marked in each column; a star only where the paired difference
    from the best is significant at 95%."""
    text = (study_dir / "report.html").read_text(encoding="utf-8")
    rows = _results(study_dir)
    table = text.split("<h3>Waiting and response</h3>")[1].split("</table>")[0]
    easy = next(line for line in table.splitlines() if line.startswith("<tr><td>easy</td>"))
    fcfs = next(line for line in table.splitlines() if line.startswith("<tr><td>fcfs</td>"))
    waits = {p: {r["seed"]: float(r["mean_wait"]) for r in rows if r["scheduler"] == p} for p in ("fcfs", "easy")}
    best = min(waits, key=lambda p: math.fsum(waits[p].values()))
    assert (easy if best == "easy" else fcfs).split("</td>")[1].startswith('<td class="best">')
    diff, half = mean_ci([waits["fcfs"][s] - waits["easy"][s] for s in waits["easy"]])
    assert half is not None
    other = fcfs if best == "easy" else easy
    assert ('<span class="sig">*</span>' in other.split("</td>")[1]) == (abs(diff) > half)


def test_cross_csv_is_the_papers_inaccuracy_per_pair(study_dir: Path) -> None:
    """A cell of cross.csv recomputed by hand from results.csv and replays.csv."""
    rows = _results(study_dir)
    with open(study_dir / "replays.csv", encoding="utf-8", newline="") as handle:
        replays = list(csv.DictReader(handle))
    with open(study_dir / "cross.csv", encoding="utf-8", newline="") as handle:
        cross = list(csv.DictReader(handle))
    errors = []
    for seed in "012":
        site = next(float(r["mean_wait"]) for r in rows if r["scheduler"] == "fcfs" and r["seed"] == seed)
        conv = next(float(r["mean_wait"]) for r in replays
                    if r["scheduler"] == "fcfs" and r["trace"].startswith(f"runs/easy-u10-s{seed}-"))
        errors.append(100 * (conv - site) / site)
    cell = next(r for r in cross if (r["trace_policy"], r["evaluated_policy"], r["metric"]) == ("easy", "fcfs", "mean_wait"))
    mean, half = mean_ci(errors)
    assert float(cell["error_pct_mean"]) == pytest.approx(mean, rel=1e-9)
    assert float(cell["error_pct_ci"]) == pytest.approx(half, rel=1e-9)
    inaccuracy, _ = mean_ci([abs(e) for e in errors])
    assert float(cell["inaccuracy_pct_mean"]) == pytest.approx(inaccuracy, rel=1e-9)


def test_findings_are_generated_from_the_numbers(study_dir: Path) -> None:
    text = (study_dir / "report.html").read_text(encoding="utf-8")
    findings = text.split('<p class="findings">')[1].split("</p>")[0]
    rows = _results(study_dir)
    means = {p: math.fsum(float(r["mean_wait"]) for r in rows if r["scheduler"] == p) / 3 for p in ("fcfs", "easy")}
    first, second = sorted(means, key=means.__getitem__)
    assert f"are: {first} ({number(means[first])} s), {second} ({number(means[second])} s)." in findings


def test_several_user_counts_add_throughput_against_users(tmp_path: Path) -> None:
    from sitesim.cli import main

    out = tmp_path / "users"
    assert main(["study", "--site", "paper", "-s", "fcfs,easy", "--seeds", "2", "--duration", "2",
                 "--users", "2,4", "-o", str(out), "--serial", "--no-progress"]) == 0
    page, text = parse(out / "report.html")
    assert 'id="figure-throughput"' in text and 'id="figure-cross_2"' in text and 'id="figure-cross_4"' in text
    assert len(page.sources) == 6
    table = next(t for t in page.tables if t and t[0][:2] == ["users", "policy"])
    assert [line[:2] for line in table[1:]] == [["2", "fcfs"], ["2", "easy"], ["4", "fcfs"], ["4", "easy"]]
    assert "With 2 users over 2 seeds" in text and "With 4 users over 2 seeds" in text
