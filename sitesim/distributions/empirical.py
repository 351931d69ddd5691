"""Empirical distributions: discrete (value counts) and continuous (quantile knots).

The site-level simulator draws batch widths, gaps, think times, sizes, runtimes and
repetition counts from distributions measured on real traces (Shmueli & Feitelson 2006
use the empirical data directly rather than fitted curves). Both kinds here sample by
inverse CDF from a caller-supplied :class:`numpy.random.Generator` -- never global RNG
state -- so a run is reproducible from its seed alone.

- :class:`EmpiricalDiscrete` keeps the exact observed values and their counts (batch
  widths, sizes, repetitions: small supports where every value matters, e.g. the
  power-of-two modes of job sizes).
- :class:`EmpiricalContinuous` keeps a piecewise-linear quantile function through
  ``(q_i, x_i)`` knots (times, ratios). Repeated ``x`` values are atoms (e.g. many
  zero-second gaps); between distinct knots the mass is spread uniformly.

Scalar draws in a simulation loop are dominated by numpy's per-call overhead, so
:func:`make_sampler` returns a plain callable that pops from a pre-drawn block.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sitesim.errors import InputError
from sitesim.limits import MAX_OBSERVATIONS

#: Digits kept for knot probabilities in JSON (deterministic, compact).
Q_DIGITS = 9
#: Significant digits kept for non-integer knot values in JSON.
X_SIGNIFICANT = 10


@runtime_checkable
class Distribution(Protocol):
    """What the simulator needs from any distribution (empirical or fitted)."""

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...] | None = None) -> Any: ...
    def mean(self) -> float: ...
    def quantile(self, q: ArrayLike) -> Any: ...
    def cdf(self, x: ArrayLike) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...


def _scalar_or_array(result: NDArray[Any], like: ArrayLike) -> Any:
    return result.item() if np.ndim(like) == 0 else result


def _round_x(value: float) -> int | float:
    """JSON form of a knot value: integers stay ints, others keep 10 significant digits."""
    f = float(value)
    if f.is_integer() and abs(f) < 2**53:
        return int(f)
    return float(f"{f:.{X_SIGNIFICANT}g}")


class EmpiricalDiscrete:
    """Distribution over a finite set of observed values, weighted by their counts."""

    __slots__ = ("values", "counts", "_cum", "_total", "_int")

    def __init__(self, values: ArrayLike, counts: ArrayLike) -> None:
        v = np.asarray(values)
        c = np.asarray(counts, dtype=np.int64)
        if v.ndim != 1 or v.shape != c.shape or v.size == 0:
            raise InputError("discrete distribution needs equal-length, non-empty values and counts")
        if np.any(c < 0) or c.sum() <= 0:
            raise InputError("discrete distribution counts must be >= 0 and not all zero")
        if not np.all(np.isfinite(v.astype(float))):
            raise InputError("discrete distribution values must be finite")
        order = np.argsort(v, kind="stable")
        v, c = v[order], c[order]
        if np.any(np.diff(v) == 0):
            raise InputError("discrete distribution values must be unique")
        keep = c > 0
        self.values: NDArray[Any] = v[keep]
        self.counts: NDArray[np.int64] = c[keep]
        self._cum = np.cumsum(self.counts)
        self._total = int(self._cum[-1])
        self._int = np.issubdtype(self.values.dtype, np.integer)

    @classmethod
    def from_samples(cls, data: ArrayLike) -> EmpiricalDiscrete:
        """Distribution of the observed values ``data`` (each observation counts once)."""
        arr = np.asarray(data)
        if arr.size == 0:
            raise InputError("cannot build a distribution from no observations")
        values, counts = np.unique(arr, return_counts=True)
        return cls(values, counts)

    @property
    def n(self) -> int:
        """Number of observations behind the distribution."""
        return self._total

    def probabilities(self) -> NDArray[np.float64]:
        return self.counts / self._total

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...] | None = None) -> Any:
        """Draw by inverse CDF on the integer count scale (exact for every value)."""
        k = rng.integers(0, self._total, size=size)
        idx = np.searchsorted(self._cum, k, side="right")
        out = self.values[idx]
        return out.item() if size is None else out

    def mean(self) -> float:
        return float(np.dot(self.values.astype(float), self.counts) / self._total)

    def quantile(self, q: ArrayLike) -> Any:
        """Smallest value ``v`` with ``cdf(v) >= q`` (``q`` in [0, 1])."""
        qa = np.asarray(q, dtype=float)
        if np.any((qa < 0) | (qa > 1)) or np.any(np.isnan(qa)):
            raise InputError("quantile probabilities must lie in [0, 1]")
        # counts are integers: forgive float error of q * total (cdf(v) * total may
        # land a hair above the integer cumulative count of v)
        idx = np.searchsorted(self._cum, qa * self._total - 1e-9, side="left")
        idx = np.clip(idx, 0, self.values.size - 1)
        return _scalar_or_array(self.values[idx], q)

    def cdf(self, x: ArrayLike) -> Any:
        """P(X <= x)."""
        xa = np.asarray(x, dtype=float)
        idx = np.searchsorted(self.values, xa, side="right")
        cum0 = np.concatenate(([0], self._cum))
        return _scalar_or_array(cum0[idx] / self._total, x)

    def support(self) -> tuple[float, float]:
        return float(self.values[0]), float(self.values[-1])

    def clipped(self, upper: float) -> EmpiricalDiscrete:
        """The distribution of ``min(X, upper)``: mass above ``upper`` moves onto it."""
        vals = np.minimum(self.values, upper).astype(self.values.dtype)
        uniq, inv = np.unique(vals, return_inverse=True)
        return EmpiricalDiscrete(uniq, np.bincount(inv, weights=self.counts).astype(np.int64))

    def rescaled(self, factor: float, upper: int) -> EmpiricalDiscrete:
        """The distribution of ``X * factor`` rounded half up, kept within [1, ``upper``].

        For sizes measured on a machine of M nodes and used on one of N: ``factor`` N/M
        keeps the fraction of the machine each job occupies.
        """
        vals = np.clip(np.floor(self.values * factor + 0.5), 1, upper).astype(np.int64)
        uniq, inv = np.unique(vals, return_inverse=True)
        return EmpiricalDiscrete(uniq, np.bincount(inv, weights=self.counts).astype(np.int64))

    def truncated(self, upper: float) -> EmpiricalDiscrete:
        """The distribution of ``X`` given ``X <= upper`` (mass above is dropped)."""
        keep = self.values <= upper
        if not np.any(keep):
            raise InputError(f"no observed value is <= {upper}")
        return EmpiricalDiscrete(self.values[keep], self.counts[keep])

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "discrete",
            "n": self._total,
            "values": [_round_x(v) for v in self.values.tolist()],
            "counts": [int(c) for c in self.counts.tolist()],
        }

    def __repr__(self) -> str:
        return f"EmpiricalDiscrete(n={self._total}, support={self.support()}, mean={self.mean():.4g})"


class EmpiricalContinuous:
    """Piecewise-linear quantile function through knots ``(q_i, x_i)``.

    ``q`` rises strictly from 0 to 1, ``x`` never decreases. Built from samples, the
    knots are order statistics (the type-7 sample quantile), denser in both tails so
    that the long runtime and think-time tails survive the compression.
    """

    __slots__ = ("q", "x", "n")

    def __init__(self, q: ArrayLike, x: ArrayLike, n: int | None = None) -> None:
        qa = np.asarray(q, dtype=float)
        xa = np.asarray(x, dtype=float)
        if qa.ndim != 1 or qa.shape != xa.shape or qa.size < 2:
            raise InputError("continuous distribution needs >= 2 knots with equal-length q and x")
        if not (np.all(np.isfinite(qa)) and np.all(np.isfinite(xa))):
            raise InputError("continuous distribution knots must be finite")
        if qa[0] != 0.0 or qa[-1] != 1.0 or np.any(np.diff(qa) <= 0):
            raise InputError("knot probabilities must rise strictly from 0 to 1")
        if np.any(np.diff(xa) < 0):
            raise InputError("knot values must not decrease")
        self.q: NDArray[np.float64] = qa
        self.x: NDArray[np.float64] = xa
        self.n = int(n) if n is not None else 0

    @classmethod
    def from_samples(
        cls, data: ArrayLike, knots: int = 513, tail_knots: int = 64
    ) -> EmpiricalContinuous:
        """Compress ``data`` to at most ``knots + 2 * tail_knots`` order statistics.

        Uniform knots in probability plus geometric ones towards both ends: a few
        extreme observations decide the mean of heavy-tailed times.
        """
        arr = np.sort(np.asarray(data, dtype=float).ravel())
        if arr.size == 0:
            raise InputError("cannot build a distribution from no observations")
        if not np.all(np.isfinite(arr)):
            raise InputError("observations must be finite")
        n = arr.size
        if n == 1:
            return cls([0.0, 1.0], [arr[0], arr[0]], n=1)
        last = n - 1
        idx = np.linspace(0, last, min(knots, n)).round()
        geo = np.unique(np.geomspace(1, max(last, 1), tail_knots).round())
        idx = np.unique(np.concatenate((idx, geo, last - geo, [0, last])).clip(0, last)).astype(np.int64)
        q = np.round(idx / last, Q_DIGITS)
        q[0], q[-1] = 0.0, 1.0
        q, first = np.unique(q, return_index=True)
        return cls(q, arr[idx[first]], n=n)

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...] | None = None) -> Any:
        u = rng.random(size)
        out = np.interp(u, self.q, self.x)
        return float(out) if size is None else out

    def mean(self) -> float:
        return float(np.sum(np.diff(self.q) * (self.x[1:] + self.x[:-1])) / 2.0)

    def quantile(self, q: ArrayLike) -> Any:
        qa = np.asarray(q, dtype=float)
        if np.any((qa < 0) | (qa > 1)) or np.any(np.isnan(qa)):
            raise InputError("quantile probabilities must lie in [0, 1]")
        return _scalar_or_array(np.asarray(np.interp(qa, self.q, self.x)), q)

    def cdf(self, x: ArrayLike) -> Any:
        """P(X <= x); at an atom this is the probability up to the atom's top."""
        xa = np.asarray(x, dtype=float)
        k = np.searchsorted(self.x, xa, side="right")
        hi = np.clip(k, 1, self.x.size - 1)
        lo = hi - 1
        x0, x1, q0, q1 = self.x[lo], self.x[hi], self.q[lo], self.q[hi]
        width = x1 - x0
        frac = np.divide(xa - x0, width, out=np.zeros_like(xa), where=width > 0)
        out = np.where(width > 0, q0 + np.clip(frac, 0, 1) * (q1 - q0), q0)
        out = np.where(k == 0, 0.0, np.where(k >= self.x.size, 1.0, out))
        return _scalar_or_array(np.asarray(out, dtype=float), x)

    def support(self) -> tuple[float, float]:
        return float(self.x[0]), float(self.x[-1])

    def scaled(self, factor: float) -> EmpiricalContinuous:
        """The distribution of ``X * factor`` (every knot value multiplied)."""
        if not (math.isfinite(factor) and factor > 0):
            raise InputError(f"scale factor must be a positive finite number, got {factor}")
        return EmpiricalContinuous(self.q, self.x * factor, n=self.n)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "continuous",
            "n": self.n,
            "q": [round(float(v), Q_DIGITS) for v in self.q.tolist()],
            "x": [_round_x(v) for v in self.x.tolist()],
        }

    def __repr__(self) -> str:
        return (
            f"EmpiricalContinuous(n={self.n}, knots={self.q.size}, "
            f"support={self.support()}, mean={self.mean():.4g})"
        )


def _observations(counts: object, field: str) -> list[int]:
    """``counts`` as whole numbers of observations, each and in total at most
    :data:`~sitesim.limits.MAX_OBSERVATIONS` (an input error naming ``field`` otherwise):
    they are summed in 64 bits, where 10^300 overflowed."""
    if not isinstance(counts, list):
        raise InputError(f"must be a list of counts, got {counts!r}"[:200], field=field)
    whole: list[int] = []
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, (int, float)) or not (
                0 <= count <= MAX_OBSERVATIONS and float(count).is_integer()):
            raise InputError(f"{count!r} is not a whole number of observations in 0..{MAX_OBSERVATIONS:.0e}"[:200],
                             field=field)
        whole.append(int(count))
    if sum(whole) > MAX_OBSERVATIONS:
        raise InputError(f"the counts add up to {sum(whole):,}: more than {MAX_OBSERVATIONS:.0e} observations",
                         field=field)
    return whole


def _knot_values(values: Sequence[Any]) -> NDArray[Any]:
    """Discrete values as 64-bit integers where they all are whole numbers within that
    range, else as floats (so 10^30 reaches the range check as 1e30, not an OverflowError)."""
    if all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**63 for v in values):
        return np.asarray(values, dtype=np.int64)
    return np.asarray(values, dtype=float)


def distribution_from_dict(data: Mapping[str, Any], *, where: str = "<dict>") -> Distribution:
    """Rebuild a distribution from :meth:`to_dict` output (``where`` names it in errors)."""
    try:
        kind = data["kind"]
        if kind in ("discrete", "continuous") and data.get("n") is not None:
            _observations([data["n"]], "n")
        if kind == "discrete":
            return EmpiricalDiscrete(_knot_values(data["values"]), _observations(data["counts"], "counts"))
        if kind == "continuous":
            return EmpiricalContinuous(data["q"], data["x"], n=data.get("n"))
        if kind == "parametric":
            from sitesim.distributions.parametric import ParametricDistribution

            return ParametricDistribution.from_dict(data)
    except InputError as exc:
        raise InputError(exc.message, path=where, field=exc.field) from None
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"malformed distribution: {exc!r}"[:300], path=where) from None
    raise InputError(f"unknown distribution kind {kind!r}", path=where)


#: Draws per refill of a :func:`make_sampler` block. Small, so that a user holds a few
#: hundred bytes per quantity (a run may have 100,000 users), yet large enough that
#: numpy's per-call overhead is spread over many draws.
SAMPLER_BLOCK = 64


def make_sampler(
    dist: Distribution, rng: np.random.Generator, block: int = SAMPLER_BLOCK
) -> Callable[[], Any]:
    """A zero-argument callable returning one draw of ``dist``, refilled ``block`` draws
    at a time (:func:`block_sampler`).

    The draws are the same stream whatever the block size: every distribution here
    draws value by value from the generator (``random``, ``integers`` on a range below
    2**32, whose 32-bit halves PCG64 buffers in its own state, and scipy's samplers),
    so ``sample(rng, 4096)`` equals 64 calls of ``sample(rng, 64)``
    (tests/distributions/test_empirical.py checks it for every shipped table).
    """
    return block_sampler(lambda size: dist.sample(rng, size), block)


def block_sampler(draw_block: Callable[[int], Any], block: int = SAMPLER_BLOCK) -> Callable[[], Any]:
    """A zero-argument callable returning, one by one, the values ``draw_block(block)``
    returns, in order, calling it again when they run out.

    One vectorised call per block instead of one numpy call per draw: a scalar draw
    costs a ``pop`` (~0.1 us) instead of ~1-5 us. The block is kept in a typed
    :class:`array.array` (8 bytes a value, no Python object per value), so a sampler
    holds about ``8 * block`` bytes. Same values as scalar calls only where a block of
    ``block`` draws is the same stream as ``block`` single draws (numpy's ``random``
    and ``uniform`` are) and nothing else draws from that generator.
    """
    if block < 1:
        raise InputError("sampler block must be >= 1")
    buf: Any = None  # made on the first draw, when the values' type is known

    def refill() -> None:
        nonlocal buf
        values = np.asarray(draw_block(block))[::-1]
        if buf is None:
            typecode = _ARRAY_TYPECODES.get(values.dtype.str)
            buf = array(typecode) if typecode is not None else []
        if isinstance(buf, array):
            buf.frombytes(values.tobytes())
        else:  # an unusual dtype: plain Python values
            buf.extend(values.tolist())

    def draw() -> Any:
        try:
            return buf.pop()
        except (IndexError, AttributeError):  # empty, or not made yet
            refill()
            return buf.pop()

    return draw


#: array.array type codes for native 64-bit ints and doubles, whose ``pop`` gives the
#: same Python int/float as ``ndarray.tolist``; other dtypes stay in a list.
_ARRAY_TYPECODES = {np.dtype(np.int64).str: "q", np.dtype(np.float64).str: "d"}
