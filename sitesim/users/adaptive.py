"""Adaptive users: users whose jobs are moldable and sized at submission (docs/moldable.md).

What Cirne & Berman (1999, section 6.1) could not measure by replacing jobs in logs:
what happens when many users tailor their requests, and their next batch waits for the
results. An adaptive user draws its work from the workpool like everyone else; a
drawn job (size x runtime) is a program of that work on that size, with a Downey
speedup model drawn once per program (per executable number, so the repetitions of a
job are the same program), and every submission is sized by the request policy at that
instant: Gas on the site's availability list, or static's random size. The user then
waits for its batch as before, so a better turn-around brings its next batch sooner.

The user reads the availability list through an
:class:`~sitesim.moldable.view.AvailabilityView` -- a read-only window the site gives
-- never the scheduler object: a user knows its models, not the scheduler.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sitesim.engine.site import Site
from sitesim.moldable.gas import REQUEST_POLICIES, RequestPolicy
from sitesim.moldable.model import DowneySource
from sitesim.moldable.speedup import RuntimeFunction
from sitesim.moldable.view import AvailabilityView
from sitesim.users.user import User
from sitesim.workload.job import Job


class AdaptiveUser(User):
    """A user whose every job is a moldable program sized by a request policy."""

    def __init__(
        self,
        *args: Any,
        policy: RequestPolicy,
        view: AvailabilityView,
        nodes: int,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy
        self.view = view
        self.nodes = nodes
        self.source = DowneySource()
        # Two more streams from the estimate stream's seed: spawning consumes no draws,
        # so the user's workpool, submittal and estimate draws stay those of a rigid user.
        self._model_rng, self._size_rng = self.estimate_rng.spawn(2)
        self._program: tuple[int, RuntimeFunction] | None = None

    def _make_job(self, now: int, waited: Job | None) -> Job:
        job = super()._make_job(now, waited)
        program = self._program
        if program is None or program[0] != job.executable:
            drawn = self.source.program(job.size, job.runtime, self.nodes, self._model_rng)
            program = self._program = (job.executable, drawn)
        function = self.view.routable(program[1])
        if function is None:  # no size of it fits any partition: submitted as drawn
            return job
        candidates = self.view.candidates(function) if self.policy.needs_availability else None
        request = self.policy.choose(function, candidates, self._size_rng)
        job.size = request.size
        job.runtime = job.estimate = request.runtime
        job.failed = False
        return job


def adaptive_users(users: int, fraction: float) -> int:
    """How many of ``users`` are adaptive: the first round(fraction x users) by number."""
    return round(fraction * users)


def make_adaptive_factory(site: Site, policy_name: str, nodes: int) -> Any:
    """A constructor with :class:`User`'s signature that builds adaptive users."""
    policy = REQUEST_POLICIES.get(policy_name)()
    view = AvailabilityView.of(
        site, f"--adaptive with moldable policy {policy_name}", lists=policy.needs_availability
    )

    def build(*args: Any, **kwargs: Any) -> AdaptiveUser:
        return AdaptiveUser(*args, policy=policy, view=view, nodes=nodes, **kwargs)

    return build


def adaptive_summary(users: Mapping[int, Mapping[str, Any]], adaptive: int) -> dict[str, Any]:
    """Adaptive users' turn-around and the rigid users' wait (completed jobs, job-weighted)."""

    def weighted(uids: list[int], key: str) -> float | None:
        n = sum(users[u]["completed"] for u in uids)
        return sum(users[u][key] * users[u]["completed"] for u in uids) / n if n else None

    mine = [u for u in users if u <= adaptive]
    rigid = [u for u in users if u > adaptive]
    return {
        "users": adaptive,
        "completed": sum(users[u]["completed"] for u in mine),
        "mean_turnaround": weighted(mine, "mean_response"),
        "rigid_users": len(rigid),
        "rigid_completed": sum(users[u]["completed"] for u in rigid),
        "rigid_mean_wait": weighted(rigid, "mean_wait"),
        "rigid_mean_turnaround": weighted(rigid, "mean_response"),
    }
