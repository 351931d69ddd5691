"""Loading the compiled twins of the schedulers' inner loops.

Two modules have compiled twins (Cython, built by ``pip install`` where a C compiler
is found; setup.py): ``_reservations`` (conservative backfilling's planned schedule)
and ``_backfill`` (EASY's backfill scans, plain and timed-run, and shadow time). Each
twin gives exactly the answers of its Python original, which stays the reference and
what runs where the twin was not built. Setting ``SITESIM_COMPILED=0`` in the environment makes every run
use the Python originals: the same schedules, slower; what the wheel check and
benchmarks use to set one against the other.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

#: Environment variable that, set to ``0``, keeps the compiled twins unused.
ENV = "SITESIM_COMPILED"


def twin(name: str) -> ModuleType | None:
    """The compiled module ``sitesim.schedulers.<name>``, or None where it was not built
    or ``SITESIM_COMPILED=0`` turns the twins off."""
    if os.environ.get(ENV, "").strip() == "0":
        return None
    module = f"sitesim.schedulers.{name}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name != module:  # built, but something it imports is gone: say so
            raise
        return None
