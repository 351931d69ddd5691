"""Named registries: extension by registering a class, never by editing an if/else.

Schedulers, estimate models, submittal models and workpool models are each a
:class:`Registry`, and so are what submits a run's jobs: trace sources and kinds of
site-level users (:mod:`sitesim.runs.trace_sources`, :mod:`sitesim.runs.user_kinds`).
A new kind of model is one class with a ``name`` (and a one-line ``summary`` for
``--help``), decorated with its registry's :meth:`Registry.register`.

A spec names a class as ``NAME`` or ``NAME:ARG`` (registered classes), or as
``module:Class`` / ``module:Class:ARG``: a class any process can import, which is how
a parallel sweep's workers find user code (docs/api.md).
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar

from sitesim.errors import InputError

T = TypeVar("T", bound=type)


class Registry(Generic[T]):
    """Classes of one kind by name; unknown names are input errors listing the known."""

    def __init__(self, kind: str, option: str, base: type | None = None) -> None:
        self.kind = kind
        self.option = option
        #: Classes imported by ``module:Class`` must derive from this (if given).
        self.base = base
        self._classes: dict[str, T] = {}

    def register(self, cls: T) -> T:
        """Make ``cls`` available under its ``name``.

        Registering the same class again is harmless, and so is registering a new
        definition of it (same module and qualified name: a re-run notebook cell or a
        reloaded module), which replaces the old one. Another class under a taken name
        is an error.
        """
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise InputError(f"a {self.kind} class needs a non-empty string 'name'", field=self.option)
        old = self._classes.get(name)
        if old is not None and old is not cls and _qualified(old) != _qualified(cls):
            raise ValueError(
                f"{self.kind} name {name!r} registered twice ({_qualified(old)} and {_qualified(cls)})"
            )
        self._classes[name] = cls
        return cls

    def get(self, spec: str) -> T:
        """The class named by ``NAME`` or ``module:Class`` (no argument allowed)."""
        cls, arg = self.lookup(spec)
        if arg is not None:
            raise InputError(f"{self.kind} {spec!r} takes no argument", field=self.option)
        return cls

    def resolve(self, value: str | T) -> T:
        """The class a spec names (as :meth:`get`), or ``value`` itself when it is a class
        (checked as :meth:`spec_of` does, and registered there if it lives in ``__main__``)."""
        return self.get(value if isinstance(value, str) else self.spec_of(value))

    def lookup(self, spec: str) -> tuple[T, str | None]:
        """The class and argument named by ``NAME[:ARG]`` or ``module:Class[:ARG]``.

        The argument is None without one; errors quote the whole spec.
        """
        name, sep, arg = spec.partition(":")
        if name in self._classes:
            return self._classes[name], (arg if sep else None)
        if sep and arg:
            class_name, sep2, rest = arg.partition(":")
            return self._import(spec, name, class_name), (rest if sep2 else None)
        raise self._unknown(spec)

    def spec_of(self, cls: T) -> str:
        """The spec that names ``cls``: its registered name, else ``module:Class``.

        A class defined in ``__main__`` (a script or notebook) cannot be imported by
        another process, so it is registered here and named by its ``name``: it then
        works in this process (simulate, serial sweeps, forked workers).
        """
        name = getattr(cls, "name", None)
        if isinstance(name, str) and self._classes.get(name) is cls:
            return name
        if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
            self.register(cls)
            return str(getattr(cls, "name"))
        self._check_base(cls, f"{cls.__module__}:{cls.__qualname__}")
        return f"{cls.__module__}:{cls.__qualname__}"

    def names(self) -> list[str]:
        return sorted(self._classes)

    def items(self) -> dict[str, T]:
        return dict(sorted(self._classes.items()))

    def help(self) -> str:
        """``name: summary; ...`` for command-line help."""
        return "; ".join(f"{n}: {getattr(c, 'summary', '')}" for n, c in self.items().items())

    # -- internals -------------------------------------------------------------------
    def _unknown(self, spec: str) -> InputError:
        known = ", ".join(sorted(self._classes))
        return InputError(
            f"unknown {self.kind} {spec!r} (known: {known}; or module:Class)", field=self.option
        )

    def _import(self, spec: str, module: str, class_name: str) -> T:
        try:
            found: Any = importlib.import_module(module)
        except ImportError:
            raise self._unknown(spec) from None
        for part in class_name.split("."):
            found = getattr(found, part, None)
        if not isinstance(found, type):
            raise InputError(f"{spec!r}: module {module} has no class {class_name}", field=self.option)
        self._check_base(found, spec)
        return found  # type: ignore[return-value]

    def _check_base(self, cls: type, spec: str) -> None:
        if self.base is not None and not issubclass(cls, self.base):
            raise InputError(f"{spec!r} is not a {self.kind} (not a {self.base.__name__})", field=self.option)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
