"""Gas on a partitioned machine: each size read against the list of the partition it goes to."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.errors import InputError
from sitesim.moldable.gas import gas, gas_routed
from sitesim.moldable.replace import MoldableSpec
from sitesim.moldable.speedup import RuntimeFunction
from sitesim.moldable.view import AvailabilityView
from sitesim.runs.replay import ReplayConfig, run_replay
from sitesim.runs.site import DAY, SiteConfig, run_site
from sitesim.schedulers.partitioned import PartitionedScheduler, PartitionSpec
from tests.helpers import one_line_error, partitioned
from tests.moldable.test_replace import small_trace

#: 32 nodes: jobs asking at most 30 min go to "short" (12 nodes), the rest to "batch".
SHORT_BATCH = (
    PartitionSpec("short", 12, "cons", max_estimate=1800),
    PartitionSpec("batch", 20, "cons"),
)


class FakeSite:
    def __init__(self, scheduler) -> None:
        self.scheduler = scheduler
        self.env = type("Env", (), {"now": 0})()
        self.machine = type("Machine", (), {"nodes": scheduler.nodes})()

    def observe(self, observer: object) -> None:
        pass


def test_each_size_reads_the_list_of_its_partition():
    composite = PartitionedScheduler(SHORT_BATCH)
    view = AvailabilityView.of(FakeSite(composite))
    # 4 and 8 processors run at most 30 min (short); 1 and 2 run longer (batch); 16
    # would go to short by its estimate, but only batch is that large; 32 fits nowhere.
    function = RuntimeFunction((1, 2, 4, 8, 16, 32), (7200, 3600, 1800, 900, 450, 225))
    assert view.routable(function) == RuntimeFunction((1, 2, 4, 8, 16), (7200, 3600, 1800, 900, 450))
    groups = view.candidates(view.routable(function))
    assert [(frames, f.sizes) for frames, f in groups] == [
        ([(0, None, 12)], (4, 8)),
        ([(0, None, 20)], (1, 2, 16)),
    ]
    # Both machines idle: the 16-processor run (batch) ends first, after 450 s.
    request = gas_routed(groups)
    assert (request.size, request.start, request.runtime) == (16, 0, 450)


def test_gas_routed_is_gas_on_one_list():
    frames = [(0, 1, 5), (1, 5, 10), (5, 6, 0), (6, 7, 10), (7, 11, 20), (11, None, 40)]
    function = RuntimeFunction((10, 20, 30), (5, 3, 2))
    assert gas_routed([(frames, function)]) == gas(frames, function)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(["gas", "static"]))
def test_moldable_jobs_run_in_the_partition_their_size_goes_to(tmp_path_factory, seed, policy):
    trace = small_trace(tmp_path_factory.mktemp("t") / "t.swf", seed, jobs=40)
    config = ReplayConfig(
        trace=str(trace), scheduler=partitioned(trace.parent, SHORT_BATCH), seed=seed,
        moldable=MoldableSpec(policy=policy, fraction=0.6),
    )
    result = run_replay(config)
    records = result.replacement.records
    assert records and result.counts["submitted"] == result.counts["read"] - result.counts["unroutable"]
    for r in records:
        assert r.function.accepts(r.job.size) and r.job.size <= 20
        assert r.job.runtime == r.job.estimate == r.function.runtime(r.job.size)
        assert r.job.end >= 0  # it ran: its partition admitted it
        if policy == "gas":
            assert r.job.submit <= r.job.start <= r.predicted_start  # cons honours it
    assert result.replacement.summary()["late_starts"] == 0


def test_gas_needs_every_partition_to_export_its_list(tmp_path, capsys):
    trace = small_trace(tmp_path / "t.swf", 1)
    mixed = (PartitionSpec("short", 12, "easy", max_estimate=1800), PartitionSpec("batch", 20, "cons"))
    with pytest.raises(InputError, match="partition 'short' \\(easy\\) exports none"):
        run_replay(ReplayConfig(trace=str(trace), scheduler=partitioned(tmp_path, mixed),
                                moldable=MoldableSpec(fraction=0.5)))
    site = tmp_path / "p.toml"
    site.write_text(
        '[[partitions]]\nname = "short"\nnodes = 12\nscheduler = "cons"\nmax_estimate = 1800\n'
        '[[partitions]]\nname = "batch"\nnodes = 20\nscheduler = "fcfs"\n'
    )
    out = tmp_path / "out"
    line = one_line_error(["-c", str(trace), "--partitions", str(site), "--moldable", "0.5", "--out", str(out)], capsys)
    assert "partition 'batch' (fcfs) exports none" in line and not out.exists()
    # Static reads no list: it runs on any partitions, its sizes routed like Gas's.
    static = MoldableSpec(policy="static", fraction=0.5)
    result = run_replay(ReplayConfig(trace=str(trace), scheduler=partitioned(tmp_path, mixed), moldable=static))
    assert result.replacement.records and all(r.job.end >= 0 for r in result.replacement.records)


def test_adaptive_users_on_partitions_running_cons(tmp_path):
    config = SiteConfig(users=4, scheduler=partitioned(tmp_path, SHORT_BATCH), nodes=32,
                        duration=5 * DAY, seed=2, adaptive=0.5)
    result = run_site(config)
    assert result.summary["adaptive"]["completed"] > 0


def test_no_size_that_fits_a_partition_keeps_the_job_rigid():
    # No catch-all: short jobs up to 8 processors, or jobs of at most 2 processors.
    composite = PartitionedScheduler(
        (PartitionSpec("short", 8, "cons", max_estimate=60), PartitionSpec("narrow", 24, "cons", max_size=2))
    )
    view = AvailabilityView.of(FakeSite(composite))
    assert view.routable(RuntimeFunction((4, 9, 16), (90, 40, 30))) is None
    assert view.routable(RuntimeFunction((1, 4), (90, 80))) == RuntimeFunction((1,), (90,))
