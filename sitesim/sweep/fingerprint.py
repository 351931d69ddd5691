"""The model fingerprint: which site model (or trace) a sweep row was made with.

A sweep point names users, scheduler, estimates, seed and so on, but not the model its
users draw from: site runs take the site model from :class:`~sitesim.runs.site.SiteConfig`'s
defaults (the ``paper`` site: the ``combined`` tables, ``size_mapping``,
``runtime_scale``), and replays take their jobs from a trace file. When that model
changes (a new calibration, re-extracted tables, a regenerated trace), rows already in a
CSV describe another model; resuming must not keep them. So every row carries a short
hash of its model's inputs, part of its key (docs/sweeps.md, "The model column").

The hash is of *content*, never of paths, times or machines, so it is the same in every
process and on every machine that has the same inputs:

- site runs: every :class:`SiteConfig` field that is not a sweep column (empirical,
  size_mapping, runtime_scale, ...), the parsed content of the empirical table and of
  the per-trace tables it carries (what :func:`sitesim.distributions.load_empirical`
  reads), and of a fitted population file;
- replays: the non-column :class:`~sitesim.runs.replay.ReplayConfig` fields and the
  trace's job lines (decompressed; a gzip header's timestamp does not count);
- both: the file a scheduler spec reads (``partitioned:FILE``; ``Scheduler.files``).

JSON and TOML files are hashed as parsed data written canonically (sorted keys), so
line endings or indentation do not matter, but any changed value does.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from sitesim.errors import InputError
from sitesim.inputs import open_bytes_read, read_document, read_document_bytes
from sitesim.sweep.grid import CONFIG_COLUMNS, Point, base_values

#: Hex digits kept: 48 bits, ample to tell a handful of models apart.
LENGTH = 12
#: Settings that are not the model: the fixed columns, and adaptive users (a sweep
#: over them varies the run, not the users' model). Every other setting is hashed,
#: swept or not, so a row names its model whatever else the sweep varies.
_NOT_MODEL = frozenset((*CONFIG_COLUMNS, "adaptive", "moldable_policy"))
#: Model settings added after sweeps were made, each with the value every earlier run
#: had: at it, a setting is left out of the hash (:func:`_model_fields`).
_ADDED_AT: dict[str, Any] = {"processors_per_node": 1}


def stamp(points: Iterable[Point]) -> list[Point]:
    """``points`` with their ``model`` set (points that have one keep it). Each distinct
    model is hashed once."""
    done: dict[tuple[Any, ...], str] = {}
    out = []
    for point in points:
        if point.model is None:
            inputs = _model_inputs(point)
            if inputs not in done:
                done[inputs] = digest(_describe(inputs))
            point = point.with_model(done[inputs])
        out.append(point)
    return out


def fingerprint(point: Point) -> str:
    """The model fingerprint of one point."""
    return digest(_describe(_model_inputs(point)))


def digest(document: Any) -> str:
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:LENGTH]


def site_model(config: Any) -> dict[str, Any]:
    """The model part of a :class:`SiteConfig`: its non-column fields, with the content of
    the files they name. Table and population files count by name and content, not by
    the path they were reached by, so a study rerun from another folder names the same
    runs."""
    fields = _model_fields(config)
    for name in ("empirical", "population"):
        value = fields.get(name)
        if isinstance(value, str) and (name == "population" or value.endswith(".json")):
            fields[name] = Path(value).name
    model: dict[str, Any] = {"config": fields, "tables": _tables(config.empirical)}
    from sitesim.runs.policy import policy_files

    machine = [_file_data(Path(f)) for f in policy_files(config.scheduler) if Path(f).is_file()]
    if machine:  # the site's machine as its policy reads it (a partitioned site's partitions)
        model["machine"] = machine
    if config.population is not None:
        model["population"] = _file_data(Path(config.population))
    return model


def _model_fields(config: Any) -> dict[str, Any]:
    """A run config's model fields (those not in :data:`_NOT_MODEL`). A setting at the
    value that was the model before the setting existed is left out, as the run's own
    summary leaves it out (``processors_per_node`` 1: one processor per node), so the
    rows of every sweep made before it keep their fingerprints."""
    fields = {f.name: _plain(getattr(config, f.name)) for f in attrs.fields(type(config)) if f.name not in _NOT_MODEL}
    for name, before in _ADDED_AT.items():
        if fields.get(name, before) == before:
            fields.pop(name, None)
    return fields


def _model_inputs(point: Point) -> tuple[Any, ...]:
    """What the fingerprint depends on, as a hashable tuple (before reading files): the
    mode, the trace of a replay, the file a ``NAME:FILE`` scheduler spec names."""
    from sitesim.runs.policy import policy_files

    files = [f for f in policy_files(point.scheduler) if Path(f).is_file()]
    scheduler_file = files[0] if files else None
    extra = tuple((k, v) for k, v in point.values if k not in _NOT_MODEL)
    return (point.mode, point.trace if point.mode != "site" else None, scheduler_file, point.site, extra)


def _describe(inputs: tuple[Any, ...]) -> dict[str, Any]:
    mode, trace, scheduler_file, site, extra = inputs
    document: dict[str, Any] = {"mode": mode}
    if mode == "site":
        from sitesim.runs.site import SiteConfig

        # The base (a site file, else the declared defaults) with the point's other settings.
        document["site"] = site_model(SiteConfig(**{**base_values(mode, site), **dict(extra)}))
    else:
        from sitesim.runs.replay import ReplayConfig

        config = ReplayConfig(trace=trace, **dict(extra))
        document["replay"] = _model_fields(config)
        document["trace"] = _trace_digest(Path(trace))
    if scheduler_file is not None:
        document["scheduler_file"] = _file_data(Path(scheduler_file))
    return document


def _tables(empirical: str) -> dict[str, Any]:
    """The parsed empirical table ``empirical`` and the per-trace tables it carries,
    found as :func:`sitesim.distributions.load_empirical` finds them."""
    from sitesim.distributions.model import empirical_directory

    if empirical.endswith(".json"):
        path: Any = Path(empirical)
        directory: Any = path.parent
    else:
        directory = empirical_directory()
        path = directory / f"{empirical}.json"
    if not path.is_file():  # the run itself reports the unknown table
        return {"missing": empirical}
    data = _parsed(path)
    tables = {"table": data}
    provenance = data.get("provenance", {}) if isinstance(data, dict) else {}
    names = [str(s.get("name")) for s in provenance.get("sources", []) if isinstance(s, dict)]
    for name in names:
        source = directory / f"{name}.json"
        if source.is_file():
            tables[f"source {name}"] = _parsed(source)
    return tables


def _parsed(path: Any) -> Any:
    """An empirical table as parsed data; one that cannot be read or parsed is named
    as such (the run itself then refuses it, in one line)."""
    try:
        return json.loads(read_document(path, "model", long_lines=True))
    except (InputError, ValueError):
        return {"unreadable": Path(str(path)).name}


def _file_data(path: Path) -> Any:
    """A model file as parsed data (JSON, TOML), else the hash of its bytes."""
    try:
        data = read_document_bytes(path, "model file", long_lines=True)
    except InputError:
        return {"missing": str(path)}
    try:
        if path.suffix == ".json":
            return json.loads(data.decode("utf-8"))
        if path.suffix == ".toml":
            return tomllib.loads(data.decode("utf-8"))
    except ValueError:
        pass
    return hashlib.sha256(data).hexdigest()


def _trace_digest(path: Path) -> str:
    """SHA-256 of a trace's text (gzip decompressed), read in blocks."""
    hasher = hashlib.sha256()
    try:
        with open_bytes_read(path, None) as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                hasher.update(block)
    except (OSError, EOFError, zlib.error):
        return f"unreadable {path.name}"
    return hasher.hexdigest()


def _plain(value: Any) -> Any:
    """JSON-ready form of a config value (partition records become dicts)."""
    if attrs.has(type(value)):
        return {k: _plain(v) for k, v in attrs.asdict(value, recurse=False).items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value
