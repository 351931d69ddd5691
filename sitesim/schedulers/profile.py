"""The processor-availability profile of conservative backfilling.

Mu'alem & Feitelson (2001, section 2.1) keep "a profile of the expected processor usage
at future times" and scan it for an *anchor point*: the first time at which enough
processors are free and stay free for the job's whole estimated runtime. The same
profile, read as a list of frames, is Cirne & Berman's *availability list*: what an
application scheduler (their Gas) reads to choose its request.

The profile is a step function kept as two parallel sorted lists: ``times[i]`` is a
breakpoint and ``free[i]`` the number of free nodes from it up to the next breakpoint;
the last frame extends forever. Lists with :mod:`bisect` rather than the paper's
linked list: locating a time is O(log n), and an insertion or deletion is one
``memmove``, far cheaper in Python than walking linked nodes. Adjacent frames with the
same value are always merged, so the length stays proportional to the number of jobs
whose (expected) end lies in the future, and every scan stops at the first frame that
decides it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

#: One frame of the availability list: (start, end or None for "forever", free nodes).
Frame = tuple[int, int | None, int]


class MissedReservation(RuntimeError):
    """A waiting job's reserved start passed without it starting: a broken invariant.

    Raised by both implementations of the reservations with the job's position; the
    scheduler, which knows the job at that position, names it.
    """

    def __init__(self, position: int, start: int, now: int) -> None:
        super().__init__(position, start, now)  # the arguments, so that it pickles
        self.position = position
        self.start = start
        self.now = now

    def __str__(self) -> str:
        return f"the job waiting at position {self.position} missed its reservation at {self.start} (now {self.now})"


def check_profile(times: list[int], free: list[int], nodes: int) -> None:
    """Raise AssertionError unless a profile's invariants hold (for tests and debugging)."""
    assert len(times) == len(free) >= 1
    assert all(a < b for a, b in zip(times, times[1:])), "breakpoints not sorted"
    assert all(a != b for a, b in zip(free, free[1:])), "equal frames not merged"
    assert all(0 <= f <= nodes for f in free), "free out of range"
    assert free[-1] == nodes, "last frame not fully free"


class Profile:
    """Free nodes of a ``nodes``-node machine as a function of future time."""

    __slots__ = ("nodes", "times", "free")

    def __init__(self, nodes: int, origin: int = 0) -> None:
        if nodes < 1:
            raise ValueError(f"a profile needs at least one node, got {nodes}")
        self.nodes = nodes
        self.times: list[int] = [origin]
        self.free: list[int] = [nodes]

    # -- queries -------------------------------------------------------------------
    def free_at(self, t: int) -> int:
        """Free nodes at time ``t`` (not before the profile's origin)."""
        return self.free[self._frame(t)]

    def frames(self, now: int | None = None) -> list[Frame]:
        """The availability list from ``now`` (default: the origin) on."""
        times, free = self.times, self.free
        i = 0 if now is None else self._frame(now)
        out: list[Frame] = []
        last = len(times) - 1
        for k in range(i, last + 1):
            start = times[k] if now is None or k > i else max(times[k], now)
            out.append((start, times[k + 1] if k < last else None, free[k]))
        return out

    def earliest_near(self, now: int, size: int, duration: int, latest: int, start: int, end: int) -> int:
        """The first anchor in ``[now, latest)`` reachable from ``[start, end)``, else ``latest``.

        A *run* is a maximal stretch from ``now`` on where at least ``size`` nodes are
        free; from ``latest`` on, everything counts as free (there the caller's own
        reservation would give its nodes back, as with ``earliest(..., own=size)``).
        This returns the start of the first run that meets ``[start, end)`` and holds a
        window of ``duration`` (or reaches ``latest``); that start is its earliest
        anchor.

        Why: compression needs the earliest start of a job that was at its earliest
        before some room was added inside ``[start, end)`` (``now <= start < end <=
        latest``). Any window that became feasible lies in a run containing added room,
        and a run that contains none was too short before and still is; so the answer
        equals :meth:`earliest`, but only the frames near the added room are read,
        never the whole profile from ``now``.
        """
        times, free = self.times, self.free
        n = len(times)
        k = bisect_right(times, start) - 1
        stop = bisect_left(times, end, k)
        if k < stop and free[k] >= size:
            # The run may begin before ``start``: walk back to its first frame.
            low = bisect_right(times, now) - 1
            first = k
            while first > low and free[first - 1] >= size:
                first -= 1
        else:
            first = -1
        while True:
            while k < stop and free[k] < size:  # frames without room: skip
                k += 1
            if k >= stop:
                return latest
            anchor = times[first if first >= 0 else k]
            first = -1
            if anchor < now:
                anchor = now
            until = anchor + duration
            if until > latest:
                until = latest
            e = k + 1
            while e < n and times[e] < until and free[e] >= size:
                e += 1
            if e == n or times[e] >= until:
                return anchor
            k = e + 1  # frame e is too full: the next run starts after it

    def blockers(self, now: int, size: int, duration: int, latest: int) -> tuple[int, ...]:
        """Instants before ``latest`` that keep a job of ``size`` x ``duration`` from starting earlier.

        A *certificate* that the job (reserved at ``latest``, at its earliest start) cannot
        move: instants with fewer than ``size`` free nodes, the first less than
        ``duration`` after ``now``, each less than ``duration`` after the previous one,
        the last at ``latest - 1``, so every window starting in ``[now, latest)`` holds
        one. Why: while each of them still has fewer than ``size`` free nodes, the job
        still cannot move, whatever else changed, so compression can skip its scan for
        the price of a lookup per instant. Greedy: each instant is the latest blocking
        one the current window holds, which makes them few.
        """
        times, free = self.times, self.free
        n = len(times)
        points: list[int] = []
        add = points.append
        t = now
        i = bisect_right(times, t) - 1
        while t < latest:
            w = t + duration
            if w > latest:
                w = latest
            k = bisect_left(times, w, i) - 1
            while free[k] >= size:
                k -= 1
                if k < i:
                    raise AssertionError(f"a window at {t} fits: the job at {latest} is not at its earliest")
            # The next window starts just after frame k's last instant inside this one.
            i = k + 1
            if i < n and times[i] <= w:
                t = times[i]
            else:
                t = w
                i = k
            add(t - 1)
        return tuple(points)

    def earliest(
        self,
        now: int,
        size: int,
        duration: int,
        latest: int | None = None,
        own: int = 0,
        limit: int | None = None,
    ) -> int:
        """The anchor point: first time >= ``now`` with ``size`` nodes free for ``duration``.

        The nodes must be free at the anchor instant itself even when ``duration`` is 0.

        With ``latest`` (a start known to be feasible), the scan stops there and returns
        it, so compression never scans past a job's current reservation. ``own`` is the
        size of the job's own reservation at ``[latest, latest + duration)``, counted as
        free without removing it: every window tried starts before ``latest`` and so
        ends before ``latest + duration``, which makes "frames from ``latest`` on get
        ``own`` back" exact, and spares the split/merge of a release and re-reserve for
        the (common) job that does not move. With ``limit`` as well, only anchors before
        it are tried (the caller knows nothing new can start later): if none is
        feasible the answer is still ``latest``.
        """
        if size > self.nodes:
            raise ValueError(f"a job of {size} nodes never fits on {self.nodes} nodes")
        times, free = self.times, self.free
        n = len(times)
        i = self._frame(now)
        if limit is not None and latest is None:
            raise ValueError("earliest() with a limit needs a latest start to fall back on")
        back_from = latest if own else None
        stop = latest if limit is None or (latest is not None and latest < limit) else limit
        while i < n:
            anchor = times[i] if times[i] > now else now
            if stop is not None and anchor >= stop:
                # stop is set only together with latest
                return latest  # type: ignore[return-value]
            f = free[i]
            if back_from is not None and times[i] >= back_from:
                f += own
            if f < size:
                i += 1
                continue
            end = anchor + duration
            j = i + 1
            while j < n and times[j] < end:
                f = free[j]
                if back_from is not None and times[j] >= back_from:
                    f += own
                if f < size:
                    break
                j += 1
            else:
                return anchor
            # Every anchor up to frame j would overlap frame j: resume after it.
            i = j + 1
        raise AssertionError("the last frame of a profile is always fully free")

    # -- updates -------------------------------------------------------------------
    def reserve(self, start: int, end: int, size: int) -> None:
        """Take ``size`` nodes over ``[start, end)``."""
        self._add(start, end, -size)

    def release(self, start: int, end: int, size: int) -> None:
        """Give back ``size`` nodes over ``[start, end)`` (a job ended early, or moved)."""
        self._add(start, end, size)

    def shift(self, old: int, new: int, length: int, size: int) -> None:
        """Move a reservation of ``size`` nodes for ``length`` seconds from ``old`` to ``new``.

        Compression's one update, so it is lean: only the parts of the two windows that
        do not overlap change, and nothing is validated, because the caller found
        ``new`` feasible with the reservation counted as its own (an unchecked
        :meth:`release` then :meth:`reserve` gives the same profile).
        """
        end = new + length
        if end > old:  # overlapping windows: [new, old) is taken, [end, old + length) freed
            self._apply(new, old, -size)
            self._apply(end, old + length, size)
        else:
            self._apply(new, end, -size)
            self._apply(old, old + length, size)

    def advance(self, now: int) -> None:
        """Forget the past: the profile starts at ``now`` (times never go back)."""
        times = self.times
        if now <= times[0]:
            return
        i = bisect_right(times, now) - 1
        if i:
            del times[:i]
            del self.free[:i]
        times[0] = now

    # -- internals -----------------------------------------------------------------
    def _frame(self, t: int) -> int:
        i = bisect_right(self.times, t) - 1
        if i < 0:
            raise ValueError(f"time {t} is before the profile's origin {self.times[0]}")
        return i

    def _split(self, t: int) -> int:
        """Make ``t`` a breakpoint and return its index."""
        times = self.times
        i = bisect_left(times, t)
        if i < len(times) and times[i] == t:
            return i
        if i == 0:
            raise ValueError(f"time {t} is before the profile's origin {times[0]}")
        times.insert(i, t)
        self.free.insert(i, self.free[i - 1])
        return i

    def _add(self, start: int, end: int, delta: int) -> None:
        if start >= end or delta == 0:
            return
        i = self._split(start)
        j = self._split(end)
        free = self.free
        # Checked before anything changes, so a refused update leaves the profile intact
        # (the splits alone change no value).
        if (min(free[i:j]) + delta < 0) if delta < 0 else (max(free[i:j]) + delta > self.nodes):
            raise RuntimeError(
                f"profile cannot {'take' if delta < 0 else 'give back'} {abs(delta)} nodes"
                f" over [{start}, {end}) (machine of {self.nodes})"
            )
        for k in range(i, j):
            free[k] += delta
        # Only the two edges can have become equal to their neighbour: merge them.
        times = self.times
        if free[j] == free[j - 1]:
            del times[j]
            del free[j]
        if i > 0 and free[i] == free[i - 1]:
            del times[i]
            del free[i]

    def _apply(self, start: int, end: int, delta: int) -> None:
        """``_add`` without the overbooking check, for updates known to be valid."""
        times, free = self.times, self.free
        i = bisect_left(times, start)
        n = len(times)
        if i == n or times[i] != start:
            times.insert(i, start)
            free.insert(i, free[i - 1])
            n += 1
        j = bisect_left(times, end, i + 1)
        if j == n or times[j] != end:
            times.insert(j, end)
            free.insert(j, free[j - 1])
        if j == i + 1:
            free[i] += delta
        else:
            free[i:j] = [f + delta for f in free[i:j]]
        if free[j] == free[j - 1]:
            del times[j]
            del free[j]
        if i and free[i] == free[i - 1]:
            del times[i]
            del free[i]

    def check(self) -> None:
        """Raise AssertionError unless the invariants hold (for tests and debugging)."""
        check_profile(self.times, self.free, self.nodes)
