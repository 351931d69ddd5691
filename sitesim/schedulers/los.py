"""LOS: EASY whose backfill step packs the machine optimally, over a bounded lookahead.

After Shmueli & Feitelson, "Backfilling with lookahead to optimize the packing of
parallel jobs" (JPDC 2005). EASY tries its backfill candidates one at a time and takes
each that fits; a larger job it took may leave no room for two smaller ones that would
have filled the machine. LOS chooses instead, by dynamic programming, the set of
waiting jobs that uses the most nodes now while the head of the queue still starts at
its reserved time (:mod:`sitesim.schedulers.lookahead` states the problem, its exact
tie-break and why EASY's own scan is the answer whenever it reaches the optimum).

Choices (docs/schedulers.md gives the measurements behind them):

- The heads of the queue start in arrival order while they fit, as in EASY; the first
  that does not fit gets the reservation, and the program chooses among the jobs
  behind it. The paper also packs from the head when it fits (its Basic_DP), which may
  pass over the head; starting it keeps every EASY guarantee.
- The lookahead ``depth`` (``los:DEPTH``, default 50) bounds how many jobs behind the
  head the program sees, and with it the cost of a pass (``depth × free nodes`` steps).
  The jobs beyond it are still tried after the packing, one at a time as in EASY, with
  the nodes the packing left: a short lookahead never backfills from fewer jobs than
  EASY would (an earlier design that cut the queue at the depth made ``los:10`` far
  worse than EASY on KTH-SP2, a mean wait of 10,533 s against 6,890 s).
"""

from __future__ import annotations

from typing import Any

from sitesim.errors import InputError
from sitesim.schedulers.base import Scheduler, register
from sitesim.schedulers.easy import EasyScheduler
from sitesim.schedulers.backfill import scan
from sitesim.schedulers.lookahead import bound, pack
from sitesim.schedulers.options import parse_options
from sitesim.workload.job import Job

#: Jobs behind the head that a pass considers by default.
DEPTH = 50


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"must be a whole number of jobs, got {text!r}") from None
    if value < 1:
        raise ValueError(f"must be at least 1, got {value}")
    return value


@register
class LosScheduler(EasyScheduler):
    """EASY with the backfill set chosen to use the most nodes (lookahead ``depth``)."""

    name = "los"
    summary = "lookahead optimizing scheduler (Shmueli & Feitelson 2005): EASY packing by dynamic programming; los:DEPTH"

    def __init__(self, nodes: int, depth: int = DEPTH) -> None:
        super().__init__(nodes)
        if depth < 1:
            raise InputError(f"los: the lookahead depth must be at least 1, got {depth}", field="--scheduler")
        self.depth = depth

    @classmethod
    def from_arg(cls, nodes: int, arg: str | None) -> Scheduler:
        """``los:DEPTH`` or ``los:depth=DEPTH`` (the form a site file's table gives)."""
        if arg is not None and "=" not in arg:
            arg = f"depth={arg}"
        return cls(nodes, **parse_options(cls.name, arg, {"depth": _depth}))

    @property
    def spec(self) -> str:
        return self.name if self.depth == DEPTH else f"{self.name}:{self.depth}"

    def select(self, candidates: list[Job], first: int, free: int, now: int, end_by: int,
               extra: int) -> tuple[list[int], int, int]:
        # The candidates are the queue in queue order (no backfill key), so the jobs
        # before ``first`` are the head and, in a pass resumed over arrivals, those the
        # last pass left. The lookahead counts from the head either way: a resumed pass
        # then chooses as a full one would, since every job left waiting by the last
        # packing can no longer start alone in the free or extra nodes it left.
        depth = max(0, self.depth - max(0, first - 1))
        window = candidates[first : first + depth]
        # EASY's scan first: its set is the answer whenever it meets the bound of the
        # optimum (sitesim.schedulers.lookahead), and then no program runs.
        taken, left, spare = scan(window, 0, free, now, end_by, extra, self._planned)
        if left:
            # Only a job that fits in the free nodes can be packed: the bound and the
            # program see those alone (in window order, so the program's lexicographic
            # tie-break picks the same set), which in a long queue are few. The scan
            # takes only jobs that fit, so when it took all of them its total is the
            # bound and no program can do better.
            fitting = [i for i, job in enumerate(window) if job.size <= free]
            if len(fitting) > len(taken):
                planned = self._planned
                sizes = [window[i].size for i in fitting]
                late = [now + planned[window[i].seq] > end_by for i in fitting]
                if free - left < bound(sizes, late, free, extra):
                    chosen = pack(sizes, late, free, extra)
                    taken = [fitting[k] for k in chosen]
                    left = free - sum(sizes[k] for k in chosen)
                    spare = extra - sum(sizes[k] for k in chosen if late[k])
        picked = [first + i for i in taken]
        free, extra = left, spare
        if free and len(candidates) > first + depth:
            more, free, extra = super().select(candidates, first + depth, free, now, end_by, extra)
            picked += more
        return picked, free, extra

    def report(self, window: int) -> dict[str, Any]:
        return {"los": {"depth": self.depth}}
