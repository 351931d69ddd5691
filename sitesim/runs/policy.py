"""Which scheduler a configuration names, and the machine it runs on.

A configuration names its policy as a spec, ``NAME[:ARG]`` (the scheduler registry).
Every policy is a registered class, composites included (``hold:BASE``,
``partitioned:FILE``), and each says through hooks what the run layer needs to know
of it: the machine size it declares (:meth:`~sitesim.schedulers.base.Scheduler.declared_nodes`),
its spec under another policy (``under``), the files it reads (``files``) and its
name in the paper's Table 2 (``label``). So this module, like the rest of the run
layer, never names a concrete policy.
"""

from __future__ import annotations

from sitesim.errors import InputError
from sitesim.schedulers.base import SCHEDULERS, Scheduler, available, check_scheduler, make_scheduler


def machine_nodes(scheduler: object, nodes: int | None) -> int | None:
    """The machine size a configuration means, the one rule for the command line, the
    Python API, site files and sweeps: ``nodes`` when given, else what the policy
    declares (``partitioned:FILE``: its partitions' total), else None (the caller's
    default: the site's, or a trace header's)."""
    if nodes is not None:
        return nodes
    if not isinstance(scheduler, str):
        return None
    cls, arg = SCHEDULERS.lookup(scheduler)
    return cls.declared_nodes(arg)


def check_spec(spec: str) -> None:
    """Raise the input error :func:`build_scheduler` would for ``spec`` alone (sweeps
    validate their grids with it before any run)."""
    check_scheduler(spec)


def under(spec: str, policy: str) -> str:
    """``spec``'s machine run under ``policy``: ``policy`` itself for a whole machine; a
    partitioned machine keeps its partitions and runs ``policy`` in each."""
    cls, arg = SCHEDULERS.lookup(spec)
    return cls.under(arg, policy)


def policy_label(spec: str) -> str:
    """The policy column of the paper's Table 2 for ``spec``."""
    cls, arg = SCHEDULERS.lookup(spec)
    return cls.label(arg) or spec


def needs_recorded_waits(spec: str) -> bool:
    """Whether ``spec`` serves jobs by their recorded waits (``hold``)."""
    cls, arg = SCHEDULERS.lookup(spec)
    return cls.needs_recorded_waits(arg)


def policy_files(spec: str) -> list[str]:
    """The files ``spec`` reads (a sweep's model fingerprint hashes them)."""
    cls, arg = SCHEDULERS.lookup(spec)
    return cls.files(arg)


def policy_names() -> list[str]:
    """Every name ``-s`` accepts."""
    return sorted(available())


def policy_help() -> str:
    """``name: summary; ...`` of every policy, for ``sitesim -h``."""
    return "; ".join(f"{n}: {c.summary}" for n, c in sorted(available().items()))


def check_machine(scheduler: Scheduler, nodes: int) -> None:
    """A ready-made scheduler must plan for the machine it is given."""
    if scheduler.nodes != nodes:
        raise InputError(
            f"the scheduler plans for {scheduler.nodes} nodes, the machine has {nodes}", field="--nodes"
        )


def build_scheduler(scheduler: str, nodes: int) -> Scheduler:
    """The scheduler a configuration names, for a machine of ``nodes`` nodes."""
    return make_scheduler(scheduler, nodes)
