"""A living population fitted to a log: users arrive, hold sessions, go home, leave.

Loaded from a ``population.json`` written by ``sitesim fit`` (see
:mod:`sitesim.analysis.profiles` and docs/validation.md). Each simulated user follows
the profile of one real user of the log (resampled: user k of N follows profile
``order[k mod P]`` of the P profiles, ``order`` a seeded permutation, so N = P uses every
real user once and ``-u`` scales the population). The user

1. arrives at the profile's arrival time and stays for its active span; in a run longer
   than the log the log's history repeats (the user comes back one log-length later);
2. holds sessions: batches as in the paper's model (own widths, gaps, think times), but
   after each batch continues the session with a probability that falls with the
   response time of the job waited for (the site's continuation curve with the user's
   own offset): users who wait long go home -- a second feedback loop beside think time;
3. between sessions stays away for an absence (end of one session to the start of the
   next) drawn in operational time of the weekly cycle, so sessions start at the hours
   and on the days the log's did, and a session that ends late (a long wait) delays
   the next one; gaps inside a batch are laid down the same way;
4. submits its own distinct jobs (size clipped to the machine, runtime, repetitions).

Profiles are shared by all users that follow them; a user holds only its position and
three random streams: ``when`` (widths, gaps, continuation, think times, absences;
the same draws per batch whatever happens, so schedulers face the same users),
``what`` (jobs) and the estimate model's.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from attrs import define

from sitesim.analysis.continuation import ContinuationCurve, adjusted
from sitesim.engine.process import UserGenerator, UserProcess, Wait
from sitesim.engine.site import Site
from sitesim.errors import InputError
from sitesim.metrics.productivity import ProductivityRecorder, SessionLog
from sitesim.users.user import submit_batch, waited_for
from sitesim.workload.calendar import Clock, Warp
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job

FORMAT = "sitesim-population"
#: What a quantity falls back to when no user of the log observed it at all (a tiny
#: log: every batch of width 1, no batch continued, every user one session). The
#: pooled observations are then empty, and a draw from nothing has no meaning:
#: a gap or a think time of 0 s (the next job at once), and no absence, so a user
#: holds no further session in its visit (as every user of such a log did).
UNOBSERVED: dict[str, tuple[Any, ...]] = {"gaps_operational": (0.0,), "thinks": (0.0,), "absences": ()}


@define(slots=True, frozen=True)
class Profile:
    """One real user's observations (or the pooled ones where the user had too few)."""

    arrival: float
    span: float
    widths: tuple[int, ...]
    gaps: tuple[float, ...]
    thinks: tuple[float, ...]
    absences: tuple[float, ...]
    runs: tuple[tuple[int, int, int], ...]
    continuation: ContinuationCurve


@define(slots=True)
class FittedPopulation:
    """The shared part of a fitted population: profiles, cycle, clock, log length."""

    name: str
    clock: Clock
    warp: Warp
    duration: int
    machine_size: int
    profiles: list[Profile]

    @classmethod
    def load(cls, path: str | Path, largest: int) -> FittedPopulation:
        """Read ``population.json``; job sizes are clipped to ``largest`` nodes.

        Runtimes are the log's own: the paper site's ``runtime_scale`` calibration and
        ``size_mapping`` shape the empirical tables only (docs/population.md)."""
        where = str(path)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"cannot read population: {exc.strerror or exc}", path=where) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", path=where, line=exc.lineno) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"not a {FORMAT} table (missing or wrong 'format')", path=where)
        try:
            return cls.from_dict(data, largest)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise InputError(f"malformed population table: {exc!r}", path=where) from None

    @classmethod
    def from_dict(cls, data: dict[str, Any], largest: int) -> FittedPopulation:
        clock = Clock.from_dict(data["clock"])
        curve = ContinuationCurve.from_dict(data["continuation"])
        minimum = int(data["min_observations"])
        users = data["users"]
        if not users:
            raise ValueError("no users")
        pooled: dict[str, tuple[Any, ...]] = {}
        for key in ("widths", "gaps_operational", "thinks", "absences", "runs"):
            pooled[key] = tuple(v for u in users for v in u[key])
        def job(run: Sequence[Any]) -> tuple[int, int, int]:
            size, runtime, repeats = run
            return min(int(size), largest), max(1, round(float(runtime))), max(1, int(repeats))

        pooled["runs"] = tuple(job(r) for r in pooled["runs"])
        if not pooled["widths"] or not pooled["runs"]:
            raise ValueError("no batches or jobs")
        for key, default in UNOBSERVED.items():
            if not pooled[key]:
                pooled[key] = default

        def own(user: dict[str, Any], key: str, convert: Any) -> tuple[Any, ...]:
            values = user[key]
            if len(values) < minimum or (key == "runs" and int(user["jobs"]) < minimum):
                return pooled[key]
            return tuple(convert(v) for v in values)

        profiles = [
            Profile(
                arrival=float(u["arrival"]),
                span=float(u["span"]),
                widths=own(u, "widths", int),
                gaps=own(u, "gaps_operational", float),
                thinks=own(u, "thinks", float),
                absences=own(u, "absences", float),
                runs=own(u, "runs", job),
                continuation=adjusted(curve, float(u["continue_offset"])),
            )
            for u in users
        ]
        return cls(
            name=str(data["name"]),
            clock=clock,
            warp=Warp(clock, data["session_start_weights"]),
            duration=int(data["duration"]),
            machine_size=int(data["machine_size"]),
            profiles=profiles,
        )

    def users(self) -> int:
        return len(self.profiles)


def _pick(values: Sequence[Any], u: float) -> Any:
    return values[int(u * len(values))]


class PopulationUser:
    """One simulated user following a shared :class:`Profile`."""

    __slots__ = (
        "uid", "site", "population", "profile", "when", "what", "estimates", "est_rng", "max_jobs",
        "_estimate", "_program", "_left", "_current", "sessions",
    )

    def __init__(
        self,
        uid: int,
        site: Site,
        population: FittedPopulation,
        profile: Profile,
        streams: tuple[np.random.Generator, ...],
        estimates: EstimateModel,
        *,
        max_jobs: int | None = None,
        sessions: SessionLog | None = None,
    ) -> None:
        self.uid = uid
        self.site = site
        self.population = population
        self.profile = profile
        self.when, self.what, self.est_rng = streams
        self.estimates = estimates
        self._estimate = estimates.bound(self.est_rng)  # the user's own estimate stream
        self.max_jobs = max_jobs
        self._program = 0
        self._left = 0
        self._current: tuple[int, int, int] = (1, 1, 1)
        #: Where the user reports its sessions (docs/metrics.md, "User productivity").
        self.sessions = sessions

    def run(self) -> UserGenerator:
        """Arrive, hold sessions until departure; repeat one log-length later."""
        env = self.site.env
        p = self.profile
        period = self.population.duration
        start = p.arrival
        while True:
            if start > env.now:
                yield round(start - env.now)
            departure = start + p.span
            while True:
                if not (yield from self._session()):
                    return
                if not p.absences:  # no user of the log came back (UNOBSERVED)
                    break
                now = float(env.now)
                # The absence is laid down in operational time of the weekly cycle.
                nxt = self.population.warp.after(now, _pick(p.absences, self.when.random()))
                if nxt > departure:
                    break
                yield max(1, round(nxt - now))
            if period <= 0:
                return
            start += period

    def _session(self) -> Generator[Wait, Any, bool]:
        """One session; False when the job limit stopped the user."""
        env = self.site.env
        site = self.site
        p = self.profile
        when = self.when
        warp = self.population.warp
        waited: Job | None = None
        while True:
            width = max(1, _pick(p.widths, when.random()))

            def gap() -> int:
                now = float(env.now)
                return max(0, round(warp.after(now, _pick(p.gaps, when.random())) - now))

            batch = yield from submit_batch(
                site, width, gap, self._make_job, waited, self.max_jobs, self.sessions
            )
            if not batch:
                return False
            waited = waited_for(batch)
            go_on = when.random() < p.continuation(waited.end - waited.submit)
            think = max(0, round(_pick(p.thinks, when.random())))
            if len(batch) < width:
                return False
            if not go_on:
                if self.sessions is not None:
                    self.sessions.ended(waited.end)
                return True
            yield think

    def _make_job(self, now: int, waited: Job | None) -> Job:
        if self._left <= 0:
            self._program += 1
            self._current = _pick(self.profile.runs, self.what.random())
            self._left = self._current[2]
        self._left -= 1
        size, runtime, _ = self._current
        return Job(  # positional, as in sitesim.users.user.User._make_job
            -1,
            now,
            size,
            runtime,
            self._estimate(runtime, -1),
            self.uid,
            waited.id if waited is not None else -1,
            now - waited.end if waited is not None else -1,
            self._program,
        )


def populate(
    site: Site,
    population: FittedPopulation,
    users: int,
    seed: int,
    estimates: EstimateModel,
    *,
    max_jobs: int | None = None,
    recorder: ProductivityRecorder | None = None,
) -> list[PopulationUser]:
    """Start ``users`` users resampled from the population's profiles (reporting their
    sessions to ``recorder`` if given)."""
    root = np.random.SeedSequence(seed)
    order_seq, users_seq = root.spawn(2)
    order = np.random.default_rng(order_seq).permutation(len(population.profiles))
    started = []
    for k, child in enumerate(users_seq.spawn(users)):
        streams = tuple(np.random.default_rng(s) for s in child.spawn(3))
        profile = population.profiles[int(order[k % len(order)])]
        sessions = recorder.log(k + 1) if recorder is not None else None
        user = PopulationUser(
            k + 1, site, population, profile, streams, estimates, max_jobs=max_jobs, sessions=sessions
        )
        UserProcess(site, user.run())
        started.append(user)
    return started
