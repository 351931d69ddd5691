"""Per-job metric definitions (docs/metrics.md) on hand-made jobs."""

from __future__ import annotations

import pytest

from sitesim.metrics.stats import RunMetrics, bounded_slowdown, slowdown
from sitesim.workload.job import Job


def ended(submit: int, start: int, end: int, size: int = 1, runtime: int | None = None) -> Job:
    job = Job(id=1, submit=submit, size=size, runtime=end - start if runtime is None else runtime, estimate=10**9)
    job.start, job.end = start, end
    return job


@pytest.mark.parametrize(
    ("submit", "start", "end", "sld", "bsld"),
    [
        (0, 100, 200, 2.0, 2.0),  # ran 100 > 10: plain slowdown
        (0, 95, 100, 20.0, 10.0),  # ran 5 <= 10: bounded by 10
        (0, 0, 0, 0.0, 0.0),  # zero-length job, no wait
        (0, 30, 30, 30.0, 3.0),  # zero-length job after a wait: denominators 1 and 10
    ],
)
def test_slowdowns(submit: int, start: int, end: int, sld: float, bsld: float) -> None:
    job = ended(submit, start, end)
    assert slowdown(job) == sld
    assert bounded_slowdown(job) == bsld


def test_run_metrics_window_utilisation_and_loads() -> None:
    metrics = RunMetrics(nodes=4)
    a = Job(id=1, submit=10, size=2, runtime=100, estimate=100)
    b = Job(id=2, submit=60, size=4, runtime=50, estimate=50)
    metrics.on_submit(a)
    a.start = 10
    metrics.on_start(a)
    metrics.on_submit(b)
    a.end = 110
    metrics.on_end(a)
    b.start = 110
    metrics.on_start(b)
    b.end = 160
    metrics.on_end(b)
    metrics.close()
    s = metrics.system_summary()
    assert s["time_origin"] == 10 and s["makespan"] == 150
    assert s["utilization"] == pytest.approx((2 * 100 + 4 * 50) / (4 * 150))
    assert s["offered_load"] == pytest.approx((2 * 100 + 4 * 50) / (4 * 50))
    assert s["accepted_load"] == pytest.approx(2 * 50 / (4 * 50))
    assert s["mean_wait"] == 25 and s["mean_response"] == 100
    assert s["throughput_per_day"] == pytest.approx(2 * 86_400 / 150)
