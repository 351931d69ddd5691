"""Application schedulers for moldable jobs: Gas and the static baseline (Cirne & Berman 1999).

Both turn a :class:`~sitesim.moldable.speedup.RuntimeFunction` into one rigid request
(size, and the runtime on that size as the estimate) at the moment of submission.

**Gas** (Generic AppLeS for Supercomputers, section 4.4, Figure 4.3) reads the
scheduler's *availability list* -- free processors per future time frame, as
conservative backfilling plans them -- and, for each frame start, walks forward while
the processors stay available, to find how long a partition of that size can run from
there. A request that fits is a candidate; Gas submits the candidate with the least
expected turn-around (start + runtime), asking for exactly that runtime. Here the walk
is done for every accepted size (the paper's frames offer ``n`` processors; a
size-constrained job takes any accepted size up to ``n``), which gives, per size, the
earliest start at which that many processors stay free for the whole run; those are the
candidates. Against ``cons``, the scheduler places the request at that very start
(both read the same plan), so Gas's prediction is a guarantee.

**Static** is the paper's baseline: a uniformly random accepted size, whatever the load.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
from attrs import define

from sitesim.moldable.speedup import RuntimeFunction
from sitesim.registry import Registry

#: A frame of the availability list: (start, end or None for ever, free processors).
Frame = tuple[int, int | None, int]


@runtime_checkable
class ExportsAvailability(Protocol):
    """The capability Gas needs from a scheduler: its availability list from ``now`` on."""

    def availability(self, now: int) -> list[Frame]: ...


@runtime_checkable
class ExportsPartitionAvailability(Protocol):
    """The same capability of a partition composite, per partition.

    A job's partition depends on its shape (size and estimate), so each size of a
    moldable job may run in a different partition, against that partition's list.
    """

    def route_shape(self, size: int, estimate: int) -> int | None:
        """The partition a job of this shape goes to (None: none admits it)."""

    def partitions_without_availability(self) -> list[str]:
        """The partitions whose policy exports no list (Gas cannot run there)."""

    def partition_availability(self, index: int, now: int) -> list[Frame]:
        """Partition ``index``'s availability list from ``now`` on."""


#: Where Gas looks: availability lists, each with the part of the job that would run
#: against it (the sizes routed there). One pair on a single machine.
Candidates = Sequence[tuple[Sequence[Frame], RuntimeFunction]]


@define(frozen=True, slots=True)
class Request:
    """What an application scheduler submits: ``size`` processors for ``runtime`` seconds.

    ``start`` is the start the availability list predicted (None for static, which reads
    no list).
    """

    size: int
    runtime: int
    start: int | None = None

    @property
    def turnaround_end(self) -> int | None:
        return None if self.start is None else self.start + self.runtime


def _arrays(frames: Sequence[Frame]) -> tuple[np.ndarray, np.ndarray]:
    """Frame starts (plus a final +inf end) and free counts, as arrays."""
    starts = np.empty(len(frames) + 1, dtype=float)
    free = np.empty(len(frames), dtype=np.int64)
    for k, (s, _e, n) in enumerate(frames):
        starts[k] = s
        free[k] = n
    starts[-1] = np.inf
    return starts, free


def earliest_starts(frames: Sequence[Frame], function: RuntimeFunction) -> dict[int, int]:
    """Per accepted size, the earliest frame start from which it runs uninterrupted.

    Sizes that never fit (more than the list ever offers) are absent. This is the
    exhaustive walk; :func:`gas` finds the best of these candidates with pruning.
    """
    starts, free = _arrays(frames)
    sizes = np.asarray(function.sizes)
    runtimes = np.asarray(function.runtimes, dtype=float)
    found: dict[int, int] = {}
    for i in range(len(free)):
        ok = _fits_from(i, starts, free, sizes, runtimes)
        for k in np.flatnonzero(ok):
            found.setdefault(int(sizes[k]), int(starts[i]))
        if len(found) == len(sizes):
            break
    return found


def _fits_from(
    i: int, starts: np.ndarray, free: np.ndarray, sizes: np.ndarray, runtimes: np.ndarray
) -> np.ndarray:
    """Which sizes can start at frame ``i`` and hold their processors for their runtime.

    The walk of Figure 4.3, for all sizes at once: the running minimum of free
    processors from frame ``i`` on is non-increasing, so the first frame too full for
    size ``k`` is found by binary search, and the window ``k`` may use ends there.
    """
    low = np.minimum.accumulate(free[i:])
    # First j with low[j] < k: -low is non-decreasing.
    blocked = np.searchsorted(-low, -sizes, side="right")
    window = starts[i + blocked] - starts[i]
    return (sizes <= free[i]) & (runtimes <= window)


def gas(frames: Sequence[Frame], function: RuntimeFunction) -> Request:
    """Gas's request: the candidate with the least start + runtime (ties: fewer processors).

    The last frame of a conservative plan is the whole machine free for ever, so every
    size that fits the machine is a candidate somewhere. Frames are tried in time
    order and the walk stops once no later start can beat the best end found, since
    every candidate from frame ``i`` ends at least ``min runtime`` after its start.
    """
    starts, free = _arrays(frames)
    sizes = np.asarray(function.sizes)
    runtimes = np.asarray(function.runtimes, dtype=float)
    shortest = runtimes.min()
    best: tuple[float, int, int] | None = None  # (end, size, start)
    for i in range(len(free)):
        s = starts[i]
        if best is not None and s + shortest >= best[0]:
            break
        ok = _fits_from(i, starts, free, sizes, runtimes)
        if not ok.any():
            continue
        ends = np.where(ok, s + runtimes, np.inf)
        k = int(np.argmin(ends))  # first minimum: the smallest such size
        candidate = (float(ends[k]), int(sizes[k]), int(s))
        if best is None or candidate[:2] < best[:2]:
            best = candidate
    if best is None:
        raise ValueError(f"no accepted size of {function.label or 'the job'} ever fits the list")
    _end, size, start = best
    return Request(size, function.runtime(size), start)


def gas_routed(candidates: Candidates) -> Request:
    """Gas over several lists (a partitioned machine): the best of each list's own Gas
    request, by the same rule (least start + runtime, then fewer processors)."""
    requests = [gas(frames, function) for frames, function in candidates]
    if not requests:
        raise ValueError("Gas was given no availability list")
    return min(requests, key=lambda r: ((r.start or 0) + r.runtime, r.size))


# -- request policies (registered by name: --moldable-policy) -----------------------
class RequestPolicy(ABC):
    """How a moldable job's request is chosen at submission."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    #: Whether the policy reads the scheduler's availability list.
    needs_availability: ClassVar[bool] = False

    @abstractmethod
    def choose(
        self, function: RuntimeFunction, candidates: Candidates | None, rng: np.random.Generator
    ) -> Request:
        """The request to submit; ``candidates`` (the lists to read, with the sizes
        routed to each) is None when the policy reads none."""


REQUEST_POLICIES: Registry[type[RequestPolicy]] = Registry("moldable policy", "--moldable-policy")


@REQUEST_POLICIES.register
class GasPolicy(RequestPolicy):
    name = "gas"
    summary = (
        "Gas, the size with the least start + runtime on the availability list"
        " (needs -s cons, or partitions all running cons)"
    )
    needs_availability = True

    def choose(
        self, function: RuntimeFunction, candidates: Candidates | None, rng: np.random.Generator
    ) -> Request:
        assert candidates is not None
        return gas_routed(candidates)


@REQUEST_POLICIES.register
class StaticPolicy(RequestPolicy):
    name = "static"
    summary = "a uniformly random accepted size, whatever the load"

    def choose(
        self, function: RuntimeFunction, candidates: Candidates | None, rng: np.random.Generator
    ) -> Request:
        size = function.sizes[int(rng.integers(len(function.sizes)))]
        return Request(size, function.runtime(size))
