"""A living population fitted to a log: users arrive, hold sessions, go home, leave.

Loaded from a ``population.json`` written by ``sitesim fit`` (see
:mod:`sitesim.analysis.profiles` and docs/validation.md). Each simulated user follows
the profile of one real user of the log (resampled: user k of N follows profile
``order[k mod P]`` of the P profiles, ``order`` a seeded permutation, so N = P uses every
real user once and ``-u`` scales the population). The user

1. arrives at the profile's arrival time and stays for its active span (a fitted
   table's user deals, in the first round of its absences, only those that end before
   its departure: :meth:`Deck.deal_within`); in a run longer than the log the log's
   history repeats (the user comes back one log-length later);
2. holds sessions: batches of its own (a fitted table resamples the user's batches of
   the log whole, jobs and gaps together; a hand-made one draws widths, gaps and jobs
   apart, as in the paper's model; see :mod:`sitesim.users.population_table`), and
   after each batch continues the session with a probability that falls with the
   response time of the job waited for (the site's continuation curve with the user's
   own offset): users who wait long go home -- a second feedback loop beside think time;
3. between sessions stays away for an absence (end of one session to the start of the
   next; a fitted table deals the user's own, as it deals its batches: :class:`Deck`;
   batches and absences both from those the user began in the same part of the local
   day (the batches of the weekend apart from the weekdays' where the table says so),
   :class:`PartDecks`),
   laid down in operational time of the weekly cycle, so sessions start at the hours
   and on the days the log's did, and a session that ends late (a long wait) delays
   the next one; gaps inside a batch are laid down the same way, in the cycle of the
   log's submissions inside batches (docs/population.md, "Gaps in the cycle of batches");
4. submits its own jobs (size clipped to the machine, runtime; planned batches draw
   distinct jobs with their repetitions).

Profiles are shared by all users that follow them; a user holds only its position and
three random streams: ``when`` (batches or widths and gaps, continuation, think times, absences;
the same draws per batch whatever happens, so schedulers face the same users),
``what`` (jobs) and the estimate model's.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sitesim.engine.process import UserGenerator, UserProcess, Wait
from sitesim.engine.site import Site
from sitesim.metrics.productivity import ProductivityRecorder, SessionLog
from sitesim.users.population_table import FORMAT, UNOBSERVED, FittedPopulation, Profile
from sitesim.users.user import submit_batch, waited_for
from sitesim.workload.calendar import Warp
from sitesim.workload.estimates import EstimateModel
from sitesim.workload.job import Job

if TYPE_CHECKING:
    from sitesim.analysis.continuation import ContinuationCurve

__all__ = [
    "FORMAT", "UNOBSERVED", "FittedPopulation", "PopulationUser", "Profile", "populate", "population_users",
]


def _pick(values: Sequence[Any], u: float) -> Any:
    return values[int(u * len(values))]


def _laid_down(warp: Warp, now: float, operational: float) -> int:
    """Whole seconds from ``now`` to the end of ``operational`` seconds of the weekly
    cycle laid down from it (gaps and reactions inside a batch)."""
    return max(0, round(warp.after(now, operational) - now))


class Deck:
    """A user's own observations dealt without replacement, reshuffled when used up.

    Why not independent draws: a user's absences are heavy-tailed (a few of weeks among
    many of hours), and independent draws of them fit more sessions into the user's
    visit than it held (a renewal process's count exceeds the visit over the mean
    absence by about (CV^2 - 1) / 2); at CTC-SP2 the users with 5 to 19 sessions held
    14% more sessions than in the log, with their work. Dealt, every absence of the
    user comes once per round, so a visit holds the log's sessions, and a user's
    batches keep their mix (its heavy batches come as often as in the log).

    One uniform per deal, as an independent draw takes (the first deal of a round is
    the independent draw). The deck is a Fisher-Yates shuffle done one card at a time
    and kept sparse: only the positions a deal has moved are stored, so a user dealing
    from a pool of thousands (a sparse user's pooled absences) holds a few entries,
    not the pool's size.
    """

    __slots__ = ("values", "left", "moved", "top", "rounds")

    def __init__(self, values: Sequence[Any]) -> None:
        self.values = values
        #: The largest value, once :meth:`deal_within` needs it.
        self.top: Any = None
        #: Rounds begun in the current visit (:meth:`visit`).
        self.rounds = 0
        #: Cards still in the deck; position k holds ``moved.get(k, k)``.
        self.left = 0
        self.moved: dict[int, int] = {}

    def deal(self, u: float) -> Any:
        """The value at position ``int(u * left)`` of the cards left (``u`` in [0, 1),
        the caller's one uniform); the last card takes its place. A deck of no values
        has nothing to deal: callers check first (an empty absence list ends a visit)."""
        if not self.left:
            self._shuffle()
        return self.values[self._take(int(u * self.left))]

    def deal_within(self, u: float, limit: float) -> Any:
        """A card of at most ``limit`` (numbers only: absences), dealt uniformly from
        those left in the round that fit, with the caller's one uniform; None when none
        left fits (the user departs). A new round deals as :meth:`deal` (the caller
        checks that card against its departure, as before).

        Why: a visit in the log ends with its last session, so every absence of a round
        ended within the visit; a user that draws one of them that no longer fits, its
        chain of sessions a little late, waits out the rest of its visit and loses the
        sessions the round's other absences would have held (docs/population.md, "The
        end of a visit"). Only the first round: conditioning a later round on the time
        left would deal a user whose chain runs early its short absences over and over. When every card
        fits (all but the last few deals of a visit) this is :meth:`deal`, draw for draw."""
        if not self.left or self.rounds > 1:
            return self.deal(u)
        if self.top is None:
            self.top = max(self.values)
        if self.top <= limit:
            return self.values[self._take(int(u * self.left))]
        fitting = [k for k in range(self.left) if self.values[self.moved.get(k, k)] <= limit]
        if not fitting:
            return None
        return self.values[self._take(fitting[int(u * len(fitting))])]

    def visit(self) -> None:
        """A visit begins: the round in hand, or else the next one, is its first."""
        self.rounds = 1 if self.left else 0

    def _shuffle(self) -> None:
        """A new round: every card back in the deck."""
        self.left = len(self.values)
        self.moved.clear()
        self.rounds += 1

    def _take(self, i: int) -> int:
        """Remove position ``i`` of the cards left (the last card takes its place);
        returns the card (an index into :attr:`values`)."""
        moved = self.moved
        last = self.left - 1
        card = moved.get(i, i)
        if i != last:
            moved[i] = moved.get(last, last)
        moved.pop(last, None)
        self.left = last
        return card


class PartDecks:
    """A user's decks, one per part of the local day, or of the week with the weekend
    apart (:attr:`Profile.parts`): a batch or an absence is dealt from the deck of the
    part it begins in. Parts that share their values (a part where the user had too few
    of its own takes those of the same part of the day on any day, or the whole tuple:
    the same object) share one deck, so those values are still dealt once per round.
    With one part this is one :class:`Deck`, dealt as before."""

    __slots__ = ("decks",)

    def __init__(self, by_part: Sequence[Sequence[Any]]) -> None:
        shared: dict[int, Deck] = {}
        self.decks = tuple(shared.setdefault(id(values), Deck(values)) for values in by_part)

    def deal(self, part: int, u: float) -> Any:
        return self.decks[part].deal(u)

    def deal_within(self, part: int, u: float, limit: float) -> Any:
        return self.decks[part].deal_within(u, limit)

    def visit(self) -> None:
        for deck in self.decks:
            deck.visit()


class OperationalReaction:
    """A fitted user's reaction inside a batch (``"gaps": "reacting"``): one of its think
    times, laid down from the batch's last end in operational time of the weekly cycle
    of session starts. Why operational: a reaction in real time, tried first, took
    batches up at night as fast as by day, and the night share of in-session jobs left
    its rule at KTH-SP2 and LANL-CM5; why not the gaps' cycle: laid down in it, the
    reaction met 39 of the 50 validation rules against 41 (docs/population.md,
    "Reacting inside a batch")."""

    __slots__ = ("thinks", "when", "warp")

    def __init__(self, thinks: Sequence[float], when: np.random.Generator, warp: Warp) -> None:
        self.thinks = thinks
        self.when = when
        self.warp = warp

    @classmethod
    def of(cls, user: PopulationUser) -> OperationalReaction:
        """The reaction of ``user``: its think times and stream, its site's cycle."""
        return cls(user.profile.thinks, user.when, user.population.warp)

    def draw(self) -> Any:
        """One of the user's think times, from its ``when`` stream (one draw per gap)."""
        return float(_pick(self.thinks, self.when.random()))

    def delay(self, now: int, drawn: Any, batch: list[Job]) -> int | None:
        """``drawn`` operational seconds laid down from ``now``, in whole seconds."""
        return _laid_down(self.warp, float(now), drawn)


class PresentReaction(OperationalReaction):
    """A fitted user's reaction inside a batch when it is there to see the end
    (``"gaps": "present"``): with the probability its continuation curve gives (its
    own offset, the part of the day now) for the response of the job it waited for,
    the reaction of :class:`OperationalReaction`; else none, and the gap is kept.

    Why: the log cannot say what its users did when a batch's jobs ended before the
    next gap, since in the log none did (a job submitted after they all ended starts a
    batch). The curve is the log's measure of the nearest thing: how often a user
    submitted again within 20 minutes of an end, given the response. A user who was
    not there comes back at the gap, as it did in the log. Both the think time and the
    uniform are drawn before every gap, used or not."""

    __slots__ = ("curve_at",)

    def __init__(
        self, thinks: Sequence[float], when: np.random.Generator, warp: Warp,
        curve_at: Callable[[float], ContinuationCurve],
    ) -> None:
        super().__init__(thinks, when, warp)
        #: The continuation curve the user judges by at a time (its part of the day).
        self.curve_at = curve_at

    @classmethod
    def of(cls, user: PopulationUser) -> OperationalReaction:
        return cls(user.profile.thinks, user.when, user.population.warp, user.continuation)

    def draw(self) -> Any:
        return (float(_pick(self.thinks, self.when.random())), self.when.random())

    def delay(self, now: int, drawn: Any, batch: list[Job]) -> int | None:
        think, uniform = drawn
        waited = waited_for(batch)
        if uniform >= self.curve_at(float(now))(waited.end - waited.submit):
            return None
        return _laid_down(self.warp, float(now), think)


#: The reaction inside a batch of each kind of gaps (the table's ``gaps``, one of
#: :data:`~sitesim.users.population_table.GAPS`, which names the kinds a table may hold;
#: None: the gap is kept). A new kind is a class, an entry here and its name there.
REACTIONS: dict[str, type[OperationalReaction] | None] = {
    "fixed": None, "reacting": OperationalReaction, "present": PresentReaction,
}


class PopulationUser:
    """One simulated user following a shared :class:`Profile`."""

    __slots__ = (
        "uid", "site", "population", "profile", "when", "what", "estimates", "est_rng", "max_jobs",
        "_estimate", "_program", "_left", "_current", "_planned", "sessions", "_decks",
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
        self._current: tuple[int, int, int] = (0, 0, 0)
        #: The jobs of the resampled batch being submitted, last first: (size, runtime,
        #: wait in the log).
        self._planned: list[tuple[int, int, int]] = []
        #: Where the user reports its sessions (docs/metrics.md, "User productivity").
        self.sessions = sessions
        #: Resampled tables: the user's absences, opening and later batches, dealt by
        #: the part of the day they begin in (the batches by the part of the week, where
        #: the table keeps the weekend apart).
        self._decks: tuple[PartDecks, PartDecks, PartDecks] | None = None
        if population.resampled:
            parts = [profile.part(k) for k in range(population.deal_parts)]
            self._decks = (
                PartDecks([a for _, _, a in parts]),
                PartDecks([f for f, _, _ in parts]),
                PartDecks([later for _, later, _ in parts]),
            )

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
            if p.fills_visit and self._decks is not None:
                self._decks[0].visit()
            while True:
                if not (yield from self._session()):
                    return
                if not p.absences:  # no user of the log came back (UNOBSERVED)
                    break
                now = float(env.now)
                # The absence is laid down in operational time of the weekly cycle: the
                # user's own where the table has one (docs/population.md, "Each user's own hours").
                warp = p.absence_warp or self.population.warp
                u = self.when.random()
                if self._decks is None:
                    absence = _pick(p.absences, u)
                elif p.fills_visit:
                    # Only those of its absences that end before its departure.
                    absence = self._decks[0].deal_within(
                        self.population.part_of(now), u, warp.forward(departure) - warp.forward(now)
                    )
                    if absence is None:
                        break
                else:
                    absence = self._decks[0].deal(self.population.part_of(now), u)
                nxt = warp.after(now, absence)
                if nxt > departure:
                    break
                yield max(1, round(nxt - now))
            if period <= 0:
                return
            start += period

    def continuation(self, now: float) -> ContinuationCurve:
        """The curve the user judges going on by at ``now``: its own, for the part of the
        day ``now`` falls in when the table has offsets by the part of the day."""
        p = self.profile
        return p.continuation_at(self.population.day_part_of(now)) if p.part_continuation else p.continuation

    def _session(self) -> Generator[Wait, Any, bool]:
        """One session; False when the job limit stopped the user."""
        env = self.site.env
        site = self.site
        p = self.profile
        when = self.when
        warp = self.population.warp
        # Gaps inside a batch follow the cycle of the log's in-batch submissions.
        gap_warp = self.population.gap_warp or warp
        waited: Job | None = None
        position = 0
        decks = self._decks
        kind = REACTIONS[self.population.gaps]
        react = kind.of(self) if kind is not None else None
        while True:
            position += 1
            if decks is not None:
                # One of the user's own batches, whole: its jobs and the gaps between them.
                jobs, gaps = decks[1 if position == 1 else 2].deal(
                    self.population.part_of(float(env.now)), when.random()
                )
                width = len(jobs)
                self._planned = list(reversed(jobs))
                laid = iter(gaps)

                def gap() -> int:
                    return _laid_down(gap_warp, float(env.now), next(laid))

                make = self._next_job
            else:
                width = max(1, _pick(p.widths, when.random()))

                def gap() -> int:
                    return _laid_down(gap_warp, float(env.now), _pick(p.gaps, when.random()))

                make = self._make_job
            batch = yield from submit_batch(site, width, gap, make, waited, self.max_jobs, self.sessions, react)
            if not batch:
                return False
            waited = waited_for(batch)
            go_on = when.random() < self.continuation(float(env.now))(waited.end - waited.submit)
            think = max(0, round(_pick(p.thinks, when.random())))
            if len(batch) < width:
                return False
            if not go_on:
                if self.sessions is not None:
                    self.sessions.ended(waited.end)
                return True
            yield think

    def _next_job(self, now: int, waited: Job | None) -> Job:
        """The next job of a resampled batch; a job unlike the previous one is a new
        program (a repetition run is a row of identical jobs, as the fit counts them)."""
        size, runtime, wait = self._planned.pop()
        if (size, runtime) != self._current[:2]:
            self._program += 1
            self._current = (size, runtime, 1)
        job = self._job(now, waited, size, runtime)
        job.recorded_wait = wait
        return job

    def _make_job(self, now: int, waited: Job | None) -> Job:
        if self._left <= 0:
            self._program += 1
            self._current = _pick(self.profile.runs, self.what.random())
            self._left = self._current[2]
        self._left -= 1
        size, runtime, _ = self._current
        return self._job(now, waited, size, runtime)

    def _job(self, now: int, waited: Job | None, size: int, runtime: int) -> Job:
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


def population_users(
    site: Site,
    population: FittedPopulation,
    users: int,
    seed: int,
    estimates: EstimateModel,
    *,
    max_jobs: int | None = None,
    recorder: ProductivityRecorder | None = None,
    first: int = 1,
) -> list[PopulationUser]:
    """``users`` users resampled from the population's profiles, numbered from ``first``
    (reporting their sessions to ``recorder`` if given), not yet started.

    Their draws depend on the seed and their rank among these users only.
    """
    root = np.random.SeedSequence(seed)
    order_seq, users_seq = root.spawn(2)
    order = np.random.default_rng(order_seq).permutation(len(population.profiles))
    built = []
    for k, child in enumerate(users_seq.spawn(users)):
        streams = tuple(np.random.default_rng(s) for s in child.spawn(3))
        profile = population.profiles[int(order[k % len(order)])]
        uid = first + k
        sessions = recorder.log(uid) if recorder is not None else None
        built.append(
            PopulationUser(uid, site, population, profile, streams, estimates, max_jobs=max_jobs, sessions=sessions)
        )
    return built


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
    started = population_users(site, population, users, seed, estimates, max_jobs=max_jobs, recorder=recorder)
    for user in started:
        UserProcess(site, user.run())
    return started
