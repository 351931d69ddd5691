"""The fitted population table (``population.json``) as the simulated users read it.

Split from :mod:`sitesim.users.population` (which re-exports :class:`Profile` and
:class:`FittedPopulation`): reading the table, pooling what a user observed too rarely,
and building each real user's profile is a job of its own, done once per run.

Two kinds of batches, by the table's ``batches`` key (docs/population.md):

- **planned** (tables without the key, and hand-made ones): a batch's width, its gaps
  and its jobs are drawn independently, from the user's widths, gaps and distinct jobs;
- **resampled** (``"batches": "resampled"``, what ``sitesim fit`` writes): a batch is
  one of the user's own batches of the log, drawn whole -- its jobs (size, runtime) and
  the gaps between them -- from the user's session-opening batches for a session's
  first batch, from its other batches after that. Why: in the logs a batch is a set of
  jobs each submitted while an earlier one still waits or runs, its jobs are alike (a
  wide batch is many short jobs, not many draws from everything the user ran), and a
  session opens with its widest and longest batch; drawn apart, a long gap often came
  after a short job had ended, the batch fell apart into shorter batches and sessions,
  and sessions ended too soon (docs/population.md, "Batches resampled whole"). The
  user's batches and absences are dealt without replacement
  (:class:`sitesim.users.population.Deck`).

Resampled batches and absences are split by the part of the local day they began in
(the ``day_parts`` key, with each user's ``batch_hours`` and ``absence_hours``): a user
deals the batch it starts, or the absence it begins, from those of the part of the day
it is in, where it had at least ``min_observations`` of its own there (docs/population.md,
"Dealt by the hour"). Tables without the keys deal from one deck, as before. By the
``weekends`` key (:data:`~sitesim.analysis.day_cycles.WEEKENDS`), the batches' parts of
the day are those of the weekdays and, apart, those of the weekend (``apart``, what
``sitesim fit`` writes; a sparse part of the week falls back to the same part of the day
on any day, then to all; the absences stay by the part of the day: docs/population.md,
"The weekend apart"), or of every day alike (``together``, tables without the key).

By the ``last_absence`` key (:data:`LAST_ABSENCE`), a user with absences of its own
deals, in the first round of them in a visit, only those that end before its
departure (``within_span``, what ``sitesim fit`` writes), or any (``any``, tables
without the key; docs/population.md, "The end of a visit").

By the ``absence_cycle`` key (:data:`ABSENCE_CYCLES`), a user's absences are laid
down in operational time of the site's weekly cycle of session starts (``site``, tables
without the key), or of the user's own (``own``, what ``sitesim fit`` writes: the site's
cycle reweighted by the user's session starts per hour of the day,
:mod:`sitesim.analysis.day_cycles`; docs/population.md, "Each user's own hours").

By the ``continuation_by_part`` key, a user decides whether to go on after a batch by
its curve shifted by the offset of the part of the local day the batch ended in (people
go home at night; docs/population.md, "Going home at night"); tables without it, by its
curve at every hour.

Three kinds of gaps inside a batch, by the ``gaps`` key: **fixed** (a table without the key) keeps
each gap whatever happened to the batch's jobs; **reacting** submits the next job a
think time after every earlier job of the batch ended, if that comes before the gap
(:func:`sitesim.users.user.gap_or_reaction`); **present** reacts so only when the user
is there to see the end, with the probability its continuation curve gives that a
user is back within 20 minutes of an end like it, and else keeps the gap
(docs/population.md, "Reacting inside a batch", measures them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import define

from sitesim.analysis.continuation import MAX_OFFSET, ContinuationCurve, adjusted
from sitesim.analysis.day_cycles import ABSENCE_CYCLES, HOURS, WEEKENDS, own_cycle, prior_strength_of, site_profile
from sitesim.errors import InputError
from sitesim.inputs import read_document
from sitesim.limits import MAX_DAY_PARTS
from sitesim.workload.calendar import WEEKEND_START, Clock, Warp

FORMAT = "sitesim-population"
#: What a quantity falls back to when no user of the log observed it at all (a tiny
#: log: every batch of width 1, no batch continued, every user one session). The
#: pooled observations are then empty, and a draw from nothing has no meaning:
#: a gap or a think time of 0 s (the next job at once), and no absence, so a user
#: holds no further session in its visit (as every user of such a log did).
UNOBSERVED: dict[str, tuple[Any, ...]] = {"gaps_operational": (0.0,), "thinks": (0.0,), "absences": ()}

#: One batch of the log: its jobs' (size, runtime, wait in the log; -1 if the table
#: has no waits) in order, and the gaps between them (operational seconds; one fewer
#: than the jobs).
Batch = tuple[tuple[tuple[int, int, int], ...], tuple[float, ...]]


#: How users treat the gaps inside a batch (the table's ``gaps`` key): kept, or taken up
#: early when the batch's jobs so far have ended (see the module docstring).
GAPS = ("fixed", "reacting", "present")  # the first: a table without the key
#: The gaps ``sitesim fit`` writes unless told otherwise. Why ``present``: on the
#: development logs behind their fitted services (5 seeds), jobs per session came closer
#: to the logs' on all three logs with waits (CTC-SP2 3.55 against 3.45 kept, the log
#: 4.01) and the rules met on every seed went from 38 to 40 of 43, where ``reacting``
#: lengthened sessions past their rule (docs/population.md, "Reacting inside a batch").
#: A table without the key keeps its gaps (``fixed``), as every table did before.
FIT_GAPS = "present"

#: Which absence may end a visit (the table's ``last_absence`` key): ``any`` (tables
#: without the key), the first one dealt that would end past the user's departure; or
#: ``within_span``, only a visit where none of the user's own absences would end before
#: its departure (docs/population.md, "The end of a visit").
LAST_ABSENCE = ("any", "within_span")


@define(slots=True, frozen=True)
class Profile:
    """One real user's observations: the pooled ones where the user had too few of a
    quantity drawn independently; its own batches and absences however few, when they
    are resampled (docs/population.md, "Fallback")."""

    arrival: float
    span: float
    #: Planned batches: widths, and the gaps between the jobs of a batch (operational s).
    widths: tuple[int, ...]
    gaps: tuple[float, ...]
    thinks: tuple[float, ...]
    absences: tuple[float, ...]
    #: Planned batches: the distinct jobs, (size, runtime, repetitions).
    runs: tuple[tuple[int, int, int], ...]
    #: The site's continuation curve with the user's own offset.
    continuation: ContinuationCurve
    #: Resampled batches: those that opened the user's sessions, and the others.
    first_batches: tuple[Batch, ...] = ()
    later_batches: tuple[Batch, ...] = ()
    #: By part of the local day (:attr:`FittedPopulation.day_parts`; of the week, the
    #: weekend's apart: :attr:`FittedPopulation.deal_parts`): the user's own opening
    #: batches, later batches and absences begun in that part, where it has at least
    #: ``min_observations`` of them, else the whole tuple above (the same object, so a
    #: part without its own shares the whole deck; the weekend apart, a batch's part first
    #: takes those of the same part of the day on any day, and an absence's weekend part
    #: is its weekdays' part). One part: the tuples above.
    parts: tuple[tuple[tuple[Batch, ...], tuple[Batch, ...], tuple[float, ...]], ...] = ()
    #: Whether the user deals only absences that end before its departure
    #: (``"last_absence": "within_span"``, and the absences are its own: a user of one
    #: session, drawing the pooled ones, had none within its visit).
    fills_visit: bool = False
    #: The weekly cycle the user's absences are laid down in: its own
    #: (``"absence_cycle": "own"``), or None for the site's (:attr:`FittedPopulation.warp`).
    absence_warp: Warp | None = None
    #: The continuation curve by the part of the local day the waited-for job ended in
    #: (the table's ``continuation_by_part``: the user's curve with each part's offset);
    #: empty: :attr:`continuation` at any hour.
    part_continuation: tuple[ContinuationCurve, ...] = ()

    def continuation_at(self, part: int) -> ContinuationCurve:
        """The curve a batch whose waited-for job ended in part ``part`` of the day is
        judged by (docs/population.md, "Going home at night")."""
        return self.part_continuation[part] if self.part_continuation else self.continuation

    def part(self, k: int) -> tuple[tuple[Batch, ...], tuple[Batch, ...], tuple[float, ...]]:
        """Opening batches, later batches and absences of part ``k`` of the day (of the
        week: :meth:`FittedPopulation.part_of`)."""
        return self.parts[k] if self.parts else (self.first_batches, self.later_batches, self.absences)


@define(slots=True)
class FittedPopulation:
    """The shared part of a fitted population: profiles, cycle, clock, log length."""

    name: str
    clock: Clock
    warp: Warp
    duration: int
    machine_size: int
    profiles: list[Profile]
    #: Whether batches are resampled whole (else planned): see the module docstring.
    resampled: bool = False
    #: How users take up a batch whose jobs so far ended before the next gap (the
    #: ``gaps`` key, one of :data:`GAPS`): see the module docstring.
    gaps: str = GAPS[0]
    #: The operational time gaps inside a batch are laid down in: the weekly cycle of
    #: the log's submissions inside batches (``gap_weights``); tables without the key,
    #: the session starts' (``warp``).
    gap_warp: Warp | None = None
    #: Parts of the local day batches and absences are dealt by (``day_parts``; tables
    #: without the key: 1, every batch and absence dealt from one deck as before).
    day_parts: int = 1
    #: Whether the weekend's batches are dealt apart from the weekdays' (``"weekends":
    #: "apart"``; tables without the key: every day alike). Absences are not.
    weekends_apart: bool = False

    @property
    def deal_parts(self) -> int:
        """Parts of the week batches and absences are dealt by: the parts of the day,
        twice with the weekend apart (the weekdays' first)."""
        return self.day_parts * 2 if self.weekends_apart else self.day_parts

    def part_of(self, t: float) -> int:
        """The part of the week trace time ``t`` falls in, as batches and absences are
        dealt by (0 with one part)."""
        if self.deal_parts == 1:
            return 0
        return _part(self.warp.hour_of_week(t), self.day_parts, self.weekends_apart)

    def day_part_of(self, t: float) -> int:
        """The part of the local day trace time ``t`` falls in, whatever the day (the
        continuation's offsets are by the part of the day alone)."""
        if self.day_parts == 1:
            return 0
        return _part(self.warp.hour_of_week(t), self.day_parts)

    @classmethod
    def load(cls, path: str | Path, largest: int, document: Any = None) -> FittedPopulation:
        """Read ``population.json``; job sizes are clipped to ``largest`` nodes.
        ``document``: the file already read and parsed (what
        :func:`~sitesim.runs.population_check.check_population_file` returns), so a run
        reads it once; None reads it here.

        Runtimes are the log's own: the paper site's ``runtime_scale`` calibration and
        ``size_mapping`` shape the empirical tables only (docs/population.md)."""
        where = str(path)
        data = document
        if data is None:
            try:
                data = json.loads(read_document(path, "population", long_lines=True))
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc.msg}", path=where, line=exc.lineno) from None
            except (ValueError, RecursionError) as exc:  # a number of 5,000 digits; nesting json cannot follow
                raise InputError(f"unreadable JSON: {exc}", path=where) from None
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
        kind = data.get("batches", "planned")
        if kind not in ("planned", "resampled"):
            raise ValueError(f"unknown batches {kind!r} (planned or resampled)")
        resampled = kind == "resampled"
        gaps = data.get("gaps", GAPS[0])
        if gaps not in GAPS:
            raise ValueError(f"unknown gaps {gaps!r} ({' or '.join(GAPS)})")
        day_parts = int(data.get("day_parts", 1))
        if not 1 <= day_parts <= MAX_DAY_PARTS:
            raise ValueError(f"day_parts {day_parts} is not in 1..{MAX_DAY_PARTS}")
        weekends = data.get("weekends", WEEKENDS[0])
        if weekends not in WEEKENDS:
            raise ValueError(f"unknown weekends {weekends!r} ({' or '.join(WEEKENDS)})")
        apart = weekends == WEEKENDS[1]
        last_absence = data.get("last_absence", LAST_ABSENCE[0])
        if last_absence not in LAST_ABSENCE:
            raise ValueError(f"unknown last_absence {last_absence!r} ({' or '.join(LAST_ABSENCE)})")
        absence_cycle = data.get("absence_cycle", ABSENCE_CYCLES[0])
        if absence_cycle not in ABSENCE_CYCLES:
            raise ValueError(f"unknown absence_cycle {absence_cycle!r} ({' or '.join(ABSENCE_CYCLES)})")
        own_warps = _own_warps(data, clock) if absence_cycle == "own" else [None] * len(users)
        by_part = [float(a) for a in data.get("continuation_by_part", [])]
        if by_part and len(by_part) != day_parts:
            raise ValueError(f"continuation_by_part has {len(by_part)} offsets for {day_parts} day_parts")
        if any(not abs(a) <= MAX_OFFSET for a in by_part):
            raise ValueError(f"continuation_by_part {by_part} is not within +-{MAX_OFFSET:g}")
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
            # Resampled, a user's own absences are the faithful ones however few: the
            # pool is mostly frequent users', who come back within hours
            # (docs/population.md, "Fallback"); its batches are its own too (below).
            least = 1 if resampled and key == "absences" else minimum
            if len(values) < least or (key == "runs" and int(user["jobs"]) < minimum):
                return pooled[key]
            return tuple(convert(v) for v in values)

        split = [_batches(u, largest) if resampled else ((), ()) for u in users]

        def batches(first: tuple[Batch, ...], later: tuple[Batch, ...]) -> tuple[tuple[Batch, ...], tuple[Batch, ...]]:
            """The user's own batches at each position; none at a position: all its
            batches (a user of the log has at least one session-opening batch)."""
            if not resampled:
                return (), ()
            both = first + later
            return first or both, later or both

        profiles = []
        for u, (first, later), own_warp in zip(users, split, own_warps, strict=True):
            opening, going_on = batches(first, later)
            absences = own(u, "absences", float)
            parts: tuple[tuple[tuple[Batch, ...], tuple[Batch, ...], tuple[float, ...]], ...] = ()
            if resampled and (day_parts > 1 or apart) and "batch_hours" in u:
                parts = _by_part(u, day_parts, apart, minimum, opening, going_on, absences)
            profiles.append(
                Profile(
                    arrival=float(u["arrival"]),
                    span=float(u["span"]),
                    widths=own(u, "widths", int),
                    gaps=own(u, "gaps_operational", float),
                    thinks=own(u, "thinks", float),
                    absences=absences,
                    runs=own(u, "runs", job),
                    continuation=adjusted(curve, float(u["continue_offset"])),
                    first_batches=opening,
                    later_batches=going_on,
                    parts=parts,
                    fills_visit=resampled and last_absence == "within_span" and bool(u["absences"]),
                    absence_warp=own_warp,
                    part_continuation=tuple(adjusted(curve, float(u["continue_offset"]) + a) for a in by_part),
                )
            )
        return cls(
            name=str(data["name"]),
            clock=clock,
            warp=Warp(clock, data["session_start_weights"]),
            duration=int(data["duration"]),
            machine_size=int(data["machine_size"]),
            profiles=profiles,
            resampled=resampled,
            gaps=gaps,
            gap_warp=Warp(clock, data["gap_weights"]) if "gap_weights" in data else None,
            day_parts=day_parts,
            weekends_apart=apart,
        )

    def users(self) -> int:
        return len(self.profiles)


def _own_warps(data: dict[str, Any], clock: Clock) -> list[Warp]:
    """Each user's own weekly cycle of session starts (``"absence_cycle": "own"``), built
    as the fit built the one it measured the user's absences in."""
    counts = [[int(c) for c in u["start_day_counts"]] for u in data["users"]]
    for u, c in zip(data["users"], counts, strict=True):
        if len(c) != HOURS:
            raise ValueError(f"user {u.get('user')}: start_day_counts has {len(c)} hours, not {HOURS}")
    strength = prior_strength_of(data["day_cycle_strength"])
    profile = site_profile(counts)
    weekly = data["session_start_weights"]
    return [Warp(clock, own_cycle(weekly, c, profile, strength)) for c in counts]


def _batches(user: dict[str, Any], largest: int) -> tuple[tuple[Batch, ...], tuple[Batch, ...]]:
    """The user's batches of the log, split into session-opening ones and the others.

    The table lists the user's jobs in submission order, the widths of its batches in
    order, the gaps inside them in order and its sessions' batch counts, so batch i
    is the next ``widths[i]`` jobs with the next ``widths[i] - 1`` gaps. Each job keeps
    its wait in the log (``waits_in_order``, for the ``hold`` service; -1 without)."""
    sized = user["jobs_in_order"]
    waits = user.get("waits_in_order")
    if waits is None:
        waits = [-1] * len(sized)
    if len(waits) != len(sized):
        raise ValueError(f"user {user.get('user')}: waits_in_order and jobs_in_order differ in length")
    jobs = [(min(int(s), largest), max(1, round(float(r))), round(float(w))) for (s, r), w in zip(sized, waits)]
    gaps = [float(g) for g in user["gaps_operational"]]
    widths = [int(w) for w in user["widths"]]
    if sum(widths) != len(jobs) or sum(widths) - len(widths) != len(gaps):
        raise ValueError(f"user {user.get('user')}: jobs, widths and gaps do not line up")
    opening = _openings(user)
    if sum(int(n) for n in user["session_batches"]) != len(widths):
        raise ValueError(f"user {user.get('user')}: session_batches do not add up to its batches")
    if not widths:
        raise ValueError(f"user {user.get('user')}: no batches (a user of the log has at least one)")
    first: list[Batch] = []
    later: list[Batch] = []
    j = g = 0
    for i, w in enumerate(widths):
        batch = (tuple(jobs[j:j + w]), tuple(gaps[g:g + w - 1]))
        j, g = j + w, g + w - 1
        (first if i in opening else later).append(batch)
    return tuple(first), tuple(later)


def _openings(user: dict[str, Any]) -> set[int]:
    """The indices of the user's batches that open a session (``session_batches``)."""
    opening = set()
    at = 0
    for n in user["session_batches"]:
        opening.add(at)
        at += int(n)
    return opening


def _part(hour: Any, parts: int, weekends_apart: bool = False) -> int:
    """The part of the day of a local hour of the week (0..167), among ``parts``; with
    the weekend apart, a weekend's hour is in the part ``parts`` later."""
    h = int(hour)
    if not 0 <= h < 168:
        raise ValueError(f"hour of the week {h} is not in 0..167")
    part = h % 24 * parts // 24
    return part + parts if weekends_apart and h >= WEEKEND_START else part


def _by_part(
    user: dict[str, Any], day_parts: int, weekends_apart: bool, minimum: int, opening: tuple[Batch, ...],
    going_on: tuple[Batch, ...], absences: tuple[float, ...],
) -> tuple[tuple[tuple[Batch, ...], tuple[Batch, ...], tuple[float, ...]], ...]:
    """The user's opening batches, later batches and absences split by the part of the
    day each began in (``batch_hours``, ``absence_hours``); a part with fewer than
    ``minimum`` of the user's own takes the whole tuple (the user's own, or what it
    fell back to), so a sparse part is dealt from what the user does at any hour.
    With the weekend apart, the batches' parts are the weekdays' then the weekend's, and
    a sparse one takes first those of the same part of the day on any day, where the
    user has ``minimum`` of them, and only then the whole tuple. Values that are those of
    another part (the dense half of a part of the day whose other half has none, or all
    of the user's) are that part's tuple, the same object, so one deck deals them once a
    round. The absences stay split by the part of the day alone, the weekend's part the
    same tuple as the weekdays' (one deck): they are laid down in operational time of a
    weekly cycle that already holds the weekend (docs/population.md, "The weekend apart").

    Why by the hour: a user's batches differ with the time of day (at NASA-iPSC the
    jobs of 64 nodes or more, 63% of the work, began at night twice as often as the
    others), and so do its absences (one that follows an evening's end lasts the night).
    Dealt regardless of the hour, a night's batch ran in the day, and absences laid
    down from any end drew session starts away from the log's hours
    (docs/population.md, "Dealt by the hour")."""
    widths = user["widths"]
    hours = user["batch_hours"]
    if len(hours) != len(widths):
        raise ValueError(f"user {user.get('user')}: batch_hours and widths differ in length")
    opened = _openings(user)
    parts = day_parts * 2 if weekends_apart else day_parts
    first_hours = [_part(h, day_parts, weekends_apart) for i, h in enumerate(hours) if i in opened]
    later_hours = [_part(h, day_parts, weekends_apart) for i, h in enumerate(hours) if i not in opened]
    own_absences = user["absences"]
    absence_hours = [_part(h, day_parts) for h in user.get("absence_hours", [])]
    if len(absence_hours) != len(own_absences):
        raise ValueError(f"user {user.get('user')}: absence_hours and absences differ in length")
    # Where a user's batches at a position are all of them (first + later: a user whose
    # sessions never went on), so are their hours.
    all_hours = first_hours + later_hours

    def split(values: tuple[Any, ...], tags: list[int], whole: tuple[Any, ...], apart: bool) -> list[tuple[Any, ...]]:
        if len(tags) != len(values):  # not the user's own (pooled absences): no split
            return [whole] * parts
        if not apart:  # by the part of the day: the weekend's parts, if any, are the weekdays'
            by_day = [tuple(v for v, t in zip(values, tags, strict=True) if t == k) for k in range(day_parts)]
            if weekends_apart:  # a part holding all of them is the whole tuple: one deck (tables without the key keep theirs)
                by_day = [whole if len(mine) == len(values) else mine for mine in by_day]
            chosen = [mine if len(mine) >= minimum else whole for mine in by_day]
            return [chosen[k % day_parts] for k in range(parts)]
        own = [tuple(v for v, t in zip(values, tags, strict=True) if t == k) for k in range(parts)]
        own = [whole if len(mine) == len(values) else mine for mine in own]
        chosen = []
        any_day: dict[int, tuple[Any, ...]] = {}  # by the part of the day, on any day
        for k, mine in enumerate(own):
            if len(mine) >= minimum:
                chosen.append(mine)
                continue
            day = k % day_parts
            if day not in any_day:
                other = own[(k + day_parts) % parts]  # the same part of the day, the other half of the week
                same = tuple(v for v, t in zip(values, tags, strict=True) if t % day_parts == day)
                # values equal to a tuple already dealt from are that tuple, so one deck deals them
                if len(same) < minimum or len(same) == len(values):
                    any_day[day] = whole
                elif len(same) == len(other):
                    any_day[day] = other
                else:
                    any_day[day] = same
            chosen.append(any_day[day])
        return chosen

    def tags_of(batches: tuple[Batch, ...], tags: list[int]) -> list[int]:
        return tags if len(tags) == len(batches) else all_hours

    firsts = split(opening, tags_of(opening, first_hours), opening, weekends_apart)
    laters = split(going_on, tags_of(going_on, later_hours), going_on, weekends_apart)
    # by the part of the day alone: the weekend's part k + day_parts is the weekdays' k
    absent = split(absences, absence_hours, absences, False) if own_absences else [absences] * parts
    return tuple(zip(firsts, laters, absent, strict=True))
