"""The minimum of a function of one variable on an interval: Brent's method.

Why not ``scipy.optimize.minimize_scalar``: importing ``scipy.optimize`` costs about a
third of a second of CPU (it brings ``scipy.linalg`` and the linear programs with it),
more than everything :func:`sitesim.analysis.day_cycles.prior_strength` computes with
it, on every ``sitesim fit``. This is the same method, step for step: golden-section
steps, a parabola through the three best points where it falls inside the bracket and
shrinks the step, never a point closer than the tolerance to one already tried (Brent,
*Algorithms for Minimization without Derivatives*, 1973, ch. 5; Forsythe, Malcolm &
Moler's ``fmin``), with the tolerance scale and the stopping rule of scipy's bounded
method, so a fitted table keeps its bytes (the tests compare the two point for point).
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: The relative part of the tolerance: the square root of a rounded machine epsilon,
#: as scipy's bounded method takes it.
_ROOT_EPS = math.sqrt(2.2e-16)
#: The golden section's smaller part, (3 - sqrt 5) / 2.
_GOLDEN = 0.5 * (3.0 - math.sqrt(5.0))


def bounded_minimum(
    f: Callable[[float], float], low: float, high: float, *, xatol: float = 1e-5, max_evaluations: int = 500
) -> float:
    """The point of ``[low, high]`` where ``f`` is least, to within ``xatol`` (and a
    relative part, :data:`_ROOT_EPS` of the point), after at most ``max_evaluations``
    calls of ``f``: that of ``scipy.optimize.minimize_scalar(f, bounds=(low, high),
    method="bounded", options={"xatol": xatol, "maxiter": max_evaluations}).x``."""
    if not (math.isfinite(low) and math.isfinite(high)) or low > high:
        raise ValueError(f"not a finite interval: [{low}, {high}]")
    a, b = low, high
    # x: the best point so far; w: the second best; v: the one w was before.
    x = w = v = a + _GOLDEN * (b - a)
    fx = fw = fv = f(x)
    evaluations = 1
    step = 0.0  # the last step taken (d)
    before = 0.0  # the step before it (e): a parabola must shrink the steps
    middle = 0.5 * (a + b)
    tol = _ROOT_EPS * abs(x) + xatol / 3.0
    while abs(x - middle) > 2.0 * tol - 0.5 * (b - a):
        golden = True
        if abs(before) > tol:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            shrink, before = before, step
            if abs(p) < abs(0.5 * q * shrink) and q * (a - x) < p < q * (b - x):
                golden = False
                step = (p + 0.0) / q
                u = x + step
                if u - a < 2.0 * tol or b - u < 2.0 * tol:  # too close to an end
                    step = tol if middle >= x else -tol
        if golden:
            before = (a - x) if x >= middle else (b - x)
            step = _GOLDEN * before
        # Never closer than tol to x: f could not tell the two apart.
        length = max(abs(step), tol)
        u = x + (length if step >= 0 else -length)
        fu = f(u)
        evaluations += 1
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
        middle = 0.5 * (a + b)
        tol = _ROOT_EPS * abs(x) + xatol / 3.0
        if evaluations >= max_evaluations:
            break
    return x
