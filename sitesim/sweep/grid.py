"""Sweep grids: which runs a sweep is made of, and the key that names each run.

A grid is a base (a site file for site runs, or the declared defaults) and a list of
values for any option :mod:`sitesim.runs.options` declares sweepable, by its name and in
its unit (``duration`` in days, as everywhere a person types it). The sweep is their
Cartesian product, taken per mode over the options that mode uses (docs/sweeps.md):
options a mode does not use are left empty (None, an empty CSV cell) rather than
multiplied in, so adding a trace to a mixed grid does not duplicate every site run.

A point's *key* is its config columns formatted as text, exactly as they are written
to the CSV; resuming compares keys, so formatting must never depend on the machine.
The key includes the fingerprint of the model the run draws from
(:mod:`sitesim.sweep.fingerprint`), which the sweep adds to every point before running;
the base site file itself is not in the key, its content is (through the fingerprint),
so a sweep or study reached from another folder names the same runs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sitesim.errors import InputError
from sitesim.limits import MAX_REPLICATIONS, MAX_SWEEP_RUNS
from sitesim.runs import options

MODES = options.MODES
DAY = options.DAY

#: Config columns of the CSV, in order; ``seed`` last so groups of replications sort
#: together. ``model`` is the fingerprint of the site model or trace the run used
#: (:mod:`sitesim.sweep.fingerprint`): a row made with another model is another run.
CONFIG_COLUMNS: tuple[str, ...] = (
    "mode", "trace", "load_factor", "users", "submittal", "workpool",
    "scheduler", "estimates", "nodes", "duration", "model", "seed",
)
#: Every other sweepable option: a column written only by sweeps that vary it, so every
#: other sweep's CSV keeps its columns and keys. A row's key holds their cells only
#: when non-empty.
OPTIONAL_COLUMNS: tuple[str, ...] = tuple(o.name for o in options.OPTIONS if o.sweep and o.name not in CONFIG_COLUMNS)
#: The options a point of each mode always carries (filled from the base when not swept).
_FIXED = {mode: tuple(c for c in CONFIG_COLUMNS if c in options.names(mode)) for mode in MODES}
#: Estimate model when the grid names none: the declared default of each mode.
DEFAULT_ESTIMATES = {mode: options.default("estimates", mode) for mode in MODES}

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


class Point:
    """One run of a sweep: its mode, the stored value of every option it sets (the
    config columns of its mode, and the optional ones its grid varies), the base site
    file it starts from, and its model fingerprint. Options a mode does not use read as
    None (``point.users`` of a replay)."""

    __slots__ = ("mode", "values", "site", "model")

    def __init__(self, mode: str, scheduler: str | None = None, estimates: str | None = None,
                 seed: int | None = None, *, site: str | None = None, model: str | None = None,
                 **values: Any) -> None:
        given = {"scheduler": scheduler, "estimates": estimates, "seed": seed, **values}
        unknown = sorted(set(given) - set(options.names()))
        if unknown:
            raise TypeError(f"Point: unknown option(s) {', '.join(unknown)}")
        self.mode = mode
        #: (name, stored value) in declaration order; unset (None) options left out.
        self.values: tuple[tuple[str, Any], ...] = tuple(
            (name, given[name]) for name in options.names() if given.get(name) is not None
        )
        #: The base site file or shipped name (site runs; None: the declared defaults).
        self.site = site
        #: Fingerprint of the model the run uses; set by :func:`~sitesim.sweep.runner.run_sweep`
        #: (:func:`sitesim.sweep.fingerprint.stamp`), None until then.
        self.model = model

    def __getattr__(self, name: str) -> Any:
        if name in _OPTION_NAMES:
            return dict(self.values).get(name)
        raise AttributeError(name)

    def settings(self) -> dict[str, Any]:
        """The options this point sets, stored values by name."""
        return dict(self.values)

    def with_model(self, model: str) -> Point:
        return Point(self.mode, site=self.site, model=model, **self.settings())

    def _identity(self) -> tuple[Any, ...]:
        return (self.mode, self.values, self.site, self.model)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.values)
        return f"Point({self.mode!r}, {inner}, site={self.site!r}, model={self.model!r})"

    def __getstate__(self) -> tuple[Any, ...]:
        return self._identity()

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.mode, self.values, self.site, self.model = state

    def _cell(self, column: str) -> str:
        if column == "mode":
            return self.mode
        if column == "model":
            return format_cell(self.model)
        return format_cell(dict(self.values).get(column))

    def key(self) -> Key:
        base = tuple(self._cell(c) for c in CONFIG_COLUMNS)
        return base + tuple(cell for c in OPTIONAL_COLUMNS if (cell := self._cell(c)))

    def cells(self) -> dict[str, str]:
        cells = {c: self._cell(c) for c in CONFIG_COLUMNS}
        cells.update({c: cell for c in OPTIONAL_COLUMNS if (cell := self._cell(c))})
        return cells


_OPTION_NAMES = frozenset(options.names())


def _tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _axis(name: str, value: Any) -> tuple[Any, ...]:
    """One option's list of values as a grid holds them: component classes become the
    spec that names them (a registered name, or ``module:Class`` that workers import;
    docs/api.md), and ``nodes = "trace"`` is None (the trace header's size)."""
    values = _tuple(value)
    if name in ("scheduler", "estimates", "submittal", "workpool"):
        from sitesim.runs.components import spec_of

        return tuple(v if v is None or isinstance(v, str) else spec_of(name, v) for v in values)
    if name == "nodes":
        return tuple(None if v == "trace" else v for v in values)
    return values


class Grid:
    """A base and lists of values per option (a scalar is a one-value list); see the
    module doc. ``Grid(users=(5, 10), scheduler=("fcfs", "easy"), replications=3)``;
    ``site``: a site file or shipped name the site runs start from."""

    __slots__ = ("mode", "replications", "site", "axes")

    def __init__(self, mode: Any = ("site",), replications: Any = 1, site: str | None = None,
                 **axes: Any) -> None:
        unknown = sorted(set(axes) - _SWEPT_NAMES)
        if unknown:
            raise InputError(f"unknown grid parameter(s): {', '.join(unknown)}"
                             f" (known: {', '.join(sorted(GRID_KEYS))})")
        self.mode: tuple[str, ...] = _tuple(mode)
        self.replications = replications
        self.site = site
        #: Swept options: name -> values, as a person gives them (days).
        self.axes: dict[str, tuple[Any, ...]] = {}
        for given, value in axes.items():
            name = options.option(given).name
            if name in self.axes:
                raise InputError(f"given twice (as {name} and its older spelling)", field=given)
            self.axes[name] = _axis(name, value)

    def __getattr__(self, name: str) -> Any:
        """An axis as given, in the option's unit (days for ``duration``); an option the
        grid does not vary reads as its declared default, one value."""
        if name in _SWEPT_NAMES:
            o = options.option(name)
            if o.name in self.axes:
                return self.axes[o.name]
            return (options.person_value(o, o.defaults.get(options.SITE, o.defaults.get(options.REPLAY))),)
        raise AttributeError(name)

    def with_replications(self, replications: int) -> Grid:
        return Grid(self.mode, replications, self.site, **self.axes)

    @property
    def seed(self) -> tuple[int, ...]:
        return self.axes.get("seed", (0,))

    def seeds(self) -> tuple[int, ...]:
        r = self.replications
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise InputError(f"replications must be a whole number, at least 1, got {r!r}",
                             field="replications")
        out = (s + r for s in self.seed for r in range(self.replications))
        return tuple(dict.fromkeys(out))

    def swept(self, mode: str) -> list[str]:
        """The options this grid varies for ``mode``, in column order (seed aside)."""
        order = [c for c in CONFIG_COLUMNS if c in _OPTION_NAMES] + list(OPTIONAL_COLUMNS)
        return [n for n in order if n in self.axes and n != "seed" and mode in options.option(n).modes]

    def size(self) -> int:
        """How many runs the grid expands to at most (before duplicates are merged),
        computed without expanding it."""
        seeds = len(self.seed) * self.replications
        total = 0
        for mode in set(self.mode):
            if mode not in MODES:
                continue
            total += math.prod(len(self.axes[n]) for n in self.swept(mode)) * seeds
        return total

    def points(self) -> list[Point]:
        """The runs of this grid, validated, without duplicates, in grid order."""
        _validate(self)
        points: dict[Key, Point] = {}
        for mode in self.mode:
            for point in _expand_mode(self, mode):
                points.setdefault(point.key(), point)
        return list(points.values())


def site_values(site: str | None) -> dict[str, Any]:
    """What a site file sets (nothing without one)."""
    if site is None:
        return {}
    from sitesim.runs.sitefile import load_site_file

    return load_site_file(site)


def base_values(mode: str, site: str | None) -> dict[str, Any]:
    """The stored values a point of ``mode`` starts from: the declared defaults, then
    the site file's (site runs)."""
    return {**options.defaults(mode), **(site_values(site) if mode == options.SITE else {})}


def _expand_mode(grid: Grid, mode: str) -> Iterator[Point]:
    seeds = grid.seeds()
    site = site_values(grid.site) if mode == options.SITE else {}
    base = {**options.defaults(mode), **site}
    names = grid.swept(mode)
    axes = [tuple(v if v is None else options.option(n).convert(v) for v in grid.axes[n]) for n in names]
    for combination in itertools.product(*axes, seeds):
        values = dict(zip([*names, "seed"], combination))
        fixed: dict[str, Any] = {c: values.get(c, base.get(c)) for c in _FIXED[mode]}
        if mode == options.SITE:
            from sitesim.runs.policy import machine_nodes

            if "scheduler" not in values and "scheduler" in site:
                # The site's own policy: named by the site (whose content the model
                # fingerprint hashes), not by its path in the run's key.
                fixed["scheduler"] = None
            if "nodes" not in values:
                # A partitioned:FILE policy brings its machine, as on the command line.
                fixed["nodes"] = machine_nodes(values.get("scheduler"), None) or base["nodes"]
            elif fixed["nodes"] is None:
                fixed["nodes"] = base["nodes"]
            if "max_jobs" in values and "duration" not in values and "duration" not in site:
                fixed["duration"] = None  # until the jobs have ended, as on the command line
        optional: dict[str, Any] = {c: values[c] for c in OPTIONAL_COLUMNS if c in values}
        if "adaptive" in values:  # adaptive users' runs name their request policy, swept or not
            optional.setdefault("moldable_policy", base.get("moldable_policy"))
        yield Point(mode, site=grid.site if mode == options.SITE else None, **fixed, **optional)


def _check_types(grid: Grid) -> None:
    """The grid's own settings have their types (an option's values are checked by the
    option itself, by name)."""
    r = grid.replications
    if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= MAX_REPLICATIONS:
        raise InputError(f"must be a whole number in 1..{MAX_REPLICATIONS}, got {r!r}", field="replications")
    if any(not isinstance(m, str) or not m for m in grid.mode):
        raise InputError(f"must be non-empty names, got {list(grid.mode)}", field="mode")
    for name, values in grid.axes.items():
        if not values:
            raise InputError("needs at least one value", field=name)
    if grid.site is not None and (not isinstance(grid.site, str) or not grid.site):
        raise InputError(f"must be a site name or a file, got {grid.site!r}", field="site")
    total = grid.size()
    if total > MAX_SWEEP_RUNS:
        raise InputError(f"the grid has {total:,} runs, more than the limit of {MAX_SWEEP_RUNS:,};"
                         " split it into several sweeps", field="grid")


def _validate(grid: Grid) -> None:
    """Every value is checked before any run: a typo fails the sweep at once, not each
    of its runs later (docs/sweeps.md). Each value is checked by its option (type, unit,
    limits), then by a configuration built with it alone (names of policies and models)."""
    from sitesim.runs.policy import check_spec
    from sitesim.workload.estimates import make_estimates

    _check_types(grid)
    for mode in grid.mode:
        if mode not in MODES:
            raise InputError(f"unknown mode {mode!r} (known: site, replay)", field="mode")
    for name, values in grid.axes.items():
        o = options.option(name)
        for value in values:
            if not (value is None and name == "nodes"):
                o.convert(value)
    if "replay" in grid.mode:
        from sitesim.workload.files import is_stream

        if not grid.axes.get("trace"):
            raise InputError("replay runs need at least one trace", field="trace")
        for trace in grid.axes["trace"]:
            if is_stream(trace):  # workers open each trace again: a pipe is read only once
                raise InputError(f"{trace} is a pipe; a sweep re-reads its traces in every worker,"
                                 " so write the trace to a file first", field="trace")
            if not Path(trace).is_file():
                raise InputError(f"trace not found: {trace}", field="trace")
            _check_trace(trace)
    for spec in grid.axes.get("scheduler", ()):
        check_spec(spec)  # unknown names, modules and bad arguments (e.g. timed:cons) fail here
    for spec in grid.axes.get("estimates", ()):
        model = make_estimates(spec)  # unknown names and bad arguments fail here
        if model.needs_trace and "site" in grid.mode:
            raise InputError(f"estimate model {spec!r} needs a trace: replay mode only",
                             field="estimates")
    if "site" in grid.mode:
        _probe_site(grid)
        if any(grid.axes.get("adaptive", ())):
            _check_adaptive(grid)


def _probe_site(grid: Grid) -> None:
    """Each site-level value in a configuration of its own: unknown models, size
    mappings and request policies fail before any run, naming the grid parameter."""
    from sitesim.runs.site import SiteConfig

    base = base_values(options.SITE, grid.site)
    for name in grid.swept(options.SITE):
        if name in ("scheduler", "estimates", "nodes", "duration"):
            continue  # checked above, or only meaningful with the rest of the point
        for value in grid.axes[name]:
            try:
                SiteConfig(**{**base, name: options.option(name).convert(value)})
            except InputError as exc:
                if options.name_of(exc.field or "") == name:
                    raise InputError(exc.message, field=name) from None


def _check_trace(trace: str) -> None:
    """A trace that cannot be opened, or whose first job line is not one (a binary file),
    fails the sweep before any run, not each of its runs later."""
    from sitesim.workload.swf import SwfReader

    with SwfReader(trace) as reader:
        next(iter(reader), None)


def _check_adaptive(grid: Grid) -> None:
    """A request policy that reads availability lists with a scheduler that exports none
    (``--adaptive`` with fcfs) is refused before any run, as the run itself would: each
    distinct machine of the grid's adaptive site runs is built as the run builds it
    (its site's policy and size included)."""
    from types import SimpleNamespace

    from sitesim.moldable.gas import REQUEST_POLICIES
    from sitesim.moldable.view import AvailabilityView
    from sitesim.runs.policy import build_scheduler
    from sitesim.runs.sitefile import site_config

    base = site_values(grid.site)
    asked = set()
    for point in _expand_mode(grid, options.SITE):
        policy = dict(point.values).get("moldable_policy", base.get("moldable_policy", "gas"))
        if point.adaptive and REQUEST_POLICIES.get(policy).needs_availability:
            asked.add((point.scheduler, point.nodes, policy))
    machines = set()
    for scheduler, nodes, policy in asked:  # each distinct one once: a grid may have 10^5 points
        config = site_config(base, {"scheduler": scheduler, "nodes": nodes})
        machines.add((config.scheduler, config.nodes, policy))
    for scheduler, nodes, policy in sorted(machines):
        site = SimpleNamespace(scheduler=build_scheduler(scheduler, nodes), env=SimpleNamespace(now=0))
        AvailabilityView.of(site, f"--adaptive with moldable policy {policy}")  # type: ignore[arg-type]


_SWEPT_NAMES = frozenset([*(o.name for o in options.OPTIONS if o.sweep),
                           *(a for o in options.OPTIONS if o.sweep for a in o.aliases)])
GRID_KEYS = frozenset(["mode", "replications", "site", *(o.name for o in options.OPTIONS if o.sweep)])


def grid_from_mapping(spec: Mapping[str, Any], *, origin: str = "grid") -> Grid:
    """Build a grid from a TOML table or merged CLI flags; unknown keys are errors, and
    so are keys no run of the grid would use (``users`` in a replay-only grid,
    ``moldable_policy`` without ``adaptive``, ``nodes = "trace"`` without replay runs)."""
    unknown = sorted(set(spec) - GRID_KEYS - _SWEPT_NAMES)
    if unknown:
        raise InputError(f"unknown grid parameter(s): {', '.join(unknown)}"
                         f" (known: {', '.join(sorted(GRID_KEYS))})", path=origin)
    modes = set(_tuple(spec.get("mode", "site")))
    for key in spec:
        if key in GRID_KEYS - {"mode", "replications", "site"} or key in _SWEPT_NAMES:
            used = options.option(key).modes
            if all(isinstance(m, str) for m in modes) and not modes & set(used):
                mode = used[0]
                raise InputError(f"applies to {mode} runs only, and this grid has none"
                                 f" (mode: {', '.join(sorted(modes))})", path=origin, field=key)
    if "site" in spec and "site" not in modes:
        raise InputError("applies to site runs only, and this grid has none", path=origin, field="site")
    if "moldable_policy" in spec and not spec.get("adaptive"):
        raise InputError("applies with adaptive (shares of adaptive users) only", path=origin,
                         field="moldable_policy")
    if "replay" not in modes and "trace" in _tuple(spec.get("nodes", ())):
        # (In a mixed grid it is each mode's default: the header's size, or 128.)
        raise InputError("'trace' (the trace header's size) applies to replay runs; site runs need a number",
                         path=origin, field="nodes")
    return Grid(**spec)


def load_grid_toml(path: str | Path) -> dict[str, Any]:
    """The grid table of a TOML file: top level, or a ``[grid]`` table if there is one."""
    from sitesim.workload.tomlfile import read_toml

    document = read_toml(path, "grid file")
    table = document.get("grid", document)
    if not isinstance(table, dict):
        raise InputError("[grid] must be a table", path=str(path))
    return table
