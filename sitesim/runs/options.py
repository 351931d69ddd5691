"""Every run option, declared once.

An :class:`Option` is one setting of a run: its name, what kind of value it takes (type,
unit, limits), its help, which runs use it (site-level, replay or both), its default in
each, and whether a sweep may vary it. Everything a person types is derived from
:data:`OPTIONS`, so the surfaces cannot drift apart:

- the command line's flags (``--NAME``, with ``-``), their help and their parsing
  (:func:`add_arguments`);
- a site file's keys and their types (:mod:`sitesim.runs.sitefile`);
- the Python API's keywords (:func:`sitesim.simulate`, :func:`sitesim.replay`);
- a sweep's axes and a study's settings (:mod:`sitesim.sweep.grid`, ``study.toml``);
- the configuration records, whose fields are the option names and whose checks are
  the options' own (:class:`~sitesim.runs.site.SiteConfig`,
  :class:`~sitesim.runs.replay.ReplayConfig`), and so ``summary.json``'s ``config``.

Units: a person gives durations in days everywhere; a configuration stores them in
whole seconds (the engine's clock), and :meth:`Option.convert` is the one conversion.

Why a table rather than one attrs class per surface: the same option has five readers
(text from a shell, TOML values, Python values, a grid of values, a study file), and
before this table each of them re-stated the name, the default and the limits, and
they had drifted (a site file could not set ``adaptive``, the command line not
``runtime_scale``, a sweep not ``empirical``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from attrs import define

from sitesim.errors import InputError
from sitesim.limits import (
    MAX_JOBS, MAX_LOAD_FACTOR, MAX_NODES, MAX_PROCESSORS_PER_NODE, MAX_RUNTIME_SCALE, MAX_SECONDS, MAX_USERS,
    MIN_LOAD_FACTOR, MIN_RUNTIME_SCALE, check_number, check_range, check_seed, years,
)

SITE = "site"
REPLAY = "replay"
MODES = (SITE, REPLAY)
DAY = 86_400


class Kind:
    """What values an option takes: how text is read, and how a value is checked.

    ``check`` takes the value as a person gives it (days for a duration) and returns
    the value the configuration stores (seconds); it raises an :class:`InputError`
    naming the option. ``parse`` reads command-line text (argparse's ``type``).
    """

    #: The unit a person gives the value in ('' for names and counts without one).
    unit: str = ""
    #: A word for the command line's metavar.
    metavar: str = "VALUE"

    def parse(self, text: str) -> Any:
        return text

    def check(self, name: str, value: Any) -> Any:
        raise NotImplementedError

    def stored(self, name: str, value: Any) -> Any:
        """Check a value as the configuration stores it (seconds for a duration)."""
        return self.check(name, value)


@define(frozen=True, slots=True)
class Whole(Kind):
    """A whole number in ``low..high``."""

    low: int
    high: int
    unit: str
    metavar: str = "N"

    def parse(self, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None

    def check(self, name: str, value: Any) -> int:
        check_range(name, value, self.low, self.high, self.unit)
        return int(value)


@define(frozen=True, slots=True)
class Seed(Kind):
    """A non-negative whole number: every random draw of a run derives from it."""

    metavar: str = "S"

    def parse(self, text: str) -> int:
        return Whole(0, 0, "").parse(text)

    def check(self, name: str, value: Any) -> int:
        check_seed(name, value)
        return int(value)


@define(frozen=True, slots=True)
class Number(Kind):
    """A finite real number in ``low..high`` (a fraction: 0..1)."""

    low: float
    high: float
    unit: str = ""
    metavar: str = "X"

    def parse(self, text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None

    def check(self, name: str, value: Any) -> float:
        return check_number(name, value, self.low, self.high, self.unit)


@define(frozen=True, slots=True)
class Days(Kind):
    """A span of simulated time, given in days, stored in whole seconds."""

    unit: str = "days"
    metavar: str = "DAYS"

    def parse(self, text: str) -> float:
        return Number(0, 0).parse(text)

    def check(self, name: str, value: Any) -> int:
        high = MAX_SECONDS / DAY
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"must be a number of days, got {value!r}", field=name)
        if not (math.isfinite(value) and 0 < value <= high) or round(value * DAY) < 1:
            raise InputError(f"must be a number of days above 0 and at most {high:,.0f} ({years(MAX_SECONDS)}),"
                             f" got {value:.6g}", field=name)
        return round(value * DAY)

    def stored(self, name: str, value: Any) -> int:
        check_range(name, value, 1, MAX_SECONDS, f"seconds ({years(MAX_SECONDS)})")
        return int(value)


@define(frozen=True, slots=True)
class Text(Kind):
    """A name (a registered spec such as ``easy`` or ``timed:easy:300``) or a path; what
    it names is checked by the configuration that uses it."""

    what: str = "a name"
    metavar: str = "NAME"

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise InputError(f"must be {self.what}, got {value!r}", field=name)
        return value


@define(frozen=True, slots=True)
class Choice(Kind):
    """One of a few fixed words."""

    choices: tuple[str, ...]
    metavar: str = "MODE"

    def check(self, name: str, value: Any) -> str:
        if value not in self.choices:
            raise InputError(f"unknown value {value!r} (known: {', '.join(self.choices)})", field=name)
        return str(value)


@define(frozen=True, slots=True)
class Switch(Kind):
    """On or off (a command-line flag without a value)."""

    def check(self, name: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise InputError(f"must be true or false, got {value!r}", field=name)
        return value


@define(frozen=True, slots=True)
class Option:
    """One run option (see the module doc)."""

    #: The one name: the configuration field, the site-file key, the Python keyword,
    #: the sweep axis and the study key; the flag is ``--`` and the name with ``-``.
    name: str
    kind: Kind
    help: str
    #: The runs that use it: ``site``, ``replay`` or both.
    modes: tuple[str, ...]
    #: Default in each mode that uses it (None: unset, e.g. no job limit; missing: the
    #: option must be given, as a replay's trace).
    defaults: Mapping[str, Any]
    #: A short flag (``-u``) and older spellings still accepted (``--jobs`` for
    #: ``--max-jobs``; ``duration_days`` in site files).
    short: str | None = None
    aliases: tuple[str, ...] = ()
    #: Whether a sweep (and so a study) may vary it.
    sweep: bool = True
    #: Whether None is a value a person may give (a replay's machine size: the trace's).
    optional: bool = False
    #: The command-line flag's value when it is given alone (``nargs='?'``); None: the
    #: flag needs a value.
    const: Any = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def default(self, mode: str) -> Any:
        return self.defaults.get(mode)

    def convert(self, value: Any) -> Any:
        """The stored value of a value a person gave (checked; days become seconds)."""
        if value is None and self.optional:
            return None
        return self.kind.check(self.name, value)

    def check_stored(self, value: Any, mode: str) -> Any:
        """Check a configuration's stored value (the records' validation): None only
        where it means something in that kind of run (no job limit; a replay's machine
        size from its trace; a duration of None, until the job limit, which the record
        checks is set)."""
        if value is None and (self.optional or self.defaults.get(mode, 0) is None):
            return None
        return self.kind.stored(self.name, value)

    def unit(self) -> str:
        return self.kind.unit


def _both(value: Any) -> dict[str, Any]:
    return {SITE: value, REPLAY: value}


_SITE_ONLY = (SITE,)
_REPLAY_ONLY = (REPLAY,)
_BOTH = MODES

OPTIONS: tuple[Option, ...] = (
    # Both kinds of run.
    Option("scheduler", Text(what="a policy name", metavar="POLICY"), "scheduling policy", _BOTH,
           _both("fcfs"), short="-s"),
    Option("estimates", Text(metavar="MODEL"), "runtime estimates", _BOTH,
           {SITE: "exact", REPLAY: "trace"}),
    Option("nodes", Whole(1, MAX_NODES, "nodes"), "machine size (replay: the trace header's MaxProcs/MaxNodes"
           " when not given; its MaxNodes with processors_per_node)", _BOTH, {SITE: 128, REPLAY: None}),
    Option("seed", Seed(), "the run's seed: every random draw derives from it", _BOTH, _both(0)),
    Option("processors_per_node", Whole(1, MAX_PROCESSORS_PER_NODE, "processors"), "the machine's nodes are"
           " given whole to jobs, this many processors each: a replayed log's sizes (processors) become nodes,"
           " ceil(size / N), when its header declares N per node (a log in nodes, MaxNodes = MaxProcs, is not"
           " divided); a site's sizes already are nodes (sitesim fit writes it; docs/service.md)", _BOTH,
           _both(1)),
    # Site-level runs: the users.
    Option("users", Whole(1, MAX_USERS, "users"), "number of simulated users", _SITE_ONLY, {SITE: 10},
           short="-u"),
    Option("submittal", Text(metavar="MODEL"), "users' submittal model", _SITE_ONLY, {SITE: "batch"}, short="-m"),
    Option("workpool", Text(metavar="POOL"), "users' workpool model", _SITE_ONLY, {SITE: "plain"}, short="-w"),
    Option("duration", Days(), "simulated days (unlimited with max_jobs alone)", _SITE_ONLY,
           {SITE: 365 * DAY}, aliases=("duration_days",), optional=True),
    Option("max_jobs", Whole(1, MAX_JOBS, "jobs"), "stop submitting after this many jobs (and run until"
           " they end)", _SITE_ONLY, {SITE: None}, aliases=("jobs",)),
    Option("empirical", Text(what="a table name or a .json file"), "empirical tables: empirical/NAME.json,"
           " or a .json file", _SITE_ONLY, {SITE: "combined"}),
    Option("size_mapping", Text(metavar="MAPPING"), "how measured sizes map onto this machine: clip, scale or"
           " truncate (docs/models.md)", _SITE_ONLY, {SITE: "scale"}),
    Option("runtime_scale", Number(MIN_RUNTIME_SCALE, MAX_RUNTIME_SCALE), "calibration: every drawn runtime"
           " is multiplied by this (the paper site's 0.66; docs/fidelity.md)", _SITE_ONLY, {SITE: 0.66}),
    Option("population", Text(what="a path", metavar="JSON"), "a fitted population (population.json of"
           " sitesim fit): the users are resampled from it", _SITE_ONLY, {SITE: None}),
    Option("adaptive", Number(0.0, 1.0, metavar="FRACTION"), "share of the users who submit moldable jobs"
           " sized by moldable_policy (docs/moldable.md)", _SITE_ONLY, {SITE: 0.0}),
    Option("moldable_policy", Text(metavar="POLICY"), "how adaptive users' moldable jobs choose their size",
           _SITE_ONLY, {SITE: "gas"}),
    # Replays.
    Option("trace", Text(what="a path", metavar="SWF"), "the SWF trace to replay (.swf or .swf.gz), open"
           " model", _REPLAY_ONLY, {}, short="-c", aliases=("conventional",)),
    Option("load_factor", Number(MIN_LOAD_FACTOR, MAX_LOAD_FACTOR), "inter-arrival times x 1/X (X > 1 raises"
           " the load)", _REPLAY_ONLY, {REPLAY: 1.0}),
    Option("failures", Choice(("trace", "none")), "trace: status-0 jobs fail at their recorded runtime;"
           " none: they complete (docs/failures.md)", _REPLAY_ONLY, {REPLAY: "trace"}),
    Option("feedback", Text(metavar="STARTS"), "replay with feedback: each batch waits"
           " for the batch its user waited for, then the recorded think time; session starts keep their"
           " recorded times (absolute, the flag alone) or their gap (docs/feedback-replay.md)", _REPLAY_ONLY,
           {REPLAY: None}, optional=True, const="absolute"),
    Option("skip_malformed", Switch(), "skip and count malformed SWF lines instead of stopping", _REPLAY_ONLY,
           {REPLAY: False}, sweep=False),
)

_BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}
_BY_ALIAS: dict[str, Option] = {a: o for o in OPTIONS for a in o.aliases}


def option(name: str) -> Option:
    """The option called ``name`` (or one of its older spellings)."""
    found = _BY_NAME.get(name) or _BY_ALIAS.get(name)
    if found is None:
        raise KeyError(name)
    return found


def name_of(where: str) -> str:
    """The option a field of an error names, by its name or its flag (a registry's
    errors name the flag: ``--submittal``); other fields as they are."""
    if where.startswith("-"):
        for o in OPTIONS:
            if where in (o.flag, o.short) or where in ("--" + a.replace("_", "-") for a in o.aliases):
                return o.name
    return where


def options(mode: str | None = None) -> tuple[Option, ...]:
    """The options a mode uses, in declaration order (all without a mode)."""
    return tuple(o for o in OPTIONS if mode is None or mode in o.modes)


def names(mode: str | None = None) -> tuple[str, ...]:
    return tuple(o.name for o in options(mode))


def defaults(mode: str) -> dict[str, Any]:
    """Every option's default in ``mode``: the configuration records' defaults (options
    that must be given, as a replay's trace, have none)."""
    return {o.name: o.default(mode) for o in options(mode) if mode in o.defaults}


def default(name: str, mode: str) -> Any:
    """One option's default in ``mode`` (the records' field defaults use this)."""
    return _BY_NAME[name].default(mode)


def check_record(record: Any, mode: str) -> None:
    """Check every stored value of a configuration record against its option."""
    for o in options(mode):
        o.check_stored(getattr(record, o.name), mode)


def from_person(values: Mapping[str, Any], mode: str, *, where: Callable[[str], InputError] | None = None
                ) -> dict[str, Any]:
    """Stored values of options a person gave by name (a site file, Python keywords, a
    study): older spellings accepted, units converted, unknown names refused.

    ``where(name)``: the error to raise for an unknown name (default: one naming it).
    """
    known = names(mode)
    out: dict[str, Any] = {}
    for given, value in values.items():
        try:
            o = option(given)
        except KeyError:
            o = None
        if o is None or mode not in o.modes:
            if where is not None:
                raise where(given)
            other = "" if o is None else f" (it applies to {' and '.join(o.modes)} runs)"
            raise InputError(f"unknown option{other}; known: {', '.join(known)}", field=given)
        if o.name in out:
            raise InputError(f"given twice (as {o.name} and {given})", field=given)
        try:
            out[o.name] = o.convert(value)
        except InputError as exc:
            raise InputError(exc.message, path=exc.path, line=exc.line, field=given) from None
    return out


def describe(o: Option) -> str:
    """Help text with the runs that use it and the default, for ``--help``."""
    defaults = {m: person_value(o, o.defaults.get(m)) for m in o.modes}
    shown = set(map(str, defaults.values()))
    if shown == {"None"}:
        default = ""
    elif len(shown) == 1:
        default = f"; default {next(iter(shown))}"
    else:
        default = "; default " + ", ".join(f"{v} ({m})" for m, v in defaults.items() if v is not None)
    runs = f"{o.modes[0]}: " if len(o.modes) == 1 else ""
    return f"{runs}{o.help}{default}"


def person_value(o: Option, value: Any) -> Any:
    """A stored value in the unit a person gives it (days for a duration: a whole
    number of days as an int, so it reads back as written)."""
    if value is not None and isinstance(o.kind, Days):
        days = value / DAY
        return int(days) if days.is_integer() else days
    return value
