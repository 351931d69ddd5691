"""Timed-run (trial-run) scheduling, Thebe, Bunde & Leung (JSSPP 2009), section 2.

Every job gets a fixed-length *trial run* as soon as possible after it arrives, so that
jobs that fail early (or are simply short) are done quickly; a job that outlives its
trial is later *committed* by a base scheduler (FCFS or EASY, sitesim/schedulers/
commit.py) and, if it was killed meanwhile, restarted from scratch -- at most once,
since a committed run is never killed. The paper's rules, all implemented here:

- each pass first walks the jobs awaiting a trial in arrival order and starts every
  one that fits (not necessarily in order); only then may the base scheduler commit;
- *jobs wait until finishing their trial runs before committing*: to the base
  scheduler a job in its trial run does not fit;
- *jobs continue trial runs until replaced* (lazy termination): a job whose trial
  ended keeps running, and decisions are made as if it had been killed; it is killed
  only when its nodes are needed, the one whose trial ended longest ago first, and if
  the base scheduler picks it, it just goes on as its committed run;
- *long jobs wait for their turn in the base scheduler*: commitment is in base order;
- EASY's reservation is not enforced against trial runs.

Nodes are released for a kill during the pass (the site's ``Control.kill``), and the
end of each trial comes as a timer (``Control.timer``): see docs/trial-runs.md.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from typing import Any

from sitesim.errors import InputError
from sitesim.schedulers.base import Control, Scheduler, register
from sitesim.schedulers.backfill import Running
from sitesim.schedulers.commit import Phase, bases
from sitesim.workload.job import Job

#: Default trial length: Mu'alem & Feitelson's 90 s, the paper's main setting.
DEFAULT_TRIAL = 90

Entry = tuple[int, int, int]
UNTRIED, TRIAL, EXPIRED, KILLED, COMMITTED = Phase


@register
class TimedScheduler(Scheduler):
    """Trial runs for every job, then commitment by a base policy (``timed:BASE[:SECONDS]``)."""

    name = "timed"
    summary = (
        "timed-run scheduling (Thebe et al. 2009): a trial run for every job, then the base"
        f" policy commits; timed:fcfs or timed:easy, optional :SECONDS trial (default {DEFAULT_TRIAL})"
    )

    def __init__(
        self, nodes: int, base: str = "easy", trial: int = DEFAULT_TRIAL, *, record: bool = False
    ) -> None:
        super().__init__(nodes)
        policies = bases()
        if base not in policies:
            known = ", ".join(sorted(policies))
            raise InputError(
                f"timed-run scheduling has no base {base!r} (known: {known})", field="--scheduler"
            )
        if trial < 1:
            raise InputError(
                f"trial length must be a positive number of seconds, got {trial}", field="--scheduler"
            )
        self.base = base
        self.trial_length = trial
        self.policy = policies[base](self)
        self.control: Control | None = None
        #: Jobs awaiting their trial run, arrival order (``queue`` is the base's queue:
        #: every job not committed or done, arrival order).
        self.untried: list[Job] = []
        #: Phase of each job in flight, by arrival sequence number.
        self.phase: dict[int, Phase] = {}
        #: Arrival numbers of the jobs in their trial run (phase TRIAL).
        self.trials: set[int] = set()
        #: Jobs running past their trial (phase EXPIRED), by arrival number, in the order
        #: their trials ended (kill order).
        self.expired: dict[int, Job] = {}
        self._expired_nodes = 0
        #: (expected end, seq, size) of jobs in a trial or committed, sorted (for EASY).
        self.running: Running = []
        self._entry: dict[int, Entry] = {}
        self._starting: list[Job] = []
        self._now = 0
        self.counts = dict.fromkeys(
            ("trials", "ended_in_trial", "ended_past_trial", "continued", "killed", "restarted"), 0
        )
        #: With ``record``: (time, "trial"|"expire"|"commit"|"kill", job id), for tests.
        self.log: list[tuple[int, str, int]] | None = [] if record else None

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        """``fcfs``, ``easy``, ``easy:300`` (the trial length in seconds)."""
        if not arg:
            raise InputError("timed-run scheduling needs a base: timed:fcfs or timed:easy[:SECONDS]",
                             field="--scheduler")
        base, sep, length = arg.partition(":")
        trial = DEFAULT_TRIAL
        if sep:
            try:
                trial = int(length)
            except ValueError:
                raise InputError(
                    f"trial length must be whole seconds, got {length!r}", field="--scheduler"
                ) from None
        return cls(nodes, base, trial)

    @property
    def spec(self) -> str:
        return f"{self.name}:{self.base}:{self.trial_length}"

    def bind(self, control: Control) -> None:
        self.control = control

    def _note(self, now: int, what: str, job: Job) -> None:
        if self.log is not None:
            self.log.append((now, what, job.id))

    # -- running list (expected ends) ---------------------------------------------------
    def _hold(self, job: Job, end: int) -> None:
        entry = (end, job.seq, job.size)
        self._entry[job.seq] = entry
        insort(self.running, entry)

    def _unhold(self, job: Job) -> None:
        entry = self._entry.pop(job.seq)
        running = self.running
        del running[bisect_left(running, entry)]

    # -- events from the site -------------------------------------------------------------
    def enqueue(self, job: Job, now: int) -> None:
        self.queue.append(job)
        self.untried.append(job)
        self.phase[job.seq] = UNTRIED

    def timer_expired(self, job: Job, now: int) -> None:
        """The trial length elapsed: the job goes on, but is now killable."""
        self.phase[job.seq] = EXPIRED
        self.trials.remove(job.seq)
        self._unhold(job)
        self.expired[job.seq] = job
        self._expired_nodes += job.size
        self._note(now, "expire", job)

    def job_ended(self, job: Job, now: int) -> None:
        state = self.phase.pop(job.seq)
        if state == COMMITTED:
            self._unhold(job)
            return
        # Done before commitment: it completed or failed in (or past) its trial.
        self.queue.remove(job)
        if state == TRIAL:
            self.trials.remove(job.seq)
            self._unhold(job)
            self.counts["ended_in_trial"] += 1
        else:
            del self.expired[job.seq]
            self._expired_nodes -= job.size
            self.counts["ended_past_trial"] += 1

    # -- the pass ---------------------------------------------------------------------------
    def schedule(self, now: int, free: int) -> list[Job]:
        pool = free + self._expired_nodes
        starting = self._starting = []
        self._now = now
        if self.untried and pool:
            pool = self._trials(now, pool)
        if self.queue and pool:
            self.policy.select(self.queue, now, pool)
        if starting:  # most passes start nothing: no sum to take
            need = sum(job.size for job in starting)
            if need > free:
                self._kill_for(need, free, now)
        return starting

    def _trials(self, now: int, pool: int) -> int:
        """Start trial runs in arrival order, skipping jobs that do not fit."""
        waiting: list[Job] = []
        trial = self.trial_length
        control = self.control
        if control is None:
            raise RuntimeError("a timed-run scheduler must be bound to a site (Site binds it)")
        phase, trials, starting = self.phase, self.trials, self._starting
        started = 0
        for job in self.untried:
            if job.size > pool:
                waiting.append(job)
                continue
            pool -= job.size
            phase[job.seq] = TRIAL
            trials.add(job.seq)
            self._hold(job, now + min(trial, job.estimate))
            starting.append(job)
            control.timer(job, trial)
            started += 1
            if self.log is not None:
                self._note(now, "trial", job)
        self.counts["trials"] += started
        self.untried = waiting
        return pool

    # -- what the base policy sees (commit.TimedView: also ``trials`` and ``expired``) --------
    def commit(self, job: Job, end: int) -> None:
        """The base scheduler starts ``job`` now, expected to end at ``end`` (the policy
        removes it from the queue it was handed)."""
        state = self.phase[job.seq]
        self.phase[job.seq] = COMMITTED
        self._note(self._now, "commit", job)
        if state == EXPIRED:  # still running: let it go on as its committed run
            del self.expired[job.seq]
            self._expired_nodes -= job.size
            self._hold(job, end)
            self.counts["continued"] += 1
            return
        if state == UNTRIED:  # not reachable with the shipped bases; kept safe
            self.untried.remove(job)
        elif state == KILLED:
            self.counts["restarted"] += 1
        self._hold(job, end)
        self._starting.append(job)

    def _kill_for(self, need: int, free: int, now: int) -> None:
        """Kill expired runs, longest-expired first, until ``need`` nodes are idle."""
        control = self.control
        if control is None:
            raise RuntimeError("a timed-run scheduler must be bound to a site (Site binds it)")
        expired = self.expired
        while need > free:
            seq, job = next(iter(expired.items()))
            del expired[seq]
            self._expired_nodes -= job.size
            self.phase[seq] = KILLED
            control.kill(job)
            free += job.size
            self.counts["killed"] += 1
            self._note(now, "kill", job)

    @property
    def short_job_threshold(self) -> int:
        """The trial length: a job that fits in its trial run is short (Thebe et al.)."""
        return self.trial_length

    def report(self, window: int) -> dict[str, Any]:
        """Counts of trial runs and what became of them, for the run summary."""
        return {"trial_runs": {"scheduler": self.spec, "trial_length": self.trial_length, **self.counts}}
