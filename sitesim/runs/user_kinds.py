"""Kinds of simulated users of a site-level run, registered by name (:data:`USER_KINDS`).

A site-level run's job source is its users (:class:`SiteUsers`), numbered 1..N and
split into kinds, each a registered class that builds its users:

- ``static``: the paper's static sessions, one submittal and one workpool model each
  (docs/site-level.md);
- ``adaptive``: static users whose jobs are moldable, sized at submission by the
  moldable policy (docs/moldable.md);
- ``fitted``: users resampled from a fitted population, who arrive, hold sessions and
  leave (docs/population.md).

A configuration says which through its fields (:func:`configured_kinds`): a
population makes every user ``fitted``; else the first round(adaptive x users) are
``adaptive`` and the rest ``static``. :func:`sitesim.runs.site.run_site` also takes
the split itself, by name or class, so a new kind of user is a :class:`UserKind`
registered with ``@USER_KINDS.register`` and run from Python, not a branch in the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import numpy as np
from attrs import define, field

from sitesim.distributions.model import EmpiricalModel
from sitesim.engine.process import UserGenerator, UserProcess
from sitesim.engine.site import Site
from sitesim.errors import InputError
from sitesim.metrics.productivity import ProductivityRecorder
from sitesim.metrics.stats import RunMetrics
from sitesim.registry import Registry
from sitesim.runs.population_check import check_population_file
from sitesim.users import SubmittalModel, User, WorkpoolModel, user_streams
from sitesim.users.adaptive import adaptive_summary, adaptive_users, make_adaptive_factory
from sitesim.users.population import FittedPopulation, population_users
from sitesim.workload.calendar import Clock
from sitesim.workload.estimates import EstimateModel


class SiteUser(Protocol):
    """A simulated user: its session, as a generator of waits (run by a UserProcess)."""

    def run(self) -> UserGenerator: ...


@define(slots=True)
class Crowd:
    """What every kind of user of one site-level run draws on."""

    site: Site
    #: The empirical tables as this site draws from them (sizes mapped, runtimes scaled).
    tables: EmpiricalModel
    estimates: EstimateModel
    #: The most nodes one job can get (the machine, or the largest partition).
    largest: int
    #: All users of the run: each user's random streams are spawned by its number among them.
    users: int
    seed: int
    max_jobs: int | None
    submittal: type[SubmittalModel]
    workpool: type[WorkpoolModel]
    moldable_policy: str
    #: A fitted population's file (``population.json``), or None.
    population: str | None
    _streams: list[tuple[np.random.Generator, ...]] = field(init=False, factory=list, repr=False)

    def streams(self, uid: int) -> tuple[np.random.Generator, ...]:
        """User ``uid``'s (submittal, workpool, estimates) generators: the same whatever
        kind it is, so changing one user's kind leaves every other user's draws as they were."""
        if not self._streams:
            self._streams = user_streams(self.seed, self.users)
        return self._streams[uid - 1]


class UserKind:
    """The users of one kind in a run: built once the run's calendar is known.

    A kind is constructed with the run's :class:`Crowd` and its users' numbers, and
    checks or loads what they need there (before anything is written); its
    :attr:`clock` is the calendar its users live by, when they bring one.
    :meth:`enlist` builds the users; :meth:`report` adds the kind's own summary entries.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""

    def __init__(self, crowd: Crowd, uids: range) -> None:
        self.crowd = crowd
        self.uids = uids
        #: The calendar of this kind's users (a fitted log's); None: the default one.
        self.clock: Clock | None = None

    def enlist(self, recorder: ProductivityRecorder) -> list[SiteUser]:
        """This kind's users, numbered :attr:`uids`, each reporting its sessions to
        ``recorder.log(uid)``; not yet started."""
        raise NotImplementedError

    def report(self, users: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
        """Extra summary entries from the users' summaries (``users``, by number)."""
        return {}


#: Kinds of simulated users, by name.
USER_KINDS: Registry[type[UserKind]] = Registry("user kind", "users", UserKind)


@USER_KINDS.register
class StaticUsers(UserKind):
    name = "static"
    summary = "the paper's static sessions: a submittal and a workpool model each"

    def __init__(self, crowd: Crowd, uids: range) -> None:
        super().__init__(crowd, uids)
        #: Builds one user from :class:`~sitesim.users.user.User`'s arguments.
        self.make: Callable[..., SiteUser] = User

    def enlist(self, recorder: ProductivityRecorder) -> list[SiteUser]:
        c = self.crowd
        built: list[SiteUser] = []
        for uid in self.uids:
            sub_rng, pool_rng, est_rng = c.streams(uid)
            built.append(self.make(
                uid,
                c.site,
                c.submittal(c.tables, sub_rng),
                c.workpool(c.tables, pool_rng, c.largest),
                c.estimates,
                est_rng,
                max_jobs=c.max_jobs,
                sessions=recorder.log(uid),
            ))
        return built


@USER_KINDS.register
class AdaptiveUsers(StaticUsers):
    name = "adaptive"
    summary = "static users whose moldable jobs are sized at submission by the moldable policy"

    def __init__(self, crowd: Crowd, uids: range) -> None:
        super().__init__(crowd, uids)
        if uids.start != 1:  # their summary tells users 1..k from the rest
            raise InputError("adaptive users are the first users of a run", field="users")
        # The policy and the scheduler's availability list, checked before the run.
        self.make = make_adaptive_factory(crowd.site, crowd.moldable_policy, crowd.largest)

    def report(self, users: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
        """Their turn-around beside the other users' wait."""
        return {"adaptive": adaptive_summary(users, len(self.uids))}


@USER_KINDS.register
class FittedUsers(UserKind):
    name = "fitted"
    summary = "users resampled from a fitted population, who arrive, hold sessions and leave"

    def __init__(self, crowd: Crowd, uids: range) -> None:
        super().__init__(crowd, uids)
        if crowd.population is None:
            raise InputError("fitted users need a fitted population (a site file's population)", field="population")
        # encoding and values, before the loader trusts them; the loader takes what was read
        document = check_population_file(crowd.population)
        self.population = FittedPopulation.load(crowd.population, crowd.largest, document)
        self.clock = self.population.clock

    def enlist(self, recorder: ProductivityRecorder) -> list[SiteUser]:
        c = self.crowd
        return list(population_users(
            c.site, self.population, len(self.uids), c.seed, c.estimates,
            max_jobs=c.max_jobs, recorder=recorder, first=self.uids.start,
        ))


def configured_kinds(users: int, *, population: str | None, adaptive: float) -> dict[str, int]:
    """How many users of each kind a site-level configuration asks for, in number order:
    all ``fitted`` with a population, else the ``adaptive`` share first, then ``static``."""
    if population is not None:
        return {FittedUsers.name: users}
    first = adaptive_users(users, adaptive)
    return {AdaptiveUsers.name: first, StaticUsers.name: users - first}


def kinds_of(crowd: Crowd, split: Mapping[Any, int]) -> list[UserKind]:
    """The kinds of ``split`` (name or class -> how many users), numbered in its order
    from 1; kinds with no user are left out. The counts must add up to ``crowd.users``."""
    counted: list[tuple[type[UserKind], int]] = []
    for kind, count in split.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(f"a count of users must be a non-negative integer, got {count!r}", field="users")
        counted.append((USER_KINDS.resolve(kind), count))
    total = sum(count for _, count in counted)
    if total != crowd.users:  # before any kind loads or checks what its users need
        raise InputError(f"the kinds of users add up to {total}, not the run's {crowd.users} users", field="users")
    kinds: list[UserKind] = []
    first = 1
    for cls, count in counted:
        if count:
            kinds.append(cls(crowd, range(first, first + count)))
        first += count
    return kinds


class SiteUsers:
    """A site-level run's job source: its users of every kind, started together."""

    def __init__(
        self, site: Site, kinds: Sequence[UserKind], recorder: ProductivityRecorder, metrics: RunMetrics
    ) -> None:
        self.site = site
        self.kinds = list(kinds)
        self.metrics = metrics
        self.users: list[SiteUser] = [user for kind in kinds for user in kind.enlist(recorder)]

    @staticmethod
    def clock(kinds: Iterable[UserKind], default: Clock) -> Clock:
        """The run's calendar: the first kind's that brings one, else ``default``."""
        return next((kind.clock for kind in kinds if kind.clock is not None), default)

    def start(self) -> None:
        """Every user's session starts at time 0, in number order."""
        for user in self.users:
            UserProcess(self.site, user.run())

    def report(self) -> dict[str, Any]:
        """The kinds' own entries (``adaptive``), from the users' summaries."""
        users = self.metrics.user_summaries()
        extras: dict[str, Any] = {}
        for kind in self.kinds:
            extras.update(kind.report(users))
        return extras
