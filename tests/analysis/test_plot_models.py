"""Smoke test of scripts/plot_models.py on a tiny SWF file (the simulator-output path)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from sitesim.workload.swf import SwfRecord, write_swf

REPO = Path(__file__).resolve().parents[2]


def test_plots_from_an_swf_file(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("plot_models", REPO / "scripts" / "plot_models.py")
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    records = [
        SwfRecord(job_number=i + 1, submit_time=t, wait_time=0, run_time=r, allocated_processors=s,
                  requested_time=2 * r, status=i % 2, user_id=i % 3)
        for i, (t, r, s) in enumerate([(0, 100, 4), (10, 50, 4), (500, 30, 8), (900, 400, 1),
                                       (950, 10, 2), (3000, 70, 16), (3100, 70, 16), (9000, 5, 1)])
    ]
    swf = tmp_path / "sim.swf"
    write_swf(swf, records, header=["MaxProcs: 16"])
    out = tmp_path / "figs"
    assert script.main(["--swf", f"SIM={swf}", "--out", str(out)]) == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert len(pngs) == 7 and all((out / p).stat().st_size > 1000 for p in pngs)
