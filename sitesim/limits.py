"""Limits on input values: beyond them a value is an input error, not a run.

Each bound is far above anything a real site or log needs, and low enough that a
typo (``--duration 1e20``, a runtime of 1e30 s) is refused at once instead of running
forever, exhausting memory or producing a load of 1e28 (docs/reliability.md).
"""

from __future__ import annotations

from sitesim.errors import InputError

#: Simulated users in a site-level run: each costs about 16 KB (docs/reliability.md),
#: so a million users need ~16 GB before the first job.
MAX_USERS = 1_000_000
#: Nodes of a machine or partition (the largest machines have ~10 million cores).
MAX_NODES = 10_000_000
#: Any simulated time, in seconds: a run's duration, and an SWF log's submit, wait,
#: run, requested and think times. 2**32 s is about 136 years, beyond any log (absolute
#: Unix times until 2106 fit too).
MAX_SECONDS = 2**32
#: Jobs a site-level run may be asked to submit (``--jobs``).
MAX_JOBS = 10**9
#: Bytes of one line of a text input (an SWF or sacct log): real lines are about 100
#: bytes; without a cap, a file with no newline (``/dev/zero``) fills the memory.
MAX_LINE_BYTES = 1 << 20
#: Replications of each base seed in a sweep.
MAX_REPLICATIONS = 10_000


def years(seconds: int) -> str:
    """``136 years``: a limit in words for error messages."""
    return f"{seconds / (365 * 86_400):.0f} years"


def check_range(name: str, value: object, low: int, high: int, unit: str) -> None:
    """An input error naming ``name`` unless ``value`` is a whole number in low..high."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"must be a whole number, got {value!r}", field=name)
    if not low <= value <= high:
        raise InputError(f"must be in {low}..{high} {unit}, got {value}", field=name)
