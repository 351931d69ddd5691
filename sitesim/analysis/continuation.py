"""Session continuation: does a user go on after a batch, given what the batch got?

Shmueli & Feitelson (MASCOTS 2007) found in traces that the probability of continuing
a session after a job falls with the job's response time, and does not follow its
slowdown. :func:`continuation_curve` measures the probability per response-time (or
slowdown) bin; :func:`logistic_fit` fits ``logit P(continue) = b0 + b1 log10(response)
+ b2 log10(slowdown)`` by Newton's method, so the two effects are estimated together:
if the session ends because of the response time, ``b1`` is clearly negative while
``b2`` is near zero once response time is accounted for.

The simulator uses the response-time curve (:class:`ContinuationCurve`), with a
per-user offset on the log-odds (:func:`user_offset`) so that heavy and light users
keep their own propensity to go on.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import define
from numpy.typing import ArrayLike, NDArray

#: Response-time bin edges (s): a minute, 5 and 10 minutes, half an hour, 1, 2, 4, 8,
#: 12 and 24 hours.
RESPONSE_EDGES: tuple[float, ...] = (60, 300, 600, 1800, 3600, 7200, 14400, 28800, 43200, 86400)
#: Bounded-slowdown bin edges.
SLOWDOWN_EDGES: tuple[float, ...] = (1.1, 1.5, 2, 3, 5, 10, 20, 50, 100)


@define(slots=True, frozen=True)
class ContinuationCurve:
    """P(continue) per bin of a performance measure (bin i: edges[i-1] <= x < edges[i])."""

    edges: tuple[float, ...]
    probability: tuple[float, ...]
    batches: tuple[int, ...]

    def __call__(self, x: float) -> float:
        return self.probability[bisect_right(self.edges, x)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": list(self.edges),
            "probability": [round(p, 6) for p in self.probability],
            "batches": list(self.batches),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContinuationCurve:
        curve = cls(
            tuple(float(e) for e in data["edges"]),
            tuple(float(p) for p in data["probability"]),
            tuple(int(n) for n in data["batches"]),
        )
        if len(curve.probability) != len(curve.edges) + 1 or not all(0 <= p <= 1 for p in curve.probability):
            raise ValueError("a continuation curve needs len(edges)+1 probabilities in [0, 1]")
        return curve


def continuation_curve(
    x: ArrayLike, continued: ArrayLike, edges: Sequence[float] = RESPONSE_EDGES
) -> ContinuationCurve:
    """Binned P(continue); (k+1)/(n+2) per bin, so an empty bin says 1/2, not 0/0."""
    xs = np.asarray(x, dtype=float)
    c = np.asarray(continued, dtype=bool)
    bins = np.searchsorted(np.asarray(edges, dtype=float), xs, side="right")
    n = np.bincount(bins, minlength=len(edges) + 1)
    k = np.bincount(bins, weights=c, minlength=len(edges) + 1)
    return ContinuationCurve(
        tuple(float(e) for e in edges),
        tuple(float(v) for v in (k + 1) / (n + 2)),
        tuple(int(v) for v in n),
    )


#: The largest log-odds offset a user or a part of the day puts on the continuation curve
#: (a user who always or never continued; fitted tables are checked against it).
MAX_OFFSET = 4.0


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def user_offset(curve: ContinuationCurve, responses: ArrayLike, continued: ArrayLike, steps: int = 30) -> float:
    """Log-odds offset ``a`` with mean(sigmoid(logit P(r_i) + a)) = the user's own rate.

    The curve already explains part of a user's rate through the response times that
    user got; the offset is the rest (the user's own propensity), so it is not counted
    twice. Bounded to +-4 (a user who always or never continued).
    """
    base = np.asarray([_logit(curve(r)) for r in np.asarray(responses, dtype=float)])
    return _offset(base, continued, steps)


def _offset(base: NDArray[np.float64], continued: ArrayLike, steps: int = 30) -> float:
    """Log-odds offset ``a`` with mean(sigmoid(base_i + a)) = the rate of ``continued``
    (Newton's method from 0, bounded to +-:data:`MAX_OFFSET`)."""
    target = float(np.mean(np.asarray(continued, dtype=float)))
    a = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(base + a)))
        grad = float(p.mean()) - target
        slope = float((p * (1 - p)).mean())
        if abs(grad) < 1e-9 or slope < 1e-12:
            break
        a = min(MAX_OFFSET, max(-MAX_OFFSET, a - grad / slope))
    return a


def part_and_user_offsets(
    curve: ContinuationCurve,
    responses: ArrayLike,
    continued: ArrayLike,
    spans: Sequence[tuple[int, int]],
    parts: ArrayLike,
    count: int,
    least: int,
    *,
    tolerance: float = 1e-9,
    steps: int = 100,
) -> tuple[list[float], list[float]]:
    """One log-odds offset on ``curve`` per part of the local day the waited-for job
    ended in (``parts``, 0..``count``-1; 0 for a part without batches), and each user's
    own offset (its batches are ``spans[i]``, a (first, end) range of the batch arrays;
    users with fewer than ``least`` batches keep 0; rounded to 4 decimals, as the table
    writes them), fitted *together*: the maximum-likelihood offsets of the logistic
    model ``logit P(go on) = logit curve(response) + user + part``.

    Why together: fitted one after the other, either the night is counted twice (the
    users' first: a user who worked at night carries the night in its own offset, and
    the part's offset adds it again) or the parts take what is the users' (the parts
    first, at the site's level: the site's night is its night owls', and every user
    then goes home at it). Together, each part's offset is what is left of the hour
    once each user's own rate is accounted for, and each user keeps its own rate: the
    fitted model gives every user's batches, and every part's, their log's number of
    continuations (the score equations of the two sets of indicators).

    The two sets share one direction (every user +x, every part -x gives the same
    model), so the parts' offsets are centred (their mean over the batches is 0): they
    say what the hour adds, the users' what the user adds; a user with too few batches
    to have an offset, and a user the site has not seen, take the curve and the hour's.
    Every user's equation holds, but for a user held at +-:data:`MAX_OFFSET`; the parts'
    hold up to one common shift (the
    constraint's multiplier: 0 when every batch's user is fitted).

    Solved by Newton's method on the likelihood, users and parts together (the users'
    block of the Hessian is diagonal, so it is eliminated and the parts' step solved
    with the centring as a constraint), each step halved until the likelihood rises,
    until no offset moves by more than ``tolerance``; a user who always or never went
    on is held at +-:data:`MAX_OFFSET`, as :func:`user_offset` holds it.

    Why the parts: users go home at night. At NASA-iPSC a session went on after 0.51 of
    the batches that ended 21:00-24:00 and 0.72-0.79 of those ending in the day, and not
    because of the responses: of the batches waited for longer than 2 hours, 0.61 went
    on in the day and 0.11 at night (docs/population.md, "Going home at night")."""
    c = np.asarray(continued, dtype=np.float64)
    k = np.asarray(parts, dtype=np.int64)
    base = np.asarray([_logit(curve(x)) for x in np.asarray(responses, dtype=float)], dtype=np.float64)
    owner = np.full(c.size, -1, dtype=np.int64)  # each batch's fitted user, -1: none (offset 0)
    for i, (lo, hi) in enumerate(spans):
        if hi - lo >= least:
            owner[lo:hi] = i
    free = owner >= 0
    n_users = len(spans)
    user = np.zeros(n_users)
    part = np.zeros(count)
    share = np.bincount(k, minlength=count) / max(c.size, 1)  # each part's share of the batches
    held = np.bincount(owner[free], minlength=n_users) > 0  # the users with an offset of their own
    cell = np.where(free, owner, 0) * count + k  # each batch's (user, part) cell

    def eta(u: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
        return base + q[k] + np.where(free, u[np.maximum(owner, 0)], 0.0)

    def loglik(u: NDArray[np.float64], q: NDArray[np.float64]) -> float:
        z = eta(u, q)
        return float(np.sum(c * z - np.logaddexp(0.0, z)))

    for _ in range(steps):
        p = 1 / (1 + np.exp(-eta(user, part)))
        w = p * (1 - p)
        g_user = np.bincount(owner[free], weights=(c - p)[free], minlength=n_users)
        h_user = np.bincount(owner[free], weights=w[free], minlength=n_users)
        g_part = np.bincount(k, weights=c - p, minlength=count)
        h_part = np.bincount(k, weights=w, minlength=count)
        cross = np.bincount(cell[free], weights=w[free], minlength=n_users * count).reshape(n_users, count)
        # the users' block is diagonal: eliminate it (Schur complement), then solve the
        # parts' step with the centring as a constraint (a bordered system)
        # a user held at a bound with its gradient pushing outward is fixed for this step:
        # left in the elimination, the parts' step would count on it moving
        pinned = ((user >= MAX_OFFSET) & (g_user > 0)) | ((user <= -MAX_OFFSET) & (g_user < 0))
        inv = np.divide(1.0, h_user, out=np.zeros(n_users), where=held & (h_user > 1e-12) & ~pinned)
        schur = np.diag(h_part) - cross.T @ (cross * inv[:, None])
        rest = g_part - cross.T @ (g_user * inv)
        system = np.zeros((count + 1, count + 1))
        system[:count, :count] = schur
        system[:count, count] = system[count, :count] = share
        system[np.flatnonzero(h_part <= 1e-12), np.flatnonzero(h_part <= 1e-12)] = 1.0  # empty parts stay
        rhs = np.append(np.where(h_part > 1e-12, rest, 0.0), -float(share @ part))
        d_part = np.where(h_part > 1e-12, np.linalg.lstsq(system, rhs, rcond=None)[0][:count], 0.0)
        d_user = inv * (g_user - cross @ d_part)
        # halve the step until the likelihood rises (it is concave: Newton's step is an
        # ascent direction); the bounds hold a user who always or never went on
        old, size = loglik(user, part), 1.0
        while True:
            u = np.clip(user + size * d_user, -MAX_OFFSET, MAX_OFFSET)
            q = np.clip(part + size * d_part, -MAX_OFFSET, MAX_OFFSET)
            if loglik(u, q) >= old - 1e-12:
                break
            size /= 2
            if size < 1e-6:  # no step raises it: where it stands is the maximum
                u, q = user, part
                break
        moved = max(float(np.max(np.abs(u - user), initial=0.0)), float(np.max(np.abs(q - part), initial=0.0)))
        user, part = u, q
        if moved < tolerance:
            break
    users = [round(float(user[i]), 4) if hi - lo >= least else 0.0 for i, (lo, hi) in enumerate(spans)]
    return users, [float(v) for v in part]


def adjusted(curve: ContinuationCurve, offset: float) -> ContinuationCurve:
    """The curve with ``offset`` added to every bin's log-odds."""
    probs = tuple(1 / (1 + math.exp(-(_logit(p) + offset))) for p in curve.probability)
    return ContinuationCurve(curve.edges, probs, curve.batches)


@define(slots=True, frozen=True)
class LogisticFit:
    """``logit P = b0 + b1 log10(response) + b2 log10(slowdown)`` with standard errors."""

    coefficients: tuple[float, float, float]
    standard_errors: tuple[float, float, float]
    batches: int

    def z(self, i: int) -> float:
        return self.coefficients[i] / self.standard_errors[i] if self.standard_errors[i] > 0 else float("nan")


def logistic_fit(response: ArrayLike, slowdown: ArrayLike, continued: ArrayLike, steps: int = 50) -> LogisticFit:
    """Maximum-likelihood logistic regression on log10 response (>= 1 s) and slowdown."""
    r = np.log10(np.maximum(np.asarray(response, dtype=float), 1.0))
    s = np.log10(np.maximum(np.asarray(slowdown, dtype=float), 1.0))
    y = np.asarray(continued, dtype=float)
    x: NDArray[np.float64] = np.column_stack([np.ones_like(r), r, s])
    beta = np.zeros(3)
    hessian = np.eye(3)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ beta)))
        w = p * (1 - p)
        hessian = x.T @ (x * w[:, None]) + 1e-9 * np.eye(3)
        step = np.linalg.solve(hessian, x.T @ (y - p))
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    se = np.sqrt(np.diag(np.linalg.inv(hessian)))
    return LogisticFit(
        (float(beta[0]), float(beta[1]), float(beta[2])),
        (float(se[0]), float(se[1]), float(se[2])),
        int(y.size),
    )
