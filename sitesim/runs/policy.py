"""Which scheduler a configuration names: a registered policy, or partitions.

A configuration (site or replay) names its policy as ``NAME[:ARG]`` (the scheduler
registry), or describes a partitioned machine, either as a list of
:class:`~sitesim.schedulers.partitioned.PartitionSpec` or as ``partitioned:FILE``, the
``[[partitions]]`` of a TOML file. Reading that file is configuration, so it lives
here and not in :mod:`sitesim.schedulers`, which knows no file format.

A ``[[partitions]]`` table has ``name``, ``nodes``, optional ``scheduler`` (default
easy), ``max_size`` and ``max_estimate`` (seconds); unknown keys and wrong types are
input errors naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesim.errors import InputError
from sitesim.schedulers.base import Scheduler, available, check_scheduler, make_scheduler
from sitesim.schedulers.partitioned import (
    PARTITIONED,
    PartitionedScheduler,
    PartitionSpec,
    check_partitions,
    total_nodes,
)

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

#: Keys of one ``[[partitions]]`` table, their types, and whether they are required.
_PARTITION_KEYS: dict[str, tuple[type, bool]] = {
    "name": (str, True),
    "nodes": (int, True),
    "scheduler": (str, False),
    "max_size": (int, False),
    "max_estimate": (int, False),
}


def read_toml(path: str | Path | Traversable) -> dict[str, Any]:
    """A TOML file's tables; unreadable or invalid files are input errors naming it.

    ``path`` may also be a shipped file (:mod:`sitesim.resources`)."""
    import tomllib  # here, not at the top: a run without a site or partition file never reads TOML

    where = str(path)
    file = Path(path) if isinstance(path, str) else path
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read site file: {exc.strerror or exc}", path=where) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}): TOML files are UTF-8", path=where) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML: {exc}", path=where) from None


def parse_partitions(raw: Any, where: str) -> tuple[PartitionSpec, ...]:
    """Validated partition specs from a parsed ``partitions`` array of tables."""
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise InputError("must be an array of tables ([[partitions]])", path=where, field="partitions")
    specs = []
    for i, table in enumerate(raw, 1):
        for key, value in table.items():
            if key not in _PARTITION_KEYS:
                known = ", ".join(_PARTITION_KEYS)
                raise InputError(f"unknown key (known: {known})", path=where, field=f"partitions[{i}].{key}")
            expected = _PARTITION_KEYS[key][0]
            if isinstance(value, bool) or not isinstance(value, expected):
                raise InputError(
                    f"wrong type {type(value).__name__}", path=where, field=f"partitions[{i}].{key}"
                )
        missing = [k for k, (_t, required) in _PARTITION_KEYS.items() if required and k not in table]
        if missing:
            raise InputError(f"missing {', '.join(missing)}", path=where, field=f"partitions[{i}]")
        try:
            specs.append(PartitionSpec(**table))
        except InputError as exc:
            raise InputError(exc.message, path=where, field=f"partitions[{i}].{exc.field}") from None
    try:
        return check_partitions(specs)
    except InputError as exc:
        raise InputError(exc.message, path=where, field="partitions") from None


def load_partitions(path: str | Path) -> tuple[PartitionSpec, ...]:
    """Only the ``[[partitions]]`` of a TOML file (``--partitions``; other keys ignored)."""
    data = read_toml(path)
    if "partitions" not in data:
        raise InputError("no [[partitions]] in this file", path=str(path), field="partitions")
    return parse_partitions(data["partitions"], str(path))


def _partition_file(spec: str) -> str | None:
    """FILE of a ``partitioned:FILE`` spec; None for any other spec."""
    name, _sep, arg = spec.partition(":")
    if name != PARTITIONED:
        return None
    if not arg:
        raise InputError(f"scheduler {PARTITIONED!r} needs a file: -s {PARTITIONED}:FILE", field="--scheduler")
    return arg


def partitioned_nodes(scheduler: str) -> int | None:
    """The machine size a ``partitioned:FILE`` policy declares (its partitions' total),
    as ``--partitions FILE`` does; None for any other policy."""
    path = _partition_file(scheduler)
    return None if path is None else total_nodes(load_partitions(path))


def machine_nodes(scheduler: object, nodes: int | None, partitions: tuple[PartitionSpec, ...] = ()) -> int | None:
    """The machine size a configuration means, the one rule for the command line, the
    Python API and sweeps: ``nodes`` when given, else the partitions' total (``--partitions
    FILE``, or a ``partitioned:FILE`` policy), else None (the caller's default: 128, or a
    trace header's)."""
    if nodes is not None:
        return nodes
    if partitions:
        return total_nodes(partitions)
    return partitioned_nodes(scheduler) if isinstance(scheduler, str) else None


def check_policy(scheduler: str, partitions: tuple[PartitionSpec, ...]) -> None:
    """A configuration names ``partitioned`` as its scheduler exactly when it has partitions.

    Each partition names its own policy, so a machine-wide policy beside partitions
    would be ambiguous; both configurations call this in their validation.
    """
    if partitions and scheduler != PARTITIONED:
        raise InputError(
            f"scheduler {scheduler!r} given with partitions: each partition sets its own policy",
            field="--scheduler",
        )
    if scheduler == PARTITIONED and not partitions:
        raise InputError(
            f"scheduler {PARTITIONED!r} needs partitions (--partitions FILE or -s {PARTITIONED}:FILE)",
            field="--scheduler",
        )
    if partitions:
        check_partitions(partitions)


def check_spec(spec: str) -> None:
    """Raise the input error :func:`build_scheduler` would for ``spec`` alone (sweeps
    validate their grids with it before any run)."""
    path = _partition_file(spec)
    if path is not None:
        load_partitions(path)
    else:
        check_scheduler(spec)


def policy_names() -> list[str]:
    """Every name ``-s`` accepts: the registered policies, and ``partitioned``."""
    return sorted([*available(), PARTITIONED])


def policy_help() -> str:
    """``name: summary; ...`` of every policy, for ``sitesim -h``."""
    entries = {n: c.summary for n, c in available().items()}
    entries[PARTITIONED] = PartitionedScheduler.summary
    return "; ".join(f"{n}: {entries[n]}" for n in sorted(entries))


def check_machine(scheduler: Scheduler, nodes: int) -> None:
    """A ready-made scheduler must plan for the machine it is given."""
    if scheduler.nodes != nodes:
        raise InputError(
            f"the scheduler plans for {scheduler.nodes} nodes, the machine has {nodes}", field="--nodes"
        )


def build_scheduler(scheduler: str, nodes: int, partitions: tuple[PartitionSpec, ...] = ()) -> Scheduler:
    """The scheduler a configuration describes: a registered policy, or the partitions."""
    if not partitions:
        path = _partition_file(scheduler)
        if path is None:
            return make_scheduler(scheduler, nodes)
        partitions = load_partitions(path)
    total = total_nodes(partitions)
    if nodes != total:
        raise InputError(
            f"machine size {nodes} differs from the partitions' total {total}", field="--nodes"
        )
    return PartitionedScheduler(partitions)
