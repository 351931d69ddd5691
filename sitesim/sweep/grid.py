"""Sweep grids: which runs a sweep is made of, and the key that names each run.

A grid gives a list of values per parameter; the sweep is their Cartesian product,
taken per mode, over the parameters that mode uses (docs/sweeps.md):

- ``site`` runs vary users, submittal, workpool, scheduler, estimates, nodes,
  duration and seed;
- ``replay`` runs vary trace, load_factor, scheduler, estimates, nodes and seed.

Parameters a mode does not use are left empty (None, an empty CSV cell) rather than
multiplied in, so adding a trace to a mixed grid does not duplicate every site run.
A point's *key* is its config columns formatted as text, exactly as they are written
to the CSV; resuming compares keys, so formatting must never depend on the machine.
The key includes the fingerprint of the model the run draws from
(:mod:`sitesim.sweep.fingerprint`), which the sweep adds to every point before running.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from attrs import define, field

from sitesim.errors import InputError
from sitesim.limits import (
    MAX_LOAD_FACTOR, MAX_NODES, MAX_REPLICATIONS, MAX_SECONDS, MAX_SWEEP_RUNS, MAX_USERS, MIN_LOAD_FACTOR,
    check_range, years,
)

MODES = ("site", "replay")
DAY = 86_400

#: Config columns of the CSV, in order; ``seed`` last so groups of replications sort
#: together. ``model`` is the fingerprint of the site model or trace the run used
#: (:mod:`sitesim.sweep.fingerprint`): a row made with another model is another run.
CONFIG_COLUMNS: tuple[str, ...] = (
    "mode", "trace", "load_factor", "users", "submittal", "workpool",
    "scheduler", "estimates", "nodes", "duration", "model", "seed",
)
#: Config columns written only by sweeps that set them (adaptive users, docs/moldable.md),
#: so every other sweep's CSV keeps its columns and keys. A row's key holds their cells
#: only when non-empty.
OPTIONAL_COLUMNS: tuple[str, ...] = ("adaptive", "moldable_policy")
#: Estimate model when the grid names none: the paper's setting for each mode.
DEFAULT_ESTIMATES = {"site": "exact", "replay": "trace"}

Key = tuple[str, ...]


def format_cell(value: Any) -> str:
    """Canonical CSV text of a value: the same bytes on every machine and executor.

    Floats get 10 significant digits (``repr`` would also be exact, but noisy for
    human reading); whole floats are written without a decimal point so that a load
    factor of ``1`` and ``1.0`` name the same run.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) or hasattr(value, "__float__"):
        x = float(value)
        if math.isnan(x):
            return "nan"
        if x == 0.0:
            return "0"
        return format(x, ".10g")
    return str(value)


@define(frozen=True, slots=True)
class Point:
    """One run of a sweep; fields a mode does not use are None."""

    mode: str
    scheduler: str
    estimates: str
    seed: int
    nodes: int | None = None
    trace: str | None = None
    load_factor: float | None = None
    users: int | None = None
    submittal: str | None = None
    workpool: str | None = None
    duration: int | None = None
    #: Share of adaptive users and their request policy (site; None: not swept).
    adaptive: float | None = None
    moldable_policy: str | None = None
    #: Fingerprint of the model the run uses; set by :func:`~sitesim.sweep.runner.run_sweep`
    #: (:func:`sitesim.sweep.fingerprint.stamp`), None until then.
    model: str | None = None

    def key(self) -> Key:
        base = tuple(format_cell(getattr(self, c)) for c in CONFIG_COLUMNS)
        extra = tuple(format_cell(getattr(self, c)) for c in OPTIONAL_COLUMNS if getattr(self, c) is not None)
        return base + extra

    def cells(self) -> dict[str, str]:
        cells = {c: format_cell(getattr(self, c)) for c in CONFIG_COLUMNS}
        cells.update({c: format_cell(getattr(self, c)) for c in OPTIONAL_COLUMNS if getattr(self, c) is not None})
        return cells


def _tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _specs(kind: str, value: Any) -> tuple[Any, ...]:
    """A column of component specs: classes become the spec that names them (registered
    name, or ``module:Class`` that workers import; docs/api.md)."""
    from sitesim.runs.components import spec_of

    return tuple(v if v is None or isinstance(v, str) else spec_of(kind, v) for v in _tuple(value))


def _schedulers(value: Any) -> tuple[Any, ...]:
    return _specs("scheduler", value)


def _estimates(value: Any) -> tuple[Any, ...]:
    return _specs("estimates", value)


def _submittals(value: Any) -> tuple[Any, ...]:
    return _specs("submittal", value)


def _workpools(value: Any) -> tuple[Any, ...]:
    return _specs("workpool", value)


@define(frozen=True, slots=True)
class Grid:
    """Lists of values per parameter (a scalar is a one-value list); see the module doc."""

    mode: tuple[str, ...] = field(default=("site",), converter=_tuple)
    users: tuple[int, ...] = field(default=(10,), converter=_tuple)
    submittal: tuple[str, ...] = field(default=("batch",), converter=_submittals)
    workpool: tuple[str, ...] = field(default=("plain",), converter=_workpools)
    #: Specs; classes are turned into specs (a registered name, or ``module:Class``).
    scheduler: tuple[str, ...] = field(default=("fcfs",), converter=_schedulers)
    #: None: the mode's default (exact for site, trace for replay).
    estimates: tuple[str | None, ...] = field(default=(None,), converter=_estimates)
    seed: tuple[int, ...] = field(default=(0,), converter=_tuple)
    #: Each base seed s becomes s, s+1, ..., s+replications-1.
    replications: int = 1
    load_factor: tuple[float, ...] = field(default=(1.0,), converter=_tuple)
    trace: tuple[str, ...] = field(default=(), converter=_tuple)
    #: None: 128 for site runs, the trace header's machine size for replays.
    nodes: tuple[int | None, ...] = field(default=(None,), converter=lambda v: _nodes(v))
    #: Seconds, or text such as "3d" (see :func:`parse_duration`).
    duration: tuple[int, ...] = field(default=(365 * DAY,), converter=lambda v: _durations(v))
    #: Site: shares of adaptive users (docs/moldable.md); empty: not swept.
    adaptive: tuple[float, ...] = field(default=(), converter=_tuple)
    #: Site, with ``adaptive``: how adaptive users size their jobs (gas, static).
    moldable_policy: tuple[str, ...] = field(default=("gas",), converter=_tuple)

    def seeds(self) -> tuple[int, ...]:
        r = self.replications
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise InputError(f"replications must be a whole number, at least 1, got {r!r}",
                             field="replications")
        out = (s + r for s in self.seed for r in range(self.replications))
        return tuple(dict.fromkeys(out))

    def size(self) -> int:
        """How many runs the grid expands to at most (before duplicates are merged),
        computed without expanding it."""
        seeds = len(self.seed) * self.replications
        total = 0
        for mode in set(self.mode):
            if mode == "site":
                policies = len(self.moldable_policy) if self.adaptive else 1
                total += math.prod((len(self.users), len(self.submittal), len(self.workpool), len(self.scheduler),
                                    len(self.estimates), len(self.nodes), len(self.duration),
                                    max(len(self.adaptive), 1), policies, seeds))
            elif mode == "replay":
                total += math.prod((len(self.trace), len(self.load_factor), len(self.scheduler),
                                    len(self.estimates), len(self.nodes), seeds))
        return total

    def points(self) -> list[Point]:
        """The runs of this grid, validated, without duplicates, in grid order."""
        _validate(self)
        points: dict[Key, Point] = {}
        for mode in self.mode:
            for point in _expand_mode(self, mode):
                points.setdefault(point.key(), point)
        return list(points.values())


def _expand_mode(grid: Grid, mode: str) -> Iterator[Point]:
    seeds = grid.seeds()
    estimates = tuple(e or DEFAULT_ESTIMATES[mode] for e in grid.estimates)
    if mode == "site":
        from sitesim.runs.policy import machine_nodes

        adaptive: tuple[float | None, ...] = tuple(float(a) for a in grid.adaptive) or (None,)
        policies: tuple[str | None, ...] = grid.moldable_policy if grid.adaptive else (None,)
        for users, sub, pool, sched, est, n, dur, share, policy, seed in itertools.product(
            grid.users, grid.submittal, grid.workpool, grid.scheduler, estimates,
            grid.nodes, grid.duration, adaptive, policies, seeds,
        ):
            # A partitioned:FILE policy brings its machine, as on the command line.
            n = machine_nodes(sched, n) or 128
            yield Point(mode=mode, scheduler=sched, estimates=est, seed=seed, nodes=n,
                        users=users, submittal=sub, workpool=pool, duration=dur,
                        adaptive=share, moldable_policy=policy)
    else:
        for trace, lf, sched, est, size, seed in itertools.product(
            grid.trace, grid.load_factor, grid.scheduler, estimates, grid.nodes, seeds,
        ):
            yield Point(mode=mode, scheduler=sched, estimates=est, seed=seed, nodes=size,
                        trace=trace, load_factor=float(lf))


def _check_types(grid: Grid) -> None:
    """Each value has its parameter's type: ``users = [true]`` is not one user, and
    ``replications = [2]`` is not a number (TOML and flags give any type)."""
    whole = ("users", "seed", "duration")
    for name in whole:
        values = getattr(grid, name)
        if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
            raise InputError(f"must be whole numbers, got {list(values)}", field=name)
    if any(n is not None and (isinstance(n, bool) or not isinstance(n, int)) for n in grid.nodes):
        raise InputError(f"must be whole numbers or 'trace', got {list(grid.nodes)}", field="nodes")
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in grid.load_factor):
        raise InputError(f"must be numbers, got {list(grid.load_factor)}", field="load_factor")
    for name in ("mode", "submittal", "workpool", "scheduler", "trace"):
        values = getattr(grid, name)
        if any(not isinstance(v, str) or not v for v in values):
            raise InputError(f"must be non-empty names, got {list(values)}", field=name)
    if any(e is not None and (not isinstance(e, str) or not e) for e in grid.estimates):
        raise InputError(f"must be non-empty names, got {list(grid.estimates)}", field="estimates")
    r = grid.replications
    if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= MAX_REPLICATIONS:
        raise InputError(f"must be a whole number in 1..{MAX_REPLICATIONS}, got {r!r}", field="replications")
    for name in ("mode", "users", "submittal", "workpool", "scheduler", "estimates", "seed",
                 "load_factor", "nodes", "duration"):
        if not getattr(grid, name):
            raise InputError("needs at least one value", field=name)
    total = grid.size()
    if total > MAX_SWEEP_RUNS:
        raise InputError(f"the grid has {total:,} runs, more than the limit of {MAX_SWEEP_RUNS:,};"
                         " split it into several sweeps", field="grid")


def _validate(grid: Grid) -> None:
    """Every value is checked before any run: a typo fails the sweep at once, not each
    of its runs later (docs/sweeps.md)."""
    from sitesim.runs.policy import check_spec
    from sitesim.users import SUBMITTAL_MODELS, WORKPOOL_MODELS
    from sitesim.workload.estimates import make_estimates

    _check_types(grid)
    for mode in grid.mode:
        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r} (known: site, replay)", field="mode")
    if "replay" in grid.mode:
        from sitesim.workload.files import is_stream

        if not grid.trace:
            raise InputError("replay runs need at least one trace", field="trace")
        for trace in grid.trace:
            if is_stream(trace):  # workers open each trace again: a pipe is read only once
                raise InputError(f"{trace} is a pipe; a sweep re-reads its traces in every worker,"
                                 " so write the trace to a file first", field="trace")
            if not Path(trace).is_file():
                raise InputError(f"trace not found: {trace}", field="trace")
            _check_trace(trace)
    if "site" in grid.mode:
        for name, registry in (("submittal", SUBMITTAL_MODELS), ("workpool", WORKPOOL_MODELS)):
            for value in getattr(grid, name):
                try:
                    registry.get(value)
                except InputError as exc:
                    raise InputError(exc.message, field=name) from None
    for name in grid.scheduler:
        check_spec(name)  # unknown names, modules and bad arguments (e.g. timed:cons) fail here
    for spec in grid.estimates:
        if spec is None:
            continue
        model = make_estimates(spec)  # unknown names and bad arguments fail here
        if model.needs_trace and "site" in grid.mode:
            raise InputError(f"estimate model {spec!r} needs a trace: replay mode only",
                             field="estimates")
    if any(s < 0 for s in grid.seed):
        raise InputError(f"seeds are non-negative whole numbers, got {list(grid.seed)}",
                         field="seed")
    for name, values, high, unit in (
        ("users", grid.users, MAX_USERS, "users"),
        ("duration", grid.duration, MAX_SECONDS, f"seconds ({years(MAX_SECONDS)})"),
        ("nodes", [n for n in grid.nodes if n is not None], MAX_NODES, "nodes"),
    ):
        for value in values:
            check_range(name, value, 1, high, unit)
    if any(not (not isinstance(a, bool) and isinstance(a, (int, float)) and 0 <= a <= 1) for a in grid.adaptive):
        raise InputError(f"adaptive shares are fractions in [0, 1], got {list(grid.adaptive)}",
                         field="adaptive")
    if grid.adaptive:
        from sitesim.moldable.gas import REQUEST_POLICIES

        for policy in grid.moldable_policy:
            REQUEST_POLICIES.get(policy)
        if "site" in grid.mode and any(grid.adaptive):
            _check_adaptive(grid)
    if any(not (MIN_LOAD_FACTOR <= lf <= MAX_LOAD_FACTOR) for lf in grid.load_factor):
        raise InputError(f"load factors must be in {MIN_LOAD_FACTOR:g}..{MAX_LOAD_FACTOR:g},"
                         f" got {list(grid.load_factor)}", field="load_factor")


def _check_trace(trace: str) -> None:
    """A trace that cannot be opened, or whose first job line is not one (a binary file),
    fails the sweep before any run, not each of its runs later."""
    from sitesim.workload.swf import SwfReader

    with SwfReader(trace) as reader:
        next(iter(reader), None)


def _check_adaptive(grid: Grid) -> None:
    """A request policy that reads availability lists with a scheduler that exports none
    (``--adaptive`` with fcfs) is refused before any run, as the run itself would."""
    from types import SimpleNamespace

    from sitesim.moldable.gas import REQUEST_POLICIES
    from sitesim.moldable.view import AvailabilityView
    from sitesim.runs.policy import build_scheduler, machine_nodes

    for policy in grid.moldable_policy:
        if not REQUEST_POLICIES.get(policy).needs_availability:
            continue
        for sched, n in itertools.product(grid.scheduler, grid.nodes):
            nodes = machine_nodes(sched, n) or 128
            site = SimpleNamespace(scheduler=build_scheduler(sched, nodes), env=SimpleNamespace(now=0))
            AvailabilityView.of(site, f"--adaptive with moldable policy {policy}")  # type: ignore[arg-type]


GRID_KEYS = frozenset(a.name for a in Grid.__attrs_attrs__)  # type: ignore[attr-defined]


#: Grid parameters that only one mode uses: given for a grid without that mode, they
#: would be ignored in silence.
SITE_ONLY = ("users", "submittal", "workpool", "duration", "adaptive", "moldable_policy")
REPLAY_ONLY = ("trace", "load_factor")


def grid_from_mapping(spec: Mapping[str, Any], *, origin: str = "grid") -> Grid:
    """Build a grid from a TOML table or merged CLI flags; unknown keys are errors, and
    so are keys no run of the grid would use (``users`` in a replay-only grid,
    ``moldable_policy`` without ``adaptive``, ``nodes = "trace"`` without replay runs)."""
    unknown = sorted(set(spec) - GRID_KEYS)
    if unknown:
        raise InputError(f"unknown grid parameter(s): {', '.join(unknown)}"
                         f" (known: {', '.join(sorted(GRID_KEYS))})", path=origin)
    modes = set(_tuple(spec.get("mode", "site")))
    for mode, keys in (("site", SITE_ONLY), ("replay", REPLAY_ONLY)):
        given = [k for k in keys if k in spec]
        if given and mode not in modes and all(isinstance(m, str) for m in modes):
            raise InputError(f"applies to {mode} runs only, and this grid has none (mode: {', '.join(sorted(modes))})",
                             path=origin, field=given[0])
    if "moldable_policy" in spec and not spec.get("adaptive"):
        raise InputError("applies with adaptive (shares of adaptive users) only", path=origin,
                         field="moldable_policy")
    if "replay" not in modes and "trace" in _tuple(spec.get("nodes", ())):
        # (In a mixed grid it is each mode's default: the header's size, or 128.)
        raise InputError("'trace' (the trace header's size) applies to replay runs; site runs need a number",
                         path=origin, field="nodes")
    return Grid(**spec)


def _nodes(value: Any) -> tuple[int | None, ...]:
    """``"trace"`` (TOML, CLI) is the same as None: the trace header's machine size."""
    return tuple(None if v == "trace" else v for v in _tuple(value))


def _durations(value: Any) -> tuple[int, ...]:
    return tuple(parse_duration(v) for v in _tuple(value))


def parse_duration(value: Any) -> int:
    """Seconds from ``86400``, ``"3d"``, ``"12h"``, ``"90m"``, ``"1y"`` (365 days)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"bad duration {value!r} (seconds, or with s/m/h/d/w/y)", field="duration")
    if isinstance(value, int):
        return value
    text = str(value).strip().lower()
    units = {"s": 1, "m": 60, "h": 3600, "d": DAY, "w": 7 * DAY, "y": 365 * DAY}
    scale = units.get(text[-1:], None)
    number = text[:-1] if scale else text
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        raise InputError(f"bad duration {value!r} (seconds, or with s/m/h/d/w/y)",
                         field="duration") from None
    if not math.isfinite(seconds):
        raise InputError(f"duration {value!r} is not finite", field="duration")
    if seconds != int(seconds):
        raise InputError(f"duration {value!r} is not whole seconds", field="duration")
    return int(seconds)


def load_grid_toml(path: str | Path) -> dict[str, Any]:
    """The grid table of a TOML file: top level, or a ``[grid]`` table if there is one."""
    import tomllib

    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise InputError(f"cannot read grid file: {exc.strerror}", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}): TOML files are UTF-8", path=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"bad TOML: {exc}", path=str(path)) from None
    table = document.get("grid", document)
    if not isinstance(table, dict):
        raise InputError("[grid] must be a table", path=str(path))
    return table
