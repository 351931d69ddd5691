"""User productivity: what the users got done, measured from their own sessions.

A site-level simulator can ask what trace replay cannot: does a scheduler make its
users more productive? Shmueli & Feitelson (IEEE TPDS 20(7), 2009) measure productivity
as the jobs users complete, and argue that a user who waits long ends the session
early, so a scheduler that serves waiting users first gets more work out of the same
people. The numbers here follow that argument (docs/metrics.md, "User productivity"):

- *sessions started* and *completed*: a session starts at its first submission; it
  is completed when the user ends it by its own decision (a fitted user's continuation
  draw, a recorded user's last recorded batch) before the end of the run. Sessions in
  progress when the run ends, and sessions cut by the job limit, are started only;
- *batches and jobs per session* and *session length*: over completed sessions, whose
  length is known, from the first submission to the end of the last batch;
- the share of completed sessions that ended right after a batch whose *response*
  exceeded the site's median batch response. A batch's response is that of the job its
  user waited for (the batch's job that ended last; ties: the later arrival): end minus
  submit of that job, what a fitted user's continuation curve reads;
- *completed jobs per user-active day*: a user-active day is a calendar day (the site's
  local time) on which the user had a session in progress.

The users report what they do through hooks -- :meth:`ProductivityRecorder.open`,
:meth:`~ProductivityRecorder.batch_ended`, :meth:`~ProductivityRecorder.complete`,
:meth:`~ProductivityRecorder.stop` -- or, for a user whose sessions follow one another,
through its :class:`SessionLog`. Nothing is read from the trace and no scheduler is
involved. The bookkeeping is a few attribute updates per batch and one small record per
session; batch responses are kept (8 bytes each) for the site's median.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from attrs import define

DAY = 86_400
HOUR = 3_600


@define(slots=True, eq=False)
class Session:
    """One session of one user, as the user lived it (times in simulated seconds)."""

    user: int
    #: The session's first submission.
    start: int
    #: Batches that ended, and their jobs.
    batches: int = 0
    jobs: int = 0
    #: End of the latest batch that ended (-1: none yet), and that batch's response.
    last_end: int = -1
    last_response: int = -1
    #: When the session ended (-1: in progress); for a session cut by the end of the run,
    #: that end (set by :meth:`ProductivityRecorder.close`).
    end: int = -1
    #: Ended by the user's own decision (not by the job limit or the end of the run).
    completed: bool = False


class SessionLog:
    """The hooks of one simulated user, whose sessions follow one another.

    The user process calls :meth:`started` at a session's first submission,
    :meth:`batch_ended` when a batch's last job ended, :meth:`ended` when the user
    decides to end the session, and :meth:`stopped` when the job limit stops it.
    """

    __slots__ = ("recorder", "user", "current", "_responses")

    def __init__(self, recorder: ProductivityRecorder, user: int) -> None:
        self.recorder = recorder
        self.user = user
        self.current: Session | None = None
        self._responses = recorder.responses

    def started(self, time: int) -> None:
        self.current = self.recorder.open(self.user, time)

    def batch_ended(self, time: int, jobs: int, response: int) -> None:
        """:meth:`ProductivityRecorder.batch_ended` for the open session, written out:
        it runs once per batch of the run."""
        session = self.current
        assert session is not None
        session.batches += 1
        session.jobs += jobs
        session.last_end = time
        session.last_response = response
        self._responses.append(response)

    def ended(self, time: int) -> None:
        """The user ended the session by its own decision at ``time`` (its last batch's end)."""
        assert self.current is not None
        self.recorder.complete(self.current, time)
        self.current = None

    def stopped(self) -> None:
        """The job limit stopped the user: the session (if one is open) is not completed."""
        if self.current is not None:
            self.recorder.stop(self.current)
            self.current = None


class ProductivityRecorder:
    """Every session of a run, and the response of every batch that ended.

    ``shift`` places time 0 in local calendar time, so that user-active days are the
    site's calendar days: seconds from a local midnight to time 0, a day being
    ``(t + shift) // 86400``. A :class:`~sitesim.workload.calendar.Clock` gives it as
    ``unix_start + offset``; 0 (the default) puts midnight at time 0, as the paper's
    sites' convention does (time 0 = Monday 00:00 UTC).
    """

    def __init__(self, shift: int = 0) -> None:
        self.shift = shift
        self.sessions: list[Session] = []
        #: Response (s) of every batch that ended, in the order they ended.
        self.responses = array("q")
        self.closed = False
        self._median: float | None = None

    # -- hooks -------------------------------------------------------------------------
    def log(self, user: int) -> SessionLog:
        """The hooks of a simulated user ``user``."""
        return SessionLog(self, user)

    def open(self, user: int, time: int) -> Session:
        """``user`` submitted the first job of a session at ``time``."""
        session = Session(user, time)
        self.sessions.append(session)
        return session

    def batch_ended(self, session: Session, time: int, jobs: int, response: int) -> None:
        """A batch of ``jobs`` jobs of ``session`` ended at ``time``; ``response`` is that of
        the job the user waited for (end minus submit)."""
        session.batches += 1
        session.jobs += jobs
        session.last_end = time
        session.last_response = response
        self.responses.append(response)

    def complete(self, session: Session, time: int) -> None:
        """The user ended ``session`` at ``time`` by its own decision."""
        session.end = time
        session.completed = True

    def stop(self, session: Session) -> None:
        """The job limit stopped ``session`` after its last batch: not completed."""
        session.end = session.last_end if session.last_end >= 0 else session.start

    def close(self, end: int) -> None:
        """The run ended at ``end``: sessions still in progress are cut there."""
        for session in self.sessions:
            if session.end < 0:
                session.end = max(end, session.start)
        self.closed = True
        self._median = None

    # -- results -----------------------------------------------------------------------
    def median_response(self) -> float | None:
        """The site's median batch response (s) over every batch that ended; None if none."""
        if not self.responses:
            return None
        if self._median is None or not self.closed:  # computed once, after the run
            ordered = sorted(self.responses)
            middle = len(ordered) // 2
            if len(ordered) % 2:
                self._median = float(ordered[middle])
            else:
                self._median = (ordered[middle - 1] + ordered[middle]) / 2
        return self._median

    def summary(self, completed: Mapping[int, int]) -> dict[str, Any]:
        """The run's ``productivity`` section. ``completed``: jobs that ended, per user
        (:class:`~sitesim.metrics.stats.RunMetrics`); users without a session do not count."""
        median = self.median_response()
        by_user = self._by_user()
        days = sum(self._active_days(s) for s in by_user.values())
        jobs = sum(completed.get(u, 0) for u in by_user)
        return {
            "users": len(by_user),
            **_session_figures(self.sessions, median),
            "batches_ended": len(self.responses),
            "median_batch_response": median,
            "active_days": days,
            "jobs_per_active_day": jobs / days if days else None,
        }

    def user_summaries(self, completed: Mapping[int, int]) -> dict[int, dict[str, Any]]:
        """The same per user (the site's median is the whole site's), by user id."""
        median = self.median_response()
        out = {}
        for user, sessions in sorted(self._by_user().items()):
            days = self._active_days(sessions)
            out[user] = {
                **_session_figures(sessions, median),
                "active_days": days,
                "jobs_per_active_day": completed.get(user, 0) / days if days else None,
            }
        return out

    def _by_user(self) -> dict[int, list[Session]]:
        if not self.closed:
            raise RuntimeError("close() the recorder at the end of the run first")
        by_user: dict[int, list[Session]] = defaultdict(list)
        for session in self.sessions:
            by_user[session.user].append(session)
        return by_user

    def _active_days(self, sessions: Iterable[Session]) -> int:
        """Calendar days on which at least one of ``sessions`` was in progress.

        A session in progress over [start, end) covers the days of start and of end - 1
        and every day between (a session of no length, the day of its start)."""
        spans = sorted(
            ((s.start + self.shift) // DAY, (max(s.end - 1, s.start) + self.shift) // DAY)
            for s in sessions
        )
        days = 0
        last = None  # the last day already counted
        for first, final in spans:
            if last is not None and first <= last:
                first = last + 1
            if final >= first:
                days += final - first + 1
            last = final if last is None else max(last, final)
        return days


def _session_figures(sessions: Iterable[Session], median: float | None) -> dict[str, Any]:
    """Counts over ``sessions``, and the per-session means over the completed ones."""
    started = 0
    done = []
    for session in sessions:
        started += 1
        if session.completed:
            done.append(session)
    n = len(done)

    def mean(total: float) -> float | None:
        return total / n if n else None

    long_ends = sum(1 for s in done if median is not None and s.last_response > median)
    return {
        "sessions_started": started,
        "sessions_completed": n,
        "batches_per_session": mean(sum(s.batches for s in done)),
        "jobs_per_session": mean(sum(s.jobs for s in done)),
        "mean_session_hours": mean(sum(s.end - s.start for s in done) / HOUR),
        "ended_after_long_response": mean(long_ends),
    }
