"""Registries: registering twice is harmless, redefinitions replace, module:Class specs."""

from __future__ import annotations

import pytest

from sitesim.errors import InputError
from sitesim.registry import Registry


class Base:
    name = "base"


def make() -> type[Base]:
    class Model(Base):
        name = "model"

    return Model


def test_register_twice_and_redefine() -> None:
    reg: Registry[type[Base]] = Registry("model", "--model", Base)
    first = make()
    assert reg.register(first) is first
    assert reg.register(first) is first  # the same class again: harmless
    again = make()  # same module and qualified name: a re-run notebook cell
    reg.register(again)
    assert reg.get("model") is again

    class Other(Base):
        name = "model"

    with pytest.raises(ValueError, match="registered twice"):
        reg.register(Other)


def test_module_class_specs() -> None:
    reg: Registry[type[Base]] = Registry("model", "--model", Base)
    cls, arg = reg.lookup("tests.test_registry:Base:7")
    assert cls is Base and arg == "7"
    assert reg.spec_of(Base) == "tests.test_registry:Base"
    with pytest.raises(InputError, match="unknown model 'nosuch.module:X'"):
        reg.lookup("nosuch.module:X")
    with pytest.raises(InputError, match="has no class Nope"):
        reg.lookup("tests.test_registry:Nope")
    with pytest.raises(InputError, match="is not a model"):
        reg.lookup("tests.test_registry:InputError")


def test_resolve_takes_a_name_or_a_class() -> None:
    reg: Registry[type[Base]] = Registry("model", "--model", Base)
    local = make()  # defined in a function: registered on the spot, then named
    assert reg.resolve(local) is local and reg.get("model") is local
    assert reg.resolve("model") is local
    assert reg.resolve(Base) is Base  # importable: by module:Class, not registered
    assert reg.names() == ["model"]
    with pytest.raises(InputError, match="is not a model"):
        reg.resolve(InputError)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown model 'nope'"):
        reg.resolve("nope")
