"""Limits on input values: beyond them a value is an input error, not a run.

Each bound is far above anything a real site or log needs, and low enough that a
typo (``--duration 1e20``, a runtime of 1e30 s) is refused at once instead of running
forever, exhausting memory or producing a load of 1e28 (docs/reliability.md).
"""

from __future__ import annotations

import math

from sitesim.errors import InputError

#: Simulated users in a site-level run: each costs about 16 KB (docs/reliability.md),
#: so a million users need ~16 GB before the first job.
MAX_USERS = 1_000_000
#: Nodes of a machine or partition (the largest machines have ~10 million cores).
MAX_NODES = 10_000_000
#: Processors of one node (``processors_per_node``: a log's sizes in processors become
#: nodes); no node has more processors than a machine may have nodes.
MAX_PROCESSORS_PER_NODE = MAX_NODES
#: Any simulated time, in seconds: a run's duration, and an SWF log's submit, wait,
#: run, requested and think times. 2**32 s is about 136 years, beyond any log (absolute
#: Unix times until 2106 fit too).
MAX_SECONDS = 2**32
#: Jobs a site-level run may be asked to submit (``--jobs``).
MAX_JOBS = 10**9
#: Times in the tables ``sitesim fit`` writes (empirical tables, populations): up to a
#: log's :data:`MAX_SECONDS`, which the tables' rounding to significant digits may lift
#: a little (4294967000 written as 4.2951e9), so twice that.
MAX_TABLE_SECONDS = 2 * MAX_SECONDS
#: Load factors of a replay (``--load-factor``): 1000 packs a year of arrivals into
#: nine hours; beyond, times overflow or every job arrives at once (1e300), and below
#: 1/1000 a year of arrivals would spread over a thousand years (1e-300: 1e302 s).
MIN_LOAD_FACTOR = 1e-3
MAX_LOAD_FACTOR = 1e3
#: A site's ``runtime_scale`` calibration (the paper site's is 0.66), by the same reasoning.
MIN_RUNTIME_SCALE = 1e-3
MAX_RUNTIME_SCALE = 1e3
#: Jobs in one batch, or repetitions of one job, drawn from an empirical table: the
#: shipped tables' largest are a few hundred; a table saying 10^12 would fill memory.
MAX_BATCH_JOBS = 100_000
#: Requested time over runtime, drawn from an empirical table (real logs: below ~10^3).
MAX_ESTIMATE_RATIO = 1e6
#: What the per-user values of a fitted population (``population.json``) may be, by key:
#: (lowest, highest). ``sitesim fit`` keeps its values within them (counting those it
#: capped) and a run refuses a table beyond them (sitesim/runs/population_check.py).
#: ``runs`` and ``jobs_in_order`` hold ``[size, runtime, ...]``: bounded as ``size`` and
#: ``runtime``.
POPULATION_BOUNDS: dict[str, tuple[float, float]] = {
    "thinks": (0, MAX_TABLE_SECONDS),
    "gaps": (0, MAX_TABLE_SECONDS),
    "gaps_operational": (0, MAX_TABLE_SECONDS),
    "absences": (0, MAX_TABLE_SECONDS),
    "waits_in_order": (0, MAX_TABLE_SECONDS),
    "widths": (1, MAX_BATCH_JOBS),
    "size": (1, MAX_NODES),
    "runtime": (0, MAX_TABLE_SECONDS),
}
#: Parts of the local day a fitted population deals its batches and absences by
#: (``day_parts``; docs/population.md, "Dealt by the hour"): at most one an hour.
MAX_DAY_PARTS = 24
#: Bytes of one line of a text input (an SWF or sacct log): real lines are about 100
#: bytes; without a cap, a file with no newline (``/dev/zero``) fills the memory.
MAX_LINE_BYTES = 1 << 20
#: Jobs that the pending array lines of one sacct log stand for (``1234_[1-1000]`` is a
#: thousand): a hundred arrays at Slurm's default ``MaxArraySize`` (1001). Each task
#: becomes an SWF job (about 500 bytes while converting: 10^6 took 40 s and 0.5 GB); a
#: line naming 10^8 tasks expanded for minutes before memory ran out.
MAX_ARRAY_TASKS = 100_000
#: Observations behind one value of an empirical table (its ``counts``, and ``n``): the
#: largest logs hold about 10^8 jobs; the counts are summed in 64 bits, so a count of
#: 10^300 overflowed instead of being refused.
MAX_OBSERVATIONS = 10**12
#: Bytes of a file read whole (site, partition, grid and study files, empirical tables,
#: fitted populations, moldable tables, sweep CSVs), decompressed: the population
#: ``sitesim fit`` writes for a log of a quarter of a million jobs is about 11 MB, so
#: the largest archive logs' fit in a few hundred MB. Lines of these files are held to
#: :data:`MAX_LINE_BYTES` as an SWF log's are, except a JSON table's, whose writer puts
#: each user's list on one line (sitesim/workload/files.py, ``read_document``).
MAX_DOCUMENT_BYTES = 1 << 30
#: Replications of each base seed in a sweep.
MAX_REPLICATIONS = 10_000
#: Runs in one sweep: each takes from a fraction of a second to hours, so 100,000 is
#: days of computing; the grid is checked before it is expanded (10^7 points in memory
#: ran out of it after a minute).
MAX_SWEEP_RUNS = 100_000


def years(seconds: int) -> str:
    """``136 years``: a limit in words for error messages."""
    return f"{seconds / (365 * 86_400):.0f} years"


def check_range(name: str, value: object, low: int, high: int, unit: str) -> None:
    """An input error naming ``name`` unless ``value`` is a whole number in low..high."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"must be a whole number, got {value!r}", field=name)
    if not low <= value <= high:
        raise InputError(f"must be in {low}..{high} {unit}, got {value}", field=name)


def check_number(name: str, value: object, low: float, high: float, unit: str = "") -> float:
    """``value`` as a float, or an input error naming ``name`` unless it is a finite
    real number (not a bool, not text) in low..high."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"must be a number, got {value!r}", field=name)
    number = float(value) if not isinstance(value, int) or abs(value) < 2**1023 else math.inf
    if not (math.isfinite(number) and low <= number <= high):
        raise InputError(f"must be a finite number in {low:g}..{high:g}{' ' + unit if unit else ''}, got {value!r}",
                         field=name)
    return number


def check_seed(name: str, value: object) -> None:
    """An input error naming ``name`` unless ``value`` is a whole number >= 0 (a seed
    of 1.5 or ``"a"`` would otherwise fail deep inside numpy)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"seeds are whole numbers, got {value!r}", field=name)
    if value < 0:
        raise InputError(f"seeds are non-negative, got {value}", field=name)
