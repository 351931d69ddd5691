"""Loading the compiled twins of the inner loops.

Four modules are compiled twins (Cython, built by ``pip install`` where a C compiler
is found; setup.py): in ``sitesim.schedulers``, ``_reservations`` (conservative
backfilling's planned schedule), ``_backfill`` (EASY's backfill scan and shadow time) and
``_priority`` (the ordered queues of ``multifactor`` and ``creasy``); in
``sitesim.workload``, ``_swf`` (the SWF reader's usual line of 18 plain numbers). A
twin earns its place by a whole-run gain of at least 1.3x (docs/performance.md); LOS's
packing had a twin that did not, and is Python only. A twin gives exactly the answers
of its Python original, which stays the reference and what runs where the twin was not
built. This loader sits at the package's root because both layers that have twins use
it. Setting ``SITESIM_COMPILED=0`` in
the environment makes every run use the Python originals: the same schedules, slower;
what the wheel check and benchmarks use to set one against the other.

A compiled module is loaded only where it matches the size and hash its build recorded
beside it (:mod:`sitesim.twin_manifest`): a truncated ``.so`` killed the
process with SIGBUS while being loaded, before any exception could be caught.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import warnings
from pathlib import Path
from types import ModuleType

from sitesim.twin_manifest import problem

#: Environment variable that, set to ``0``, keeps the compiled twins unused.
ENV = "SITESIM_COMPILED"
#: How to build the twins again, for the message about a damaged one.
REBUILD = "python setup.py build_ext --inplace (a checkout) or pip install --force-reinstall sitesim"


class CompiledTwinWarning(RuntimeWarning):
    """A compiled twin exists but cannot be loaded (a truncated or foreign ``.so``)."""


def twin(name: str, package: str) -> ModuleType | None:
    """The compiled module ``<package>.<name>``, or None where it was not built or
    ``SITESIM_COMPILED=0`` turns the twins off.

    A twin that is there but cannot be loaded (a truncated file, one built for another
    Python, a library it needs gone) is not a reason to stop: the Python original gives
    the same schedules, so the run goes on with it, after a warning saying how to
    rebuild the twin. A compiled file is checked against its build's record before it
    is loaded (:func:`~sitesim.twin_manifest.problem`), since loading a
    truncated one kills the process instead of raising.
    """
    if os.environ.get(ENV, "").strip() == "0":
        return None
    module = f"{package}.{name}"
    reason: object
    try:
        spec = importlib.util.find_spec(module)
        if spec is None:  # not built: the Python original is the design
            return None
        damaged = _damaged(spec)
        if damaged is None:
            return importlib.import_module(module)
        reason = damaged
    except ModuleNotFoundError as missing:
        if missing.name == module:
            return None
        reason = missing
    except (ImportError, OSError) as exc:
        reason = exc
    warnings.warn(
        f"the compiled twin {module} cannot be loaded ({reason}); running the Python code"
        f" instead (the same schedules, slower). To rebuild it: {REBUILD}",
        CompiledTwinWarning, stacklevel=2,
    )
    return None


def _damaged(spec: importlib.machinery.ModuleSpec) -> str | None:
    """Why the compiled module ``spec`` finds must not be loaded (None for a sound one,
    or a module that is not compiled)."""
    if not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader) or spec.origin is None:
        return None
    return problem(Path(spec.origin))
