"""Adaptive users: moldable jobs sized at submission, read-only view of the availability list."""

from __future__ import annotations

import pytest

from sitesim.cli import main
from sitesim.errors import InputError
from sitesim.runs.site import DAY, SiteConfig, run_site


def config(**kw) -> SiteConfig:
    return SiteConfig(**{"users": 6, "scheduler": "cons", "duration": 10 * DAY, "seed": 3, **kw})


class Sizes:
    """Observer: each user's submitted (executable, size, runtime) triples."""

    def __init__(self) -> None:
        self.jobs: dict[int, list[tuple[int, int, int]]] = {}

    def on_submit(self, job) -> None:
        self.jobs.setdefault(job.user, []).append((job.executable, job.size, job.runtime))


def test_no_adaptive_users_changes_nothing(tmp_path):
    run_site(config(), out=tmp_path / "a")
    run_site(config(adaptive=0.0, moldable_policy="static"), out=tmp_path / "b")
    assert (tmp_path / "a" / "trace.swf").read_text() == (tmp_path / "b" / "trace.swf").read_text()


def test_adaptive_users_size_their_jobs_and_others_draw_the_same_work():
    plain, mixed = Sizes(), Sizes()
    run_site(config(), observers=[plain])
    result = run_site(config(adaptive=0.5), observers=[mixed])
    block = result.summary["adaptive"]
    assert block["users"] == 3 and block["rigid_users"] == 3 and block["completed"] > 0
    # Adaptive users (1..3) resize; their job sequence (programs) is the rigid one's.
    assert any(m[1:] != p[1:] for u in (1, 2, 3) for m, p in zip(mixed.jobs[u], plain.jobs[u]))
    for u in (1, 2, 3):
        n = min(len(mixed.jobs[u]), len(plain.jobs[u]))
        assert n > 0 and [m[0] for m in mixed.jobs[u][:n]] == [p[0] for p in plain.jobs[u][:n]]
    # A program's runtime function is drawn once: the same size gives the same runtime.
    for u in (1, 2, 3):
        seen: dict[tuple[int, int], int] = {}
        for exe, size, runtime in mixed.jobs[u]:
            assert seen.setdefault((exe, size), runtime) == runtime


def test_adaptive_runs_are_reproducible(tmp_path):
    for name in ("a", "b"):
        run_site(config(adaptive=1.0), out=tmp_path / name)
    assert (tmp_path / "a" / "summary.json").read_text() == (tmp_path / "b" / "summary.json").read_text()


def test_gas_users_need_an_availability_list(capsys):
    with pytest.raises(InputError, match="availability list"):
        run_site(config(scheduler="easy", adaptive=0.5))
    assert main(["-u", "4", "-s", "fcfs", "--adaptive", "0.5", "--duration", "1"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    run_site(config(scheduler="easy", adaptive=0.5, moldable_policy="static"))
