"""The experiments' resumable result CSV: a rerun skips what is written, appends the rest."""

from __future__ import annotations

import csv

from sitesim.experiments.resumable import ResumableCsv


def test_a_rerun_skips_written_rows_and_appends_new_ones(tmp_path):
    path = tmp_path / "deep" / "runs.csv"
    table = ResumableCsv(path, ["log", "seed", "value"], key=["log", "seed"])
    assert not table.done("KTH", 0)
    table.append([{"log": "KTH", "seed": 0, "value": 1.5}])
    assert table.done("KTH", 0) and not table.done("KTH", 1)
    again = ResumableCsv(path, ["log", "seed", "value"], key=["log", "seed"])
    assert again.done("KTH", "0") and again.done("KTH", 0) and not again.done("CTC", 0)
    again.append([{"log": "KTH", "seed": 1, "value": 2}, {"log": "CTC", "seed": 0, "value": 3}])
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["log"], r["seed"], r["value"]) for r in rows] == [("KTH", "0", "1.5"), ("KTH", "1", "2"), ("CTC", "0", "3")]
