"""A fitted service: a real policy on a bounded machine, behind fitted eligibility delays.

Why: on the shared logs the real machines sat partly idle while jobs that fit were
waiting (docs/service.md). Per job, the time it spent waiting while its size fit in
the machine's idle nodes (its *fit-wait*) averages close to the gap between the log's
mean wait and EASY's on the nominal machine, while neither per-user limits on running
jobs nor whole-machine outages account for it. So the service is modelled as: each
job becomes eligible a delay after its submission (a hold, a deferred start, a drain
it waited out: what made the real service slower), drawn from the log's fit-waits of
jobs of its size class; then a real policy (``easy`` by default) starts it when it
fits on the real nodes. Unlike ``hold`` this is a statistical model, not a copy of
the log's timeline: the delays are drawn through the run's own seeded stream
(:meth:`~sitesim.schedulers.base.Scheduler.use_seed`), so it serves runs longer than
the log, other users and other logs alike, and the machine stays bounded.

Named ``service:FILE`` (a site file's ``[service]`` table, written by ``sitesim fit``)
or ``service:FILE@POLICY`` (the same machine and delays under another policy: what
``sitesim --site DIR/site.toml -s creasy`` runs; ``-s hold`` or ``hold:BASE`` there
gives each job its recorded wait instead, the log's own service). The table holds:

- ``nodes``: the machine's size (the policy declares it, as partitions do);
- ``policy``: the base policy's spec (default ``easy``);
- ``size_classes``: the largest size of each class, ascending (the last class takes
  every larger job);
- ``delays``: per class, the quantiles of the delay in seconds at evenly spaced
  levels from 0 to 1 (non-decreasing); a job's delay is read off them at a uniform
  draw (its *level*), by linear interpolation;
- ``levels`` (optional): ``"per-job"`` (the default, and what tables written before the
  key read as), an independent level for every job; ``"per-user"``, what ``sitesim
  fit --levels gaussian`` or ``mixture`` writes: each user's levels follow a
  Gaussian copula, a first-order
  autoregression in the order of its submissions, whose correlation with the user's
  previous level depends on the time since that submission (``level_gaps``: the
  upper edges of the gap classes in seconds, ascending; ``level_rho``: the correlation
  of each class, one more than the edges, the last for longer gaps). Without
  ``level_states`` every job's level is still uniform on [0, 1), so the delays'
  distribution is the table's; only which jobs draw alike changes. Why: in the logs, a user's consecutive jobs wait alike, the
  more so the closer they were submitted (rank correlation 0.82-0.95 for gaps under a
  minute, 0.39-0.49 beyond an hour: docs/service.md). Drawn apart, the jobs of a batch
  waited unlike the log's: some ended long before the next submission, and the
  analysis cut the batch, and the session, there.
- ``level_states`` (optional, ``"per-user"`` only): three shifts of a job's normal
  score by what its user was doing when it was submitted (``sitesim fit`` calibrates
  them against a replay of the log, as the delays: measured on the log's raw waits
  they would count again what the correlation carries, docs/service.md, "The user's
  state"): some earlier job of the user
  still waiting or running (*in a batch*), all ended at most
  :data:`~sitesim.workload.session_rule.SESSION_THRESHOLD` before (*continuing* a
  session), or neither (*opening* one). The score is the shift plus the user's
  autoregression scaled by √(1 − shift²): a mixture of normals, whose levels are
  uniform only over a mix of states whose shifts average zero. Why: in the logs, jobs
  that continue a session waited far less than the others of their size, jobs in a
  batch somewhat more (docs/service.md, "The user's state"), and a scheduler sees that
  state (which of a user's jobs ended, and when). Tables without the key draw as before.
- ``levels = "recorded"`` and ``recorded_waits`` (``sitesim fit --levels recorded``):
  each job's level is where the wait
  it had in the log (``Job.recorded_wait``: a fitted user's resampled batch carries its
  jobs' waits, as ``hold`` reads them; a replayed record its own) falls among the log's
  waits of its size class, ``recorded_waits`` holding their quantiles at evenly spaced
  levels, per class, as ``delays`` does; a wait of w s stands for [w - 1/2, w + 1/2),
  and a draw places the job within the span of levels that covers (the many waits of
  0 s share their run of equal quantiles' span). A job without a recorded wait draws
  its level apart. Levels stay uniform to within the table's resolution, so the
  delays' distribution is the table's; what is kept from the log is *which* jobs
  waited long for their size, and with it everything a parametric copula
  approximates: that a user's consecutive jobs, and a batch's, waited alike, the
  persistence of long waits, their tie to the jobs' runtimes and to their users'
  states. How long they wait is the delays' (calibrated)
  and the machine's. What ``sitesim fit`` writes by default. Why: with the per-user
  copula the closed loop's sessions were too long and held too few jobs
  (docs/service.md, "Levels from the recorded waits"). A site-level run keeps each
  job's recorded wait beside its trace (:mod:`sitesim.workload.recorded_waits`), where
  field 3 holds its wait in the run, so a replay of the trace ranks the same waits.
- ``level_repeat`` (optional, ``"per-user"`` only): per gap class, the chance that a
  job repeats its user's previous score outright; otherwise the autoregression above
  draws it (``level_rho`` is then the correlation of those draws). Both keep the
  score standard normal, so levels stay uniform. Why: a Gaussian copula carries a long
  wait on to the user's next job far less often than the logs did, and spread over
  too many sessions the delays' long tail made them too long (``sitesim fit`` fits
  the mixture to each class's rank correlation and persistence of long waits:
  :mod:`sitesim.analysis.level_copula`). Tables without the key draw as before,
  draw for draw: the uniform that decides a repeat is drawn only in a class whose
  chance is above 0.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heappush
from math import erf, inf, sqrt
from typing import TYPE_CHECKING, Any

from attrs import define

from sitesim.errors import InputError
from sitesim.limits import MAX_TABLE_SECONDS
from sitesim.schedulers.base import SCHEDULERS, Scheduler, make_scheduler, register
from sitesim.schedulers.hold import HoldScheduler
from sitesim.workload.job import Job
from sitesim.workload.session_rule import IN_BATCH, SESSION_THRESHOLD, STATES, state_of

if TYPE_CHECKING:  # numpy only where a service runs: a plain replay imports none
    import numpy as np

#: The ``[service]`` table of a site file.
SERVICE_TABLE = "service"
#: √2, for the normal distribution function of a level's score.
SQRT2 = sqrt(2.0)
#: How a job's level (the uniform its delay is read at) is drawn: ``"per-job"`` (the
#: first: tables without ``levels`` read as it), ``"per-user"`` or ``"recorded"``
#: (module docstring).
LEVELS = ("per-job", "per-user", "recorded")
PER_JOB, PER_USER, RECORDED = LEVELS
#: The ``"per-user"`` keys of the table, as the :class:`DelayModel` fields they fill;
#: the first two are always written (empty with ``"per-job"``), the others when set.
LEVEL_KEYS = ("level_gaps", "level_rho", "level_states", "level_repeat")
REQUIRED_LEVEL_KEYS = LEVEL_KEYS[:2]
#: The ``"recorded"`` key of the table: per size class, the quantiles of the log's waits
#: a job's recorded wait is ranked among (:meth:`DelayModel.level_of`).
RECORDED_KEY = "recorded_waits"
#: The service's stream is spawned from the run's seed and this key, so a service that
#: draws leaves every other stream of the run as it was.
STREAM_KEY = 33


@define(slots=True, frozen=True)
class DelayModel:
    """Per size class, the quantile function of the eligibility delay (seconds)."""

    size_classes: tuple[int, ...]
    #: ``delays[k]``: the class-k quantiles at levels evenly spaced over [0, 1].
    delays: tuple[tuple[float, ...], ...]
    #: How a job's level is drawn (:data:`LEVELS`).
    levels: str = LEVELS[0]
    #: ``"per-user"``: upper edges (s) of the classes of the time since the user's
    #: previous submission, and each class's correlation (one more: the last is beyond).
    level_gaps: tuple[float, ...] = ()
    level_rho: tuple[float, ...] = ()
    #: ``"per-user"``: the shift of a job's score by its user's state (in a batch,
    #: continuing, opening: module docstring); empty, none.
    level_states: tuple[float, ...] = ()
    #: ``"per-user"``: per gap class, the chance a job repeats its user's previous
    #: level (module docstring); empty, never.
    level_repeat: tuple[float, ...] = ()
    #: ``"recorded"``: per size class, the log's waits' quantiles at levels evenly spaced
    #: over [0, 1] (module docstring); empty otherwise.
    recorded_waits: tuple[tuple[float, ...], ...] = ()

    def __attrs_post_init__(self) -> None:
        if self.levels not in LEVELS:
            raise InputError(f"one of {', '.join(LEVELS)} is needed", field="service.levels")
        if self.levels == PER_USER:
            if any(b <= a for a, b in zip(self.level_gaps, self.level_gaps[1:], strict=False)) or any(
                not 0 < g < inf for g in self.level_gaps
            ):
                raise InputError("positive, finite and ascending gaps (s) are needed", field="service.level_gaps")
            if len(self.level_rho) != len(self.level_gaps) + 1 or any(not 0 <= r < 1 for r in self.level_rho):
                raise InputError("one correlation in [0, 1) per gap class (one more than level_gaps) is needed",
                                 field="service.level_rho")
            if self.level_states:
                if len(self.level_states) != len(STATES) or any(not -1 < v < 1 for v in self.level_states):
                    raise InputError(f"{len(STATES)} shifts in (-1, 1) are needed ({', '.join(STATES)})",
                                     field="service.level_states")
            if self.level_repeat:
                if len(self.level_repeat) != len(self.level_rho) or any(not 0 <= p < 1 for p in self.level_repeat):
                    raise InputError("one chance in [0, 1) per gap class (as level_rho) is needed",
                                     field="service.level_repeat")
        else:
            for key in LEVEL_KEYS:
                if getattr(self, key):
                    raise InputError(f'only with levels = "{PER_USER}"', field=f"service.{key}")
        if self.levels != RECORDED and self.recorded_waits:
            raise InputError(f'only with levels = "{RECORDED}"', field=f"service.{RECORDED_KEY}")
        if not self.size_classes or len(self.size_classes) != len(self.delays):
            raise InputError("size_classes and delays need one entry per class", field="service.delays")
        if any(b <= a for a, b in zip(self.size_classes, self.size_classes[1:], strict=False)) or self.size_classes[0] < 1:
            raise InputError("size_classes must be positive and ascending", field="service.size_classes")
        _check_quantiles(self.delays, "delays")
        if self.levels == RECORDED:
            if len(self.recorded_waits) != len(self.size_classes):
                raise InputError("one row of wait quantiles per size class is needed", field=f"service.{RECORDED_KEY}")
            _check_quantiles(self.recorded_waits, RECORDED_KEY)

    def class_of(self, size: int) -> int:
        """The class of a job of ``size`` nodes (the last takes any larger one)."""
        return min(bisect_left(self.size_classes, size), len(self.size_classes) - 1)

    def level_of(self, size: int, wait: float, uniform: float) -> float:
        """The level of a job of ``size`` nodes that waited ``wait`` seconds in the log:
        where its wait falls among its class's (``recorded_waits``, read as the
        piecewise-linear quantile function the delays are). A log's waits are whole
        seconds, so a wait of w s stands for [w - 1/2, w + 1/2), and ``uniform`` places
        the job within the span of levels that interval covers: the many waits of 0 s
        share the span of their run of equal quantiles, and a wait on one quantile is
        not a point mass. Levels are then uniform to within the table's resolution."""
        row = self.recorded_waits[self.class_of(size)]
        low = _rank(row, wait - 0.5)
        return low + uniform * (_rank(row, wait + 0.5) - low)

    def draw(self, size: int, rng: np.random.Generator) -> int:
        """A delay for a job of ``size`` nodes: its class's quantile function at a uniform draw."""
        return self.at_level(size, rng.random())

    def at_level(self, size: int, level: float) -> int:
        """The delay of a job of ``size`` nodes at ``level`` (in [0, 1)) of its class."""
        row = self.delays[self.class_of(size)]
        at = level * (len(row) - 1)
        i = min(int(at), len(row) - 2)
        return round(row[i] + (row[i + 1] - row[i]) * (at - i))

    @property
    def mean(self) -> list[float]:
        """Each class's mean delay (the area under its piecewise-linear quantile function)."""
        return [sum(a + b for a, b in zip(row, row[1:], strict=False)) / (2 * (len(row) - 1)) for row in self.delays]


def _rank(row: tuple[float, ...], x: float) -> float:
    """The level at which the piecewise-linear quantile function ``row`` reaches ``x``
    (0 below it, 1 above; on a run of equal quantiles, the middle of their span)."""
    last = len(row) - 1
    lo, hi = bisect_left(row, x), bisect_right(row, x)
    if lo < hi:
        return (lo + hi - 1) / (2 * last)
    if lo == 0:
        return 0.0
    if lo > last:
        return 1.0
    return (lo - 1 + (x - row[lo - 1]) / (row[lo] - row[lo - 1])) / last


def _check_quantiles(rows: tuple[tuple[float, ...], ...], key: str) -> None:
    """Refuse a class whose quantiles are fewer than two, out of range or decreasing."""
    for k, row in enumerate(rows):
        if len(row) < 2 or any(not 0 <= v <= MAX_TABLE_SECONDS for v in row) or any(
            b < a for a, b in zip(row, row[1:], strict=False)
        ):
            raise InputError(
                f"class {k + 1}: at least two non-decreasing quantiles in 0..{MAX_TABLE_SECONDS} s",
                field=f"service.{key}[{k + 1}]",
            )


@define(slots=True, frozen=True)
class ServiceSpec:
    """A ``[service]`` table: the machine's size, the base policy and the delays."""

    nodes: int
    policy: str
    delays: DelayModel

    @classmethod
    def from_table(cls, table: Any, where: str) -> ServiceSpec:
        if not isinstance(table, dict):
            raise InputError("must be a table ([service])", path=where, field=SERVICE_TABLE)
        known = {"nodes", "policy", "size_classes", "delays", "levels", *LEVEL_KEYS, RECORDED_KEY}
        for key in table:
            if key not in known:
                raise InputError(f"unknown key (known: {', '.join(sorted(known))})", path=where,
                                 field=f"{SERVICE_TABLE}.{key}")
        nodes = table.get("nodes")
        if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
            raise InputError("a positive integer is needed", path=where, field=f"{SERVICE_TABLE}.nodes")
        policy = table.get("policy", "easy")
        if not isinstance(policy, str) or not policy:
            raise InputError("a policy name is needed", path=where, field=f"{SERVICE_TABLE}.policy")
        classes = table.get("size_classes")
        if not isinstance(classes, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in classes):
            raise InputError("an array of integers is needed", path=where, field=f"{SERVICE_TABLE}.size_classes")
        rows = _rows(table.get("delays"), where, "delays")
        recorded = _rows(table.get(RECORDED_KEY, []), where, RECORDED_KEY)
        levels = table.get("levels", LEVELS[0])
        if not isinstance(levels, str):
            raise InputError(f"one of {', '.join(LEVELS)} is needed", path=where, field=f"{SERVICE_TABLE}.levels")
        numbers = {}
        for key in LEVEL_KEYS:
            value = table.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
                raise InputError("an array of numbers is needed", path=where, field=f"{SERVICE_TABLE}.{key}")
            numbers[key] = tuple(float(v) for v in value)
        try:
            model = DelayModel(tuple(classes), rows, levels, **numbers, recorded_waits=recorded)
        except InputError as exc:
            raise InputError(exc.message, path=where, field=exc.field) from None
        return cls(nodes, policy, model)

    def to_table(self) -> dict[str, Any]:
        """The ``[service]`` table that reads back as this spec."""
        return {
            "nodes": self.nodes,
            "policy": self.policy,
            "size_classes": list(self.delays.size_classes),
            "delays": [list(row) for row in self.delays.delays],
            "levels": self.delays.levels,
            # the optional ones only when set: a table written before a key reads and
            # writes as it was
            **{key: list(getattr(self.delays, key)) for key in LEVEL_KEYS
               if key in REQUIRED_LEVEL_KEYS or getattr(self.delays, key)},
            **({RECORDED_KEY: [list(row) for row in self.delays.recorded_waits]} if self.delays.recorded_waits else {}),
        }


def _rows(value: Any, where: str, key: str) -> tuple[tuple[float, ...], ...]:
    """An array of arrays of numbers of the ``[service]`` table, as floats."""
    if not isinstance(value, list) or not all(
        isinstance(r, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in r) for r in value
    ):
        raise InputError("an array of arrays of numbers is needed", path=where, field=f"{SERVICE_TABLE}.{key}")
    return tuple(tuple(float(v) for v in r) for r in value)


def load_service(path: str) -> ServiceSpec:
    """The ``[service]`` table of a TOML file (a fitted site file)."""
    from sitesim.workload.tomlfile import read_toml

    data = read_toml(path)
    if SERVICE_TABLE not in data:
        raise InputError("no [service] table in this file", path=str(path), field=SERVICE_TABLE)
    return ServiceSpec.from_table(data[SERVICE_TABLE], str(path))


def _split(arg: str | None) -> tuple[str, str | None]:
    if not arg:
        raise InputError("scheduler 'service' needs a file: -s service:FILE[@POLICY]", field="--scheduler")
    if "@" in arg:
        path, _, policy = arg.rpartition("@")
        if not policy:
            raise InputError("service:FILE@POLICY needs a policy after '@'", field="--scheduler")
        return path, policy
    return arg, None


class UserStates:
    """What each user is doing, as a scheduler sees it: how many of its jobs have not
    ended, and when the latest ended (``level_states``: the states of
    :data:`sitesim.workload.session_rule.STATES`)."""

    __slots__ = ("pending", "latest", "threshold")

    def __init__(self) -> None:
        self.pending: dict[int, int] = {}
        self.latest: dict[int, int] = {}
        #: A user whose jobs all ended at most this long ago continues its session.
        self.threshold = SESSION_THRESHOLD

    def submitted(self, user: int, now: int) -> int:
        """``user``'s state (an index in :data:`~sitesim.workload.session_rule.STATES`) as it submits a job at ``now``;
        the job then counts as not ended."""
        pending = self.pending.get(user, 0)
        self.pending[user] = pending + 1
        if pending:
            return IN_BATCH
        latest = self.latest.get(user)
        return state_of(None if latest is None else now - latest, self.threshold)

    def ended(self, user: int, now: int) -> None:
        """One of ``user``'s jobs ended at ``now``."""
        self.pending[user] -= 1
        self.latest[user] = now


@register
class ServiceScheduler(HoldScheduler):
    """Each job released to the base policy a fitted delay after submission."""

    name = "service"
    site_table = SERVICE_TABLE
    summary = ("service:FILE, a fitted service (the [service] of a site file): each job eligible a delay drawn"
               " from the log's, then served by its policy on the fitted machine; service:FILE@POLICY swaps the policy")

    def __init__(self, nodes: int, base: Scheduler, delays: DelayModel, *, spec: str) -> None:
        super().__init__(nodes, base)
        self.delays = delays
        self._spec = spec
        #: Until the run hands over its seed, the stream of seed 0 (a ready-made policy).
        self.rng = _stream(0)
        #: Jobs held and the delay they were given, for the report.
        self.held_jobs = 0
        self.held_seconds = 0
        #: Per user, the time of its latest submission and that job's normal score
        #: (``"per-user"`` levels only).
        self._users: dict[int, tuple[int, float]] | None = {} if delays.levels == PER_USER else None
        self._gaps, self._rho = delays.level_gaps, delays.level_rho
        self._rest = tuple(sqrt(1.0 - r * r) for r in self._rho)
        #: ``level_repeat``, or None: no class repeats (and no uniform is drawn for it).
        self._repeat = delays.level_repeat if any(delays.level_repeat) else None
        #: ``level_states``: per state, the shift and the deviation's scale; per user,
        #: its jobs not yet ended and its latest end (None: no states).
        self._shifts = tuple((m, sqrt(1.0 - m * m)) for m in delays.level_states)
        self.states = UserStates() if self._shifts else None
        #: ``"recorded"`` levels: a job's level is where its recorded wait falls.
        self._recorded = delays.levels == RECORDED

    @classmethod
    def _load(cls, arg: str | None) -> tuple[ServiceSpec, str]:
        path, policy = _split(arg)
        spec = load_service(path)
        base = policy or spec.policy
        if base.partition(":")[0] in ("hold", cls.name):
            raise InputError(f"a service's policy cannot be {base!r}", field="--scheduler")
        SCHEDULERS.lookup(base)[0].check_arg(SCHEDULERS.lookup(base)[1])
        return spec, base

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        spec, base = cls._load(arg)
        if nodes != spec.nodes:
            raise InputError(f"machine size {nodes} differs from the service's {spec.nodes}", field="--nodes")
        return cls(nodes, make_scheduler(base, nodes), spec.delays, spec=f"{cls.name}:{arg}")

    @classmethod
    def check_arg(cls, arg: str | None) -> None:
        cls._load(arg)

    @classmethod
    def needs_recorded_waits(cls, arg: str | None) -> bool:
        return False

    @classmethod
    def declared_nodes(cls, arg: str | None) -> int | None:
        return cls._load(arg)[0].nodes

    @classmethod
    def under(cls, arg: str | None, policy: str) -> str:
        """``policy`` on this machine, behind the same delays; but the log's own service
        (``hold``, ``hold:BASE``: each job its recorded wait) replaces the fitted one,
        which only models it."""
        try:
            log_service = issubclass(SCHEDULERS.lookup(policy)[0], HoldScheduler)
        except InputError:  # not a policy (yet): a placeholder, or refused when built
            log_service = False
        if log_service:
            return policy
        return f"{cls.name}:{_split(arg)[0]}@{policy}"

    @classmethod
    def files(cls, arg: str | None) -> list[str]:
        return [_split(arg)[0]]

    @classmethod
    def label(cls, arg: str | None) -> str:
        return cls.name

    @property
    def spec(self) -> str:
        return self._spec

    def use_seed(self, seed: int) -> None:
        self.rng = _stream(seed)
        super().use_seed(seed)

    def enqueue(self, job: Job, now: int) -> None:
        users = self._users
        if self._recorded and job.recorded_wait >= 0:
            delays = self.delays
            delay = delays.at_level(job.size, delays.level_of(job.size, job.recorded_wait, self.rng.random()))
        elif users is None or job.user < 0:
            delay = self.delays.draw(job.size, self.rng)
        else:
            score = self.rng.standard_normal()
            last = users.get(job.user)
            if last is not None:
                # a gap on an edge is in the class above it, as the fit measured it
                k = bisect_right(self._gaps, now - last[0])
                repeat = self._repeat
                if repeat is not None and repeat[k] > 0.0 and self.rng.random() < repeat[k]:
                    score = last[1]
                else:
                    score = self._rho[k] * last[1] + self._rest[k] * score
            users[job.user] = (now, score)
            if self.states is not None:
                shift, scale = self._shifts[self.states.submitted(job.user, now)]
                score = shift + scale * score
            delay = self.delays.at_level(job.size, 0.5 * (1.0 + erf(score / SQRT2)))
        if delay > 0:
            self.held_jobs += 1
            self.held_seconds += delay
            heappush(self.held, (now + delay, job.seq, job))
        else:
            assert self.base is not None
            self.base.enqueue(job, now)

    def job_ended(self, job: Job, now: int) -> None:
        if self.states is not None and job.user >= 0:
            self.states.ended(job.user, now)
        super().job_ended(job, now)

    def note(self) -> str | None:
        assert self.base is not None
        return f"fitted service: eligibility delays by size class, then {self.base.spec}"

    def report(self, window: int) -> dict[str, Any]:
        return {
            "service": {
                "policy": self.base.spec if self.base is not None else None,
                "held_jobs": self.held_jobs,
                "mean_delay": self.held_seconds / self.held_jobs if self.held_jobs else 0.0,
            },
            **super().report(window),
        }


def _stream(seed: int) -> np.random.Generator:
    import numpy as np

    return np.random.default_rng(np.random.SeedSequence([seed, STREAM_KEY]))
