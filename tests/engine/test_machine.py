"""Node accounting: a scheduler that over-allocates fails loudly, never silently."""

from __future__ import annotations

import pytest

from sitesim.engine.machine import Machine


def test_allocate_and_release() -> None:
    machine = Machine(8)
    machine.allocate(5)
    assert (machine.free, machine.busy) == (3, 5)
    machine.release(5)
    assert machine.free == 8


def test_over_allocation_and_over_release_raise() -> None:
    machine = Machine(4)
    machine.allocate(3)
    with pytest.raises(RuntimeError, match="over-allocated"):
        machine.allocate(2)
    with pytest.raises(RuntimeError, match="released more"):
        machine.release(4)


def test_machine_needs_a_node() -> None:
    with pytest.raises(ValueError):
        Machine(0)
