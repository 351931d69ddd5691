"""The empirical site model: load ``empirical/<name>.json`` for the simulator.

Directory resolution (first that applies): the ``directory`` argument, the
``SITESIM_EMPIRICAL`` environment variable, the tables shipped with the package (the
repository's top-level ``empirical/``, carried by the wheel; sitesim/resources.py).

Job sizes are stored as measured on the source machine (128, 338 or 100 nodes);
:meth:`EmpiricalModel.size_for_machine` maps them onto the simulated machine by one of
:data:`SIZE_MAPPINGS` (docs/models.md): clipping (larger jobs become full-machine
jobs), scaling by the fraction of the machine, or truncating (they are never drawn).
:meth:`EmpiricalModel.for_site` gives the tables as a site draws from them: sizes
mapped, runtimes multiplied by the site's named ``runtime_scale`` calibration.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import numpy as np
from attrs import define, evolve, field

from sitesim.distributions.empirical import (
    Distribution,
    SAMPLER_BLOCK,
    EmpiricalContinuous,
    EmpiricalDiscrete,
    distribution_from_dict,
    make_sampler,
)
from sitesim.errors import InputError
from sitesim.inputs import read_document
from sitesim.limits import MAX_BATCH_JOBS, MAX_ESTIMATE_RATIO, MAX_NODES, MAX_TABLE_SECONDS, check_range
from sitesim.resources import ENV, data_directory, describe

ENV_VAR = ENV["empirical"]
FORMAT = "sitesim-empirical"

#: Distribution fields of a model, in table order.
FIELDS: tuple[str, ...] = (
    "batch_width",
    "inter_submission",
    "think_time",
    "think_time_all",
    "size",
    "runtime",
    "run_size",
    "run_runtime",
    "repetitions",
    "estimate_ratio",
    "failed_runtime",
)
#: Fields that may be null (a trace without failed jobs has no failed runtimes).
OPTIONAL: frozenset[str] = frozenset({"failed_runtime"})
#: Rules mapping measured sizes onto the simulated machine (see size_for_machine).
SIZE_MAPPINGS: tuple[str, ...] = ("clip", "scale", "truncate")
#: Fields holding runtimes, multiplied by a site's runtime scale.
RUNTIME_FIELDS: tuple[str, ...] = ("runtime", "run_runtime", "failed_runtime")


@define(slots=True)
class EmpiricalModel:
    """Submission and workpool distributions measured on one or more traces.

    Submission: ``batch_width`` (jobs per batch), ``inter_submission`` (s between
    submits inside a batch), ``think_time`` (s from the end of a batch's last job to the
    next batch, within a session: [0, 1200]). Workpool: ``size``, ``runtime`` (per job),
    ``run_size``/``run_runtime`` (per distinct job, for use with ``repetitions``),
    ``estimate_ratio`` (requested/actual time), ``failed_runtime`` and
    ``status_fractions`` (failed, completed, partial, cancelled, other).
    """

    name: str
    batch_width: EmpiricalDiscrete
    inter_submission: Distribution
    think_time: Distribution
    think_time_all: Distribution
    size: EmpiricalDiscrete
    runtime: Distribution
    run_size: EmpiricalDiscrete
    run_runtime: Distribution
    repetitions: EmpiricalDiscrete
    estimate_ratio: Distribution
    failed_runtime: Distribution | None
    status_fractions: dict[str, float]
    #: Largest machine the sizes were measured on.
    source_machine_size: int | None
    summary: dict[str, Any] = field(factory=dict)
    provenance: dict[str, Any] = field(factory=dict)
    #: The per-trace tables a pooled table was built from (filled by load_empirical),
    #: for size mappings that depend on each job's own source machine.
    sources: tuple[EmpiricalModel, ...] = ()
    #: Size distributions already mapped onto a machine, shared by every user of a run
    #: (a run may have 100,000 users; each mapping is computed once).
    _mapped: dict[tuple[int, str, bool], EmpiricalDiscrete] = field(
        factory=dict, init=False, repr=False, eq=False
    )

    def distribution(self, name: str) -> Distribution:
        """The distribution called ``name`` (one of :data:`FIELDS`)."""
        if name not in FIELDS:
            raise InputError(f"unknown model field {name!r} (known: {', '.join(FIELDS)})")
        dist = getattr(self, name)
        if dist is None:
            raise InputError(f"model {self.name!r} has no data for {name!r}")
        return dist

    def size_for_machine(self, machine_size: int, rule: str = "clip", *, per_run: bool = False) -> EmpiricalDiscrete:
        """Size distribution on a ``machine_size``-node machine.

        ``clip``: sizes above the machine become ``machine_size``; ``truncate``: they
        are dropped and the rest renormalised; ``scale``: every size is multiplied by
        ``machine_size`` over the size of the machine it was measured on (rounded, at
        least 1), so a job keeps the fraction of the machine it used -- a pooled table
        scales each source's jobs by that source's machine. ``per_run`` maps
        ``run_size`` instead.
        """
        if machine_size < 1:
            raise InputError(f"machine size must be >= 1, not {machine_size}")
        key = (machine_size, rule, per_run)
        mapped = self._mapped.get(key)
        if mapped is not None:
            return mapped
        dist = self.run_size if per_run else self.size
        if rule == "clip":
            mapped = dist.clipped(machine_size)
        elif rule == "truncate":
            mapped = dist.truncated(machine_size)
        elif rule == "scale":
            mapped = self._scaled_sizes(machine_size, per_run)
        else:
            raise InputError(f"unknown size mapping rule {rule!r} (known: {', '.join(SIZE_MAPPINGS)})")
        self._mapped[key] = mapped
        return mapped

    def _scaled_sizes(self, machine_size: int, per_run: bool) -> EmpiricalDiscrete:
        own = self.run_size if per_run else self.size
        if not self.sources:
            if len(self.provenance.get("sources", [])) > 1:
                names = ", ".join(f"{src.get('name')}.json" for src in self.provenance["sources"])
                raise InputError(
                    f"model {self.name!r} pools several machines; scaling its sizes needs its source"
                    f" tables ({names}) beside it or in {ENV_VAR}, or size_mapping = \"clip\""
                )
            if not self.source_machine_size:
                raise InputError(f"model {self.name!r} does not record its machine size; cannot scale sizes")
            return own.rescaled(machine_size / self.source_machine_size, machine_size)
        parts = [src._scaled_sizes(machine_size, per_run) for src in self.sources]
        if sum(p.n for p in parts) != own.n:
            raise InputError(f"model {self.name!r} does not pool the observations of its source tables")
        values = np.concatenate([p.values for p in parts])
        counts = np.concatenate([p.counts for p in parts])
        uniq, inv = np.unique(values, return_inverse=True)
        return EmpiricalDiscrete(uniq, np.bincount(inv, weights=counts).astype(np.int64))

    def for_site(self, machine_size: int, size_mapping: str = "clip", runtime_scale: float = 1.0) -> EmpiricalModel:
        """The tables as a site draws from them: sizes mapped onto ``machine_size`` nodes,
        runtimes (also of failed jobs) multiplied by ``runtime_scale``.

        ``runtime_scale`` is a calibration, never a measurement: 1 leaves the measured
        runtimes untouched (the very same distribution objects).
        """
        scaled: dict[str, Any] = {}
        if runtime_scale != 1:
            for name in RUNTIME_FIELDS:
                dist = getattr(self, name)
                if dist is not None and not isinstance(dist, EmpiricalContinuous):
                    raise InputError(f"runtime scale needs empirical runtimes; {name!r} is {type(dist).__name__}")
                scaled[name] = None if dist is None else dist.scaled(runtime_scale)
        return evolve(
            self,
            size=self.size_for_machine(machine_size, size_mapping),
            run_size=self.size_for_machine(machine_size, size_mapping, per_run=True),
            source_machine_size=machine_size,
            sources=(),
            **scaled,
        )

    def fitted(self, name: str, family: str) -> Distribution:
        """A scipy.stats ``family`` fitted to field ``name`` (imports scipy lazily)."""
        from sitesim.distributions.parametric import fit_to_distribution

        return fit_to_distribution(family, self.distribution(name))

    def sampler(self, name: str, rng: np.random.Generator, block: int = SAMPLER_BLOCK) -> Callable[[], Any]:
        """Fast zero-argument scalar sampler for field ``name`` (see :func:`make_sampler`)."""
        return make_sampler(self.distribution(name), rng, block)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, where: str = "<dict>", allow_missing: bool = False
    ) -> EmpiricalModel:
        """Build a model from a parsed table; errors name ``where`` and the field.

        ``allow_missing`` accepts null distributions everywhere (analysis of a short
        trace, e.g. a simulation without asynchronous batches); the simulator's
        tables must be complete.
        """
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise InputError(f"not a {FORMAT} table (missing or wrong 'format')", path=where)
        dists = data.get("distributions")
        if not isinstance(dists, Mapping):
            raise InputError("missing 'distributions'", path=where)
        loaded: dict[str, Any] = {}
        for name in FIELDS:
            raw = dists.get(name)
            if raw is None:
                if name in OPTIONAL or allow_missing:
                    loaded[name] = None
                    continue
                raise InputError("missing distribution", path=where, field=name)
            try:
                loaded[name] = distribution_from_dict(raw, where=where)
            except InputError as exc:
                key = f"{name}.{exc.field}" if exc.field else name
                raise InputError(exc.message, path=where, field=key) from None
        for name in ("batch_width", "size", "run_size", "repetitions"):
            if loaded[name] is not None and not isinstance(loaded[name], EmpiricalDiscrete):
                raise InputError("must be a discrete distribution", path=where, field=name)
        for name, dist in loaded.items():
            if dist is not None:
                _check_values(name, dist, where)
        machine = data.get("source_machine_size")
        if machine is not None:
            try:
                check_range("source_machine_size", machine, 1, MAX_NODES, "nodes")
            except InputError as exc:
                raise InputError(exc.message, path=where, field=exc.field) from None
        try:
            fractions = {str(k): float(v) for k, v in dict(data.get("status_fractions", {})).items()}
            summary, provenance = dict(data.get("summary", {})), dict(data.get("provenance", {}))
            if not all(isinstance(src, Mapping) for src in provenance.get("sources", [])):
                raise ValueError("provenance sources must be tables")
        except (TypeError, ValueError) as exc:
            raise InputError(f"malformed table: {exc}", path=where) from None
        for key, value in fractions.items():
            if not 0 <= value <= 1:  # also NaN
                raise InputError(f"must be a fraction in [0, 1], got {value}", path=where,
                                 field=f"status_fractions.{key}")
        return cls(
            name=str(data.get("name", Path(where).stem)),
            status_fractions=fractions,
            source_machine_size=machine,
            summary=summary,
            provenance=provenance,
            **loaded,
        )


#: What each field's values may be: (lowest, highest, whole numbers only, unit). A table
#: beyond them (a negative size, a runtime of 10^30 s, a batch of 10^12 jobs) is refused
#: when it is loaded, instead of failing deep inside a run or running for ever.
VALUE_BOUNDS: dict[str, tuple[float, float, bool, str]] = {
    "batch_width": (1, MAX_BATCH_JOBS, True, "jobs"),
    "repetitions": (1, MAX_BATCH_JOBS, True, "runs"),
    "size": (1, MAX_NODES, True, "nodes"),
    "run_size": (1, MAX_NODES, True, "nodes"),
    "inter_submission": (0, MAX_TABLE_SECONDS, False, "s"),
    "think_time": (0, MAX_TABLE_SECONDS, False, "s"),
    "think_time_all": (-MAX_TABLE_SECONDS, MAX_TABLE_SECONDS, False, "s"),  # overlapping batches: negative
    "runtime": (0, MAX_TABLE_SECONDS, False, "s"),
    "run_runtime": (0, MAX_TABLE_SECONDS, False, "s"),
    "failed_runtime": (0, MAX_TABLE_SECONDS, False, "s"),
    "estimate_ratio": (0, MAX_ESTIMATE_RATIO, False, ""),
}


def _shown(value: float) -> str:
    """A bound or value as a message shows it: ``4294967296``, ``-1``, ``0.5``, ``nan``."""
    return f"{value:.0f}" if abs(value) < 1e15 and float(value).is_integer() else f"{value:g}"


def _check_values(name: str, dist: Distribution, where: str) -> None:
    """An input error naming the field unless its values lie within :data:`VALUE_BOUNDS`."""
    low, high, whole, unit = VALUE_BOUNDS[name]
    values = dist.values if isinstance(dist, EmpiricalDiscrete) else getattr(dist, "x", None)
    if values is None:
        return
    values = np.asarray(values, dtype=np.float64)
    bad = values[(values < low) | (values > high) | ~np.isfinite(values)]
    if bad.size:
        raise InputError(f"value {_shown(bad[0])} is outside {_shown(low)}..{_shown(high)} {unit}".rstrip(),
                         path=where, field=name)
    if whole and np.any(values != np.floor(values)):
        raise InputError("values must be whole numbers", path=where, field=name)


Directory = str | os.PathLike[str] | Traversable


def empirical_directory(directory: Directory | None = None) -> Traversable:
    """Where the tables are: argument, else ``$SITESIM_EMPIRICAL``, else the shipped ones."""
    if directory is None:
        return data_directory("empirical")
    if isinstance(directory, (str, os.PathLike)):
        return Path(directory)
    return directory


def known_models(directory: Directory | None = None) -> list[str]:
    """Names of the tables available in the resolved directory."""
    d = empirical_directory(directory)
    return sorted(p.name.removesuffix(".json") for p in d.iterdir() if p.name.endswith(".json")) if d.is_dir() else []


def load_empirical(name: str = "combined", directory: Directory | None = None) -> EmpiricalModel:
    """Load the empirical model ``name`` (e.g. combined, SDSC-SP2, CTC-SP2, KTH-SP2).

    A name ending in ``.json`` is the path of a table file (a fitted site's).
    """
    if name.endswith(".json"):
        return _load_table(Path(name))
    d = empirical_directory(directory)
    if not d.is_dir():
        raise InputError(
            f"empirical model directory not found (set {ENV_VAR} or pass directory=)", path=describe(d)
        )
    path = d / f"{name}.json"
    if not path.is_file():
        known = ", ".join(known_models(d)) or "none"
        raise InputError(f"unknown empirical model {name!r} (known: {known})", path=describe(d))
    return _load_table(path, d)


def _load_table(path: Path | Traversable, directory: Traversable | None = None) -> EmpiricalModel:
    """One table file; ``directory`` (default: the file's) holds its per-trace tables."""
    try:
        data = json.loads(read_document(path, "model", long_lines=True))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", path=str(path), line=exc.lineno) from None
    model = EmpiricalModel.from_dict(data, where=str(path))
    # A pooled table carries its per-trace tables along when they are present.
    # A copy of a pooled table (``--empirical my/combined.json``) finds them beside it,
    # else where the named tables are (SITESIM_EMPIRICAL, or the shipped ones); tables
    # that are not the ones pooled are refused when sizes are scaled (their counts differ).
    names = [str(src.get("name")) for src in model.provenance.get("sources", [])]
    if names and names != [model.name]:
        beside = directory if directory is not None else Path(str(path)).parent
        for d in (beside, empirical_directory()):
            if d.is_dir() and all((d / f"{n}.json").is_file() for n in names):
                model.sources = tuple(load_empirical(n, d) for n in names)
                break
    return model
