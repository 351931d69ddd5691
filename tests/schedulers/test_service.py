"""The fitted service (``service:FILE``): delays drawn per size class through the run's
seed, then a real policy on a bounded machine; its table's checks; its place in a site
file (the site's policy, swapped by ``-s`` on the same machine) and in a replay."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitesim.errors import InputError
from sitesim.runs.sitefile import load_site_file, replay_on_site, site_config
from sitesim.schedulers import make_scheduler
from sitesim.schedulers.service import DelayModel, ServiceScheduler, ServiceSpec, UserStates
from sitesim.workload.job import Job
from tests.helpers import job, run_jobs
from tests.schedulers.test_invariants import EXAMPLES, _fresh, check_common, workloads


def service_file(directory: Path, nodes: int, classes: list[int], delays: list[list[int]], policy: str = "easy") -> str:
    path = directory / "site.toml"
    rows = ", ".join("[" + ", ".join(str(v) for v in row) + "]" for row in delays)
    path.write_text(
        f'users = 3\nnodes = {nodes}\n\n[service]\nnodes = {nodes}\npolicy = "{policy}"\nsize_classes = {classes}\ndelays = [{rows}]\n',
        encoding="utf-8",
    )
    return str(path)


def test_a_class_of_constant_delay_releases_each_job_exactly_then_to_its_policy(tmp_path: Path) -> None:
    # Jobs of 1-2 nodes are eligible 10 s after submission, larger ones 50 s; EASY then
    # starts them on 4 nodes: job 3 (4 nodes) waits for job 1's end.
    spec = service_file(tmp_path, 4, [2, 4], [[10, 10], [50, 50]])
    jobs = [job(1, 0, 2, 100), job(2, 0, 1, 20), job(3, 0, 4, 10)]
    recorder = run_jobs(jobs, 4, f"service:{spec}")
    assert recorder.starts() == {1: 10, 2: 10, 3: 110}
    assert recorder.max_busy <= 4


def test_with_no_delay_the_service_is_its_policy(tmp_path: Path) -> None:
    spec = service_file(tmp_path, 8, [8], [[0, 0]], policy="cons")
    jobs = [job(1, 0, 5, 100, 120), job(2, 1, 5, 10, 20), job(3, 2, 3, 30, 40)]
    served = run_jobs(_fresh(jobs), 8, f"service:{spec}")
    plain = run_jobs(_fresh(jobs), 8, "cons")
    assert served.events == plain.events


@settings(max_examples=EXAMPLES // 2, deadline=None, derandomize=True)
@given(case=workloads(nodes=8))
def test_the_service_keeps_every_scheduler_invariant_on_a_bounded_machine(tmp_path_factory, case) -> None:
    nodes, jobs = case
    spec = service_file(tmp_path_factory.mktemp("s"), nodes, [2, 8], [[0, 5, 40], [0, 0, 100]])
    jobs = _fresh(jobs)
    recorder = run_jobs(jobs, nodes, f"service:{spec}")
    check_common(nodes, jobs, recorder)


def test_draws_follow_the_quantile_function_and_the_seed() -> None:
    model = DelayModel((1, 4), ((0.0, 100.0), (0.0, 0.0, 1000.0)))
    assert [model.class_of(s) for s in (1, 2, 4, 9)] == [0, 1, 1, 1]  # larger: the last class
    draws = [model.draw(1, np.random.default_rng(7)) for _ in range(3)]
    assert len(set(draws)) == 1  # one seed, one draw
    rng = np.random.default_rng(1)
    small = np.array([model.draw(1, rng) for _ in range(4000)])
    assert 0 <= small.min() and small.max() <= 100 and abs(small.mean() - 50) < 3
    large = np.array([model.draw(3, rng) for _ in range(4000)])
    assert large.min() == 0 and large.max() <= 1000 and abs((large == 0).mean() - 0.5) < 0.03
    assert model.mean == [50.0, 250.0]


def test_the_runs_seed_decides_the_delays(tmp_path: Path) -> None:
    spec = service_file(tmp_path, 4, [4], [[0, 1000]])

    def starts(seed: int) -> dict[int, int]:
        policy = make_scheduler(f"service:{spec}", 4)
        policy.use_seed(seed)
        return run_jobs([job(i, 0, 1, 5) for i in range(1, 6)], 4, policy).starts()

    assert starts(3) == starts(3)
    assert starts(3) != starts(4)


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ("nodes = 0\nsize_classes = [4]\ndelays = [[0, 1]]", "service.nodes"),
        ("nodes = 4\nsize_classes = [4, 2]\ndelays = [[0, 1], [0, 1]]", "service.size_classes"),
        ("nodes = 4\nsize_classes = [4]\ndelays = [[5, 1]]", "service.delays[1]"),
        ("nodes = 4\nsize_classes = [2, 4]\ndelays = [[0, 1]]", "service.delays"),
        ("nodes = 4\nsize_classes = [4]\ndelays = [[0, 1]]\nwhatever = 1", "service.whatever"),
        ('nodes = 4\nsize_classes = ["a"]\ndelays = [[0, 1]]', "service.size_classes"),
    ],
)
def test_a_bad_service_table_is_an_error_naming_the_file_and_key(tmp_path: Path, table: str, field: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text("[service]\n" + table + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        make_scheduler(f"service:{path}", 4)
    assert info.value.field == field and info.value.path == str(path)


def test_the_table_reads_back_as_written() -> None:
    spec = ServiceSpec(16, "easy", DelayModel((4, 16), ((0.0, 3.0), (1.0, 2.0, 8.0))))
    assert ServiceSpec.from_table(spec.to_table(), "x") == spec


def test_a_site_with_a_service_runs_it_and_swaps_only_the_policy(tmp_path: Path) -> None:
    path = service_file(tmp_path, 16, [16], [[0, 60]])
    base = load_site_file(path)
    assert base["scheduler"] == f"service:{path}" and base["nodes"] == 16
    config = site_config(base, {"scheduler": "creasy"}, origin=path)
    assert config.scheduler == f"service:{path}@creasy" and config.nodes == 16
    swapped = make_scheduler(config.scheduler, 16)
    assert isinstance(swapped, ServiceScheduler) and swapped.base is not None and swapped.base.name == "creasy"
    # a replay on the site: its machine and policy only, a policy on top swapped the same way
    assert replay_on_site(base, {}) == {"scheduler": f"service:{path}"}
    assert replay_on_site(base, {"scheduler": "fcfs"})["scheduler"] == f"service:{path}@fcfs"
    # the log's own service (recorded waits) replaces the fitted one, on the site's machine
    held = site_config(base, {"scheduler": "hold:easy"}, origin=path)
    assert held.scheduler == "hold:easy" and held.nodes == 16
    with pytest.raises(InputError, match="differs from the service"):
        make_scheduler(f"service:{path}", 8)
    with pytest.raises(InputError, match="cannot be"):
        make_scheduler(f"service:{path}@hold:easy", 16)


def _levels_run(model: DelayModel, gap: int, users: int = 40, per_user: int = 60) -> np.ndarray:
    """The delays the service gives ``per_user`` jobs of each of ``users`` users,
    each submitted ``gap`` s after its user's previous one (one row per user)."""
    scheduler = ServiceScheduler(10_000, make_scheduler("easy", 10_000), model, spec="service:test")
    scheduler.use_seed(7)
    out = np.zeros((users, per_user))
    for k in range(per_user):
        for u in range(users):
            j = Job(id=k * users + u + 1, submit=k * gap, size=1, runtime=10, estimate=10, user=u, seq=k * users + u)
            scheduler.enqueue(j, k * gap)
            out[u, k] = next((t for t, _, x in scheduler.held if x is j), k * gap) - k * gap
            scheduler.held.clear()
    return out


def test_per_user_levels_keep_each_jobs_delay_distribution_and_go_together_by_the_gap() -> None:
    # delays = level * 1000 s exactly (quantiles 0 and 1000 at levels 0 and 1)
    row = (0.0, 1000.0)
    model = DelayModel((1,), (row,), "per-user", (60.0, 3600.0), (0.9, 0.5, 0.0))
    close = _levels_run(model, 30)
    apart = _levels_run(model, 7200)
    independent = _levels_run(DelayModel((1,), (row,)), 30)
    for delays in (close, apart, independent):
        # every job's level is uniform: its delay uniform over 0..1000 s (KS against it)
        flat = np.sort(delays.ravel()) / 1000
        assert np.max(np.abs(flat - (np.arange(flat.size) + 0.5) / flat.size)) < 0.06

    def lag1(d: np.ndarray) -> float:
        return float(np.corrcoef(d[:, :-1].ravel(), d[:, 1:].ravel())[0, 1])

    assert 0.8 < lag1(close) < 0.95  # the copula's 0.9, on the uniform scale (about 0.89)
    assert abs(lag1(apart)) < 0.08 and abs(lag1(independent)) < 0.08


def test_per_user_levels_are_read_checked_and_written_back(tmp_path: Path) -> None:
    path = tmp_path / "site.toml"
    base = "users = 3\nnodes = 4\n\n[service]\nnodes = 4\nsize_classes = [4]\ndelays = [[0, 100]]\n"
    path.write_text(base + 'levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [0.5, 0.1]\n', encoding="utf-8")
    spec = ServiceSpec.from_table(tomllib.loads(path.read_text())["service"], str(path))
    assert spec.delays.levels == "per-user" and spec.delays.level_rho == (0.5, 0.1)
    assert ServiceSpec.from_table(spec.to_table(), "x") == spec
    for extra, field in (
        ('levels = "per-day"\n', "service.levels"),
        ('levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [0.5]\n', "service.level_rho"),
        ('levels = "per-user"\nlevel_gaps = [60, 10]\nlevel_rho = [0.5, 0.1, 0]\n', "service.level_gaps"),
        ('levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [1.0, 0.1]\n', "service.level_rho"),
        ('levels = "per-user"\nlevel_gaps = "60"\n', "service.level_gaps"),
        ('levels = "per-user"\nlevel_gaps = [nan]\nlevel_rho = [0.5, 0.1]\n', "service.level_gaps"),
        ("level_gaps = [60]\nlevel_rho = [0.5, 0.1]\n", "service.level_gaps"),
    ):
        path.write_text(base + extra, encoding="utf-8")
        with pytest.raises(InputError) as err:
            ServiceSpec.from_table(tomllib.loads(path.read_text())["service"], str(path))
        assert err.value.field == field, extra


def test_a_gap_on_an_edge_is_in_the_class_above_it_as_the_fit_measures_it() -> None:
    # level_correlation puts a gap of exactly 60 s in the class above 60 (searchsorted,
    # side="right"): jobs 60 s apart take the second class's correlation, here 0.99
    model = DelayModel((1,), ((0.0, 1000.0),), "per-user", (60.0,), (0.0, 0.99))
    delays = _levels_run(model, 60)
    assert np.corrcoef(delays[:, :-1].ravel(), delays[:, 1:].ravel())[0, 1] > 0.9


def _state_run(model: DelayModel, think: int, users: int = 60, per_user: int = 40) -> np.ndarray:
    """The delays given to each user's jobs after its first, each submitted ``think`` s
    after its previous one ended (negative: while it still ran), one row per user."""
    scheduler = ServiceScheduler(10_000, make_scheduler("easy", 10_000), model, spec="service:test")
    scheduler.use_seed(3)
    out = np.zeros((users, per_user))
    now = 0
    for k in range(per_user + 1):
        for u in range(users):
            seq = k * users + u
            j = Job(id=seq + 1, submit=now, size=1, runtime=10, estimate=10, user=u, seq=seq)
            scheduler.enqueue(j, now)
            if k:
                out[u, k - 1] = next((t for t, _, x in scheduler.held if x is j), now) - now
            if think >= 0:
                assert scheduler.states is not None or model.level_states == ()
                if scheduler.states is not None:  # ended at once: the next comes think s later
                    scheduler.states.ended(u, now)
        scheduler.held.clear()
        now += think if think >= 0 else 100
    return out


def test_user_states_follow_the_users_jobs_as_the_session_analysis_cuts() -> None:
    states = UserStates()
    assert states.submitted(1, 0) == 2  # a user's first job opens a session
    assert states.submitted(1, 5) == 0  # submitted while the first has not ended: in a batch
    states.ended(1, 100)
    assert states.submitted(1, 150) == 0  # one of the two still runs
    states.ended(1, 200)
    states.ended(1, 300)
    assert states.submitted(1, 1500) == 1  # 1,200 s after the latest end: still continuing
    states.ended(1, 1600)
    assert states.submitted(1, 2801) == 2  # past the threshold: opening
    assert states.submitted(2, 2801) == 2  # users apart


def test_level_states_shift_a_jobs_level_by_what_its_user_was_doing() -> None:
    # delays = level * 1000 s; a user continuing its session draws low, one in a batch high
    row = (0.0, 1000.0)
    model = DelayModel((1,), (row,), "per-user", (60.0,), (0.0, 0.0), (0.6, -0.8, 0.0))
    in_batch, continuing, opening = _state_run(model, -1), _state_run(model, 600), _state_run(model, 1201)
    assert 650 < in_batch.mean() < 800  # Phi(0.6)'s neighbourhood, the spread scaled by 0.8
    assert 150 < continuing.mean() < 300
    assert 450 < opening.mean() < 550  # no shift: uniform
    # exactly 1,200 s after the latest end is still continuing, as the analysis counts it
    assert _state_run(model, 1200).mean() < 300
    # without states, the same draws as before the key: every state alike
    plain = DelayModel((1,), (row,), "per-user", (60.0,), (0.0, 0.0))
    assert np.array_equal(_state_run(plain, -1), _state_run(plain, 600))


def test_level_states_are_read_checked_and_written_only_when_set(tmp_path: Path) -> None:
    path = tmp_path / "site.toml"
    base = ('users = 3\nnodes = 4\n\n[service]\nnodes = 4\nsize_classes = [4]\ndelays = [[0, 100]]\n'
            'levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [0.5, 0.1]\n')
    plain = ServiceSpec.from_table(tomllib.loads(base)["service"], "x")
    assert "level_states" not in plain.to_table()
    path.write_text(base + "level_states = [0.2, -0.8, 0]\n", encoding="utf-8")
    spec = ServiceSpec.from_table(tomllib.loads(path.read_text())["service"], str(path))
    assert spec.delays.level_states == (0.2, -0.8, 0.0)
    assert ServiceSpec.from_table(spec.to_table(), "x") == spec
    for text in (base + "level_states = [0.2, -0.8]\n", base + "level_states = [0.2, -1.0, 0]\n",
                 base + 'level_states = "low"\n',
                 base.replace('levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [0.5, 0.1]\n', "")
                 + "level_states = [0.2, -0.8, 0]\n"):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as err:
            make_scheduler(f"service:{path}", 4)
        assert err.value.field == "service.level_states" and err.value.path == str(path), text


def test_level_repeat_repeats_a_users_previous_level_and_keeps_the_levels_uniform() -> None:
    # delays = level * 1000 s; within a minute a job repeats its user's level with
    # chance 0.7, else draws it from a Gaussian copula of 0.2 with it
    row = (0.0, 1000.0)
    model = DelayModel((1,), (row,), "per-user", (60.0,), (0.2, 0.0), level_repeat=(0.7, 0.0))
    close, apart = _levels_run(model, 30), _levels_run(model, 7200)
    flat = np.sort(close.ravel()) / 1000
    assert np.max(np.abs(flat - (np.arange(flat.size) + 0.5) / flat.size)) < 0.06  # still uniform
    same = np.abs(close[:, 1:] - close[:, :-1]) == 0
    assert 0.65 < same.mean() < 0.75  # the repeats (a Gaussian draw is never exactly the same)
    assert (np.abs(apart[:, 1:] - apart[:, :-1]) == 0).mean() < 0.02  # a class of 0 never repeats
    # the top decile persists as the mixture's: 0.7 + 0.3 * (the copula of 0.2's, about 0.17)
    top = close[:, :-1].ravel() >= 900
    assert 0.66 < (close[:, 1:].ravel()[top] >= 900).mean() < 0.88
    # a table of zeros draws exactly as one without the key: no uniform is drawn for it
    plain = DelayModel((1,), (row,), "per-user", (60.0,), (0.2, 0.0))
    zeros = DelayModel((1,), (row,), "per-user", (60.0,), (0.2, 0.0), level_repeat=(0.0, 0.0))
    assert np.array_equal(_levels_run(plain, 30), _levels_run(zeros, 30))


def test_level_repeat_is_read_checked_and_written_only_when_set() -> None:
    base = ('nodes = 4\nsize_classes = [4]\ndelays = [[0, 100]]\n'
            'levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [0.5, 0.1]\n')
    plain = ServiceSpec.from_table(tomllib.loads(base), "x")
    assert "level_repeat" not in plain.to_table()
    spec = ServiceSpec.from_table(tomllib.loads(base + "level_repeat = [0.6, 0]\n"), "x")
    assert spec.delays.level_repeat == (0.6, 0.0)
    assert ServiceSpec.from_table(spec.to_table(), "x") == spec
    for text in (base + "level_repeat = [0.6]\n", base + "level_repeat = [1.0, 0]\n",
                 base + "level_repeat = [-0.1, 0]\n", base + 'level_repeat = "often"\n',
                 'nodes = 4\nsize_classes = [4]\ndelays = [[0, 100]]\nlevel_repeat = [0.6, 0]\n'):
        with pytest.raises(InputError) as err:
            ServiceSpec.from_table(tomllib.loads(text), "site.toml")
        assert err.value.field == "service.level_repeat" and err.value.path == "site.toml", text


def test_a_recorded_wait_gives_the_level_where_it_falls_among_its_classs() -> None:
    # class 1's log waits: a third 0 s, then 0..600 s linearly; class 2's 10..20 s
    model = DelayModel((1, 4), ((0.0, 1000.0), (0.0, 1000.0)), "recorded",
                       recorded_waits=((0.0, 0.0, 300.0, 600.0), (10.0, 20.0)))
    # a wait of w s stands for [w - 1/2, w + 1/2): the uniform places the job in that span
    assert model.level_of(1, 150.0, 0.5) == pytest.approx(0.5)  # between quantiles: interpolated
    assert model.level_of(1, 150.0, 0.0) == pytest.approx((1 + 149.5 / 300) / 3)
    assert model.level_of(1, 150.0, 1.0) == pytest.approx((1 + 150.5 / 300) / 3)
    assert model.level_of(1, 300.0, 0.5) == pytest.approx(2 / 3)  # on one quantile: around it, not at it
    assert model.level_of(1, 300.0, 0.0) < 2 / 3 < model.level_of(1, 300.0, 1.0)
    # the run of zeros spans levels 0 to 1/3 (and 0.5 s more): the uniform places the job in it
    assert model.level_of(1, 0.0, 0.0) == 0.0
    assert model.level_of(1, 0.0, 0.6) == pytest.approx(0.6 * (1 + 0.5 / 300) / 3)
    assert model.level_of(4, 5.0, 0.5) == 0.0 and model.level_of(9, 50.0, 0.5) == 1.0  # outside: the ends
    assert model.at_level(1, model.level_of(1, 150.0, 0.5)) == 500


def _recorded_run(model: DelayModel, waits: list[int]) -> list[int]:
    """Each job's delay under ``model``, jobs of 1 node with recorded ``waits`` (-1: none)."""
    service = ServiceScheduler(64, make_scheduler("fcfs", 64), model, spec="service:test")
    service.use_seed(5)
    out = []
    for i, wait in enumerate(waits):
        j = Job(id=i + 1, submit=i, runtime=10, size=1, estimate=10, user=i % 3)
        j.seq, j.recorded_wait = i, wait
        before = service.held_seconds
        service.enqueue(j, i)
        out.append(service.held_seconds - before)
    return out


def test_recorded_levels_delay_a_job_by_its_rank_and_keep_the_levels_uniform() -> None:
    ranked = ((0.0, 0.0, 300.0, 600.0),)
    model = DelayModel((64,), ((0.0, 3000.0),), "recorded", recorded_waits=ranked)
    # 150 s is about level 0.5, 600 s the top: delays of about 1,500 s and 3,000 s (the
    # draw places each within its half-second either side: a few seconds of delay)
    delays = _recorded_run(model, [150, 600, 150])
    assert abs(delays[0] - 1500) <= 3 and abs(delays[2] - 1500) <= 3 and 2995 <= delays[1] <= 3000
    # waits drawn as the log's (a third zeros) give uniform levels: zeros spread over [0, 1/3)
    rng = np.random.default_rng(2)
    waits = [0 if rng.random() < 1 / 3 else int(rng.uniform(0, 600)) for _ in range(6000)]
    levels = np.sort(np.array(_recorded_run(model, waits)) / 3000)
    assert np.max(np.abs(levels - (np.arange(levels.size) + 0.5) / levels.size)) < 0.03
    # waits all on one quantile are spread over the levels around it, not put at one
    lumped = DelayModel((64,), ((0.0, 3000.0),), "recorded", recorded_waits=((0.0, 10.0, 20.0),))
    on_knot = np.array(_recorded_run(lumped, [10] * 400)) / 3000
    assert on_knot.min() >= 0.475 - 1e-9 and on_knot.max() <= 0.525 + 1e-9 and np.std(on_knot) > 0.01
    # a job without a recorded wait draws its level apart, from the service's stream
    apart = _recorded_run(model, [-1] * 2000)
    assert abs(np.mean(apart) - 1500) < 100 and len(set(apart)) > 1000


def test_recorded_waits_are_read_checked_and_written_only_with_recorded_levels() -> None:
    base = 'nodes = 4\nsize_classes = [2, 4]\ndelays = [[0, 100], [0, 50]]\n'
    spec = ServiceSpec.from_table(tomllib.loads(base + 'levels = "recorded"\nrecorded_waits = [[0, 5, 9], [1, 2]]\n'), "x")
    assert spec.delays.recorded_waits == ((0.0, 5.0, 9.0), (1.0, 2.0))
    assert ServiceSpec.from_table(spec.to_table(), "x") == spec
    assert "recorded_waits" not in ServiceSpec.from_table(tomllib.loads(base), "x").to_table()
    for text in (base + 'levels = "recorded"\n',  # none given
                 base + 'levels = "recorded"\nrecorded_waits = [[0, 5]]\n',  # one class short
                 base + 'levels = "recorded"\nrecorded_waits = [[0, 5], [3, 2]]\n',  # decreasing
                 base + 'levels = "recorded"\nrecorded_waits = [0, 5]\n',  # not rows
                 base + 'levels = "per-user"\nlevel_gaps = [60]\nlevel_rho = [0.5, 0.1]\nrecorded_waits = [[0, 5], [1, 2]]\n',
                 base + 'recorded_waits = [[0, 5], [1, 2]]\n'):
        with pytest.raises(InputError) as err:
            ServiceSpec.from_table(tomllib.loads(text), "site.toml")
        assert err.value.field.startswith("service.recorded_waits") and err.value.path == "site.toml", text
    with pytest.raises(InputError) as err:  # the copulas' keys are not for recorded levels
        ServiceSpec.from_table(tomllib.loads(base + 'levels = "recorded"\nrecorded_waits = [[0, 5], [1, 2]]\n'
                                             'level_rho = [0.5]\n'), "site.toml")
    assert err.value.field == "service.level_rho"
    with pytest.raises(InputError) as err:  # the classes' own fault is named first
        ServiceSpec.from_table(tomllib.loads('nodes = 4\nsize_classes = [2, 4]\ndelays = [[0, 1], [0, 1], [0, 1]]\n'
                                             'levels = "recorded"\nrecorded_waits = [[0, 5], [1, 2]]\n'), "site.toml")
    assert err.value.field == "service.delays"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(
    steps=st.lists(st.integers(0, 500), min_size=1, max_size=12),
    wait=st.integers(0, 6000),
    first=st.floats(0.0, 1.0),
    second=st.floats(0.0, 1.0),
)
def test_recorded_levels_stay_in_range_and_never_rank_a_longer_wait_lower(
    steps: list[int], wait: int, first: float, second: float
) -> None:
    # any table of whole-second quantiles (runs of equal ones included): a level is in
    # [0, 1], and a wait a second longer never gets a lower level, whatever the draws
    # (a wait's span ends where the next second's begins)
    row = tuple(float(v) for v in np.cumsum([0, *steps]))
    model = DelayModel((1,), ((0.0, 100.0),), "recorded", recorded_waits=(row,))
    level = model.level_of(1, float(wait), first)
    assert 0.0 <= level <= 1.0
    assert model.level_of(1, float(wait + 1), second) >= level - 1e-12
