"""Schedulers and models as a configuration names them: spec, class or instance.

A configuration stores every component as a spec string (so it goes into
``summary.json`` and to sweep workers as is): a registered ``NAME[:ARG]``, or
``module:Class[:ARG]``. The Python API and sweep grids also take classes, turned into
the spec that names them here (:meth:`sitesim.registry.Registry.spec_of`), and, for a
single run, scheduler and estimate-model instances, used as they are.
"""

from __future__ import annotations

from typing import Any

from sitesim.errors import InputError
from sitesim.registry import Registry
from sitesim.schedulers.base import SCHEDULERS, Scheduler
from sitesim.users import SUBMITTAL_MODELS, WORKPOOL_MODELS
from sitesim.workload.estimates import ESTIMATE_MODELS, EstimateModel

#: Each kind of component: its registry, and the class of the instances a run accepts
#: (None: no instances, since every user needs a model of its own, seeded from its
#: own stream).
KINDS: dict[str, tuple[Registry[Any], type | None]] = {
    "scheduler": (SCHEDULERS, Scheduler),
    "estimates": (ESTIMATE_MODELS, EstimateModel),
    "submittal": (SUBMITTAL_MODELS, None),
    "workpool": (WORKPOOL_MODELS, None),
}


def resolve(kind: str, value: Any) -> tuple[str, Any]:
    """(spec, instance or None) for a component given as a spec, a class or an instance."""
    registry, instance_of = KINDS[kind]
    if isinstance(value, str):
        return value, None
    if isinstance(value, type):
        return registry.spec_of(value), None
    if instance_of is not None and isinstance(value, instance_of) and isinstance(value, (Scheduler, EstimateModel)):
        return value.spec, value
    allowed = "a name, a class or an instance" if instance_of is not None else (
        "a name or a class (each user gets its own instance)"
    )
    raise InputError(
        f"a {registry.kind} is given as {allowed}, not a {type(value).__name__}", field=registry.option
    )


def spec_of(kind: str, value: Any) -> str:
    """The spec of a component given as a spec or a class (what a sweep grid stores)."""
    registry, _ = KINDS[kind]
    if isinstance(value, str):
        return value
    if isinstance(value, type):
        return registry.spec_of(value)
    raise InputError(f"a sweep takes {registry.kind}s as names or classes, not a {type(value).__name__}",
                     field=kind)
