"""Runtime functions of moldable jobs: Downey's speedup model and the accepted sizes.

A *moldable* job can run on any of several partition sizes, chosen once when it is
submitted (Cirne & Berman 1999, section 4.2: no resizing during the run). What an
application scheduler needs from it is a :class:`RuntimeFunction`: the accepted sizes
and the runtime on each.

Downey's speedup model (Downey 1997, "A model for speedup of parallel programs")
describes a program by its average parallelism ``A`` and the variance ``sigma`` of its
parallelism profile; the speedup ``S(n)`` on ``n`` processors is

- low variance (``sigma <= 1``):
  ``A n / (A + sigma (n - 1) / 2)`` for ``n <= A``,
  ``A n / (sigma (A - 1/2) + n (1 - sigma / 2))`` for ``A <= n <= 2A - 1``,
  ``A`` beyond;
- high variance (``sigma >= 1``):
  ``n A (sigma + 1) / (sigma (n + A - 1) + A)`` for ``n <= A + A sigma - sigma``,
  ``A`` beyond.

``S(n) <= n`` and ``S(n)/n`` never grows, so ``runtime(n) = T1 / S(n)`` never grows
with ``n`` and the work ``n * runtime(n)`` never shrinks (no superlinear speedup).

Runtimes are whole seconds, like every time in the simulator. Rounding each runtime up
on its own could break the work property for short jobs (4 x 2 s > 5 x 1 s), so the
whole-second runtimes are built over the accepted sizes in increasing order as the
smallest value that keeps both properties (:func:`whole_seconds`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from attrs import define, field

from sitesim.errors import InputError


def downey_speedup(n: np.ndarray | float, average: float, sigma: float) -> np.ndarray:
    """Downey's speedup ``S(n)`` for average parallelism ``average`` (A >= 1), ``sigma >= 0``."""
    if not (average >= 1 and math.isfinite(average)):
        raise ValueError(f"average parallelism must be at least 1, got {average}")
    if not (sigma >= 0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be non-negative, got {sigma}")
    n = np.asarray(n, dtype=float)
    a = float(average)
    if sigma <= 1:
        low = a * n / (a + sigma * (n - 1) / 2)
        mid = a * n / (sigma * (a - 0.5) + n * (1 - sigma / 2))
        s = np.where(n <= a, low, np.where(n <= 2 * a - 1, mid, a))
    else:
        knee = a + a * sigma - sigma
        s = np.where(n <= knee, n * a * (sigma + 1) / (sigma * (n + a - 1) + a), a)
    # The branches meet continuously; clip the rounding noise so S(n) <= n and S >= 1.
    return np.clip(s, 1.0, np.maximum(n, 1.0))


def whole_seconds(sizes: Sequence[int], seconds: Sequence[float] | np.ndarray) -> np.ndarray:
    """Whole-second runtimes for increasing ``sizes``: at least the model's, at least 1,
    never growing with the size, with ``size * runtime`` never shrinking.

    Greedy over the sizes: ``r_k = max(ceil(x_k), ceil(n_{k-1} r_{k-1} / n_k))``. The
    first term never exceeds ``r_{k-1}`` (the model's runtimes never grow), nor does the
    second, so ``r`` keeps both properties and is the least such rounding.
    """
    out = np.empty(len(sizes), dtype=np.int64)
    prev_work = 0
    for k, (n, x) in enumerate(zip(sizes, seconds)):
        r = max(1, math.ceil(x - 1e-9), -(-prev_work // n))
        out[k] = r
        prev_work = n * r
    return out


# -- size constraints ---------------------------------------------------------------
def _powers_of_two(nodes: int) -> list[int]:
    return [1 << k for k in range(nodes.bit_length()) if 1 << k <= nodes]


def _squares(nodes: int) -> list[int]:
    return [k * k for k in range(1, math.isqrt(nodes) + 1)]


def _any(nodes: int) -> list[int]:
    return list(range(1, nodes + 1))


#: The partition-size rules of the paper's NAS benchmarks (section 5.1): powers of two
#: (MG, LU), perfect squares (SP, BT), any size (EP). Name -> sizes on a machine.
SIZE_RULES: dict[str, Callable[[int], list[int]]] = {
    "pow2": _powers_of_two,
    "square": _squares,
    "any": _any,
}


def accepted_sizes(rule: str, nodes: int) -> list[int]:
    """The sizes rule ``rule`` accepts on a ``nodes``-node machine, increasing."""
    try:
        return SIZE_RULES[rule](nodes)
    except KeyError:
        known = ", ".join(SIZE_RULES)
        raise InputError(f"unknown size rule {rule!r} (known: {known})", field="rule") from None


@define(frozen=True, slots=True)
class RuntimeFunction:
    """A moldable job: the sizes it accepts (increasing) and its whole-second runtime on each."""

    sizes: tuple[int, ...]
    runtimes: tuple[int, ...]
    #: Where it came from (a model's parameters or a table's application name).
    label: str = ""
    _index: dict[int, int] = field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        if not self.sizes or len(self.sizes) != len(self.runtimes):
            raise ValueError("a runtime function needs one runtime per accepted size")
        if any(b <= a for a, b in zip(self.sizes, self.sizes[1:])) or self.sizes[0] < 1:
            raise ValueError(f"accepted sizes must be positive and increasing: {self.sizes}")
        if min(self.runtimes) < 1:
            raise ValueError("runtimes must be at least one second")
        object.__setattr__(self, "_index", {n: k for k, n in enumerate(self.sizes)})

    def runtime(self, n: int) -> int:
        """Seconds on ``n`` processors; ``n`` must be an accepted size."""
        return self.runtimes[self._index[n]]

    def accepts(self, n: int) -> bool:
        return n in self._index

    def capped(self, nodes: int) -> RuntimeFunction:
        """The same job on a machine of ``nodes`` nodes (sizes above it dropped)."""
        keep = [k for k, n in enumerate(self.sizes) if n <= nodes]
        if not keep:
            raise InputError(f"{self.label or 'job'}: no accepted size fits on {nodes} nodes")
        return self.subset(keep)

    def subset(self, keep: Sequence[int]) -> RuntimeFunction:
        """The same job accepting only the sizes at indices ``keep`` (increasing)."""
        if len(keep) == len(self.sizes):
            return self
        return RuntimeFunction(
            tuple(self.sizes[k] for k in keep), tuple(self.runtimes[k] for k in keep), self.label
        )


def downey_function(
    work: float, average: float, sigma: float, sizes: Sequence[int], label: str = ""
) -> RuntimeFunction:
    """Runtimes ``work / S(n)`` on ``sizes`` (``work`` = T1, the one-processor runtime)."""
    sizes = list(sizes)
    seconds = work / downey_speedup(np.asarray(sizes, dtype=float), average, sigma)
    return RuntimeFunction(tuple(sizes), tuple(int(r) for r in whole_seconds(sizes, seconds)), label)
