"""A homogeneous space-shared machine: ``nodes`` nodes, each job gets ``size`` of them."""

from __future__ import annotations

from attrs import define, field


@define(slots=True)
class Machine:
    """Node accounting; over-allocation is a bug in a scheduler and fails loudly.

    Unless ``bounded`` is false: a service that is not a scheduler (every job given the
    wait it had in a log, sitesim/schedulers/hold.py) runs jobs whatever the nodes, and
    ``free`` may then go below zero. The site sets it from its scheduler's ``bounded``.
    """

    nodes: int
    bounded: bool = True
    free: int = field(init=False)

    def __attrs_post_init__(self) -> None:
        if self.nodes < 1:
            raise ValueError(f"a machine needs at least one node, got {self.nodes}")
        self.free = self.nodes

    @property
    def busy(self) -> int:
        return self.nodes - self.free

    def allocate(self, size: int) -> None:
        if size > self.free and self.bounded:
            raise RuntimeError(f"scheduler over-allocated: {size} nodes wanted, {self.free} free")
        self.free -= size

    def release(self, size: int) -> None:
        self.free += size
        if self.free > self.nodes:
            raise RuntimeError("released more nodes than the machine has")
