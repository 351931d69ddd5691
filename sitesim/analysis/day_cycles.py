"""Each user's own hours of the day, which its absences are measured and laid down in.

The absences between a user's sessions are measured, and laid down again, in
operational time of a weekly cycle of session starts (:class:`~sitesim.workload.calendar.Warp`).
One cycle pooled over the site puts every simulated user's session starts on the site's
hours, while the users of a log keep hours of their own: at NASA-iPSC the hours of the
day the 38 users with 20 sessions or more started their sessions at differ far beyond
chance (chi-square 994 on 111 degrees of freedom over four parts of the day), and a
user who never started a session at night in the log (user 40: 111 sessions, none
before 08:00) started 16% of them there when simulated (docs/population.md,
"Each user's own hours").

A user's own cycle is the site's weekly cycle reweighted, hour of the day by hour of
the day, by how much more or less often the user started a session at that hour than
the site's users did. A user with few sessions says little about its hours, so its
daily profile is shrunk towards the site's: its start counts plus ``strength`` pseudo
starts spread as the site's are (the posterior mean under a Dirichlet prior centred on
the site's profile). ``strength`` is not chosen by hand: it is the value under which
the users' start counts are most likely (the Dirichlet-multinomial maximum likelihood,
:func:`prior_strength`), so how far users are drawn towards the site is itself measured
on the log.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

#: Which weekly cycle a table's absences are measured and laid down in (its
#: ``absence_cycle`` key): the site's (``site``, tables without the key) or each user's
#: own (``own``, with each user's ``start_day_counts`` and the table's
#: ``day_cycle_strength``; what ``sitesim fit`` writes).
ABSENCE_CYCLES = ("site", "own")
#: Whether a table's batches are dealt by the part of the day alone, on
#: every day of the week alike (its ``weekends`` key: ``together``, tables without the
#: key), or with the weekend's apart from the weekdays' (``apart``, what ``sitesim fit``
#: writes: :mod:`sitesim.users.population_table`; docs/population.md, "The weekend apart").
WEEKENDS = ("together", "apart")
#: Hours of the day a user's profile is counted in.
HOURS = 24
#: The range :func:`prior_strength` searches (pseudo starts): far below one session,
#: where each user is its own; far above any user's sessions, where all are the site's.
STRENGTH_RANGE = (1e-3, 1e7)
#: Bisection steps of :func:`prior_strength`: the range, in natural-log units, halved
#: to below 1e-12 (relative precision of the strength; a table keeps 6 digits).
BISECTIONS = math.ceil(math.log2(math.log(STRENGTH_RANGE[1] / STRENGTH_RANGE[0]) / 1e-12))


def prior_strength_of(value: object) -> float:
    """A table's ``day_cycle_strength`` as a number, or a ValueError saying why not."""
    low, high = STRENGTH_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ValueError(f"day_cycle_strength {value!r} is not a number in {low:g}..{high:g}")
    return float(value)


def day_counts(hours_of_week: Sequence[int]) -> list[int]:
    """Session starts per local hour of the day (0..23), from their hours of the week."""
    counts = [0] * HOURS
    for h in hours_of_week:
        counts[int(h) % HOURS] += 1
    return counts


def site_profile(counts: ArrayLike) -> NDArray[np.float64]:
    """The site's daily profile: every user's starts per hour of the day, as shares."""
    total = np.asarray(counts, dtype=float).reshape(-1, HOURS).sum(axis=0)
    if total.sum() <= 0:
        return np.full(HOURS, 1.0 / HOURS)
    return total / total.sum()


def prior_strength(counts: ArrayLike) -> float:
    """The Dirichlet prior's strength (pseudo starts) under which the users' start
    counts per hour of the day (one row a user) are most likely, the prior's mean being
    the site's profile. Users without starts add nothing, and a user's one start says
    nothing of its hours against the site's (its term of the score is zero); with fewer
    than two users of two starts or more, there is nothing to measure users' differences
    on, and the upper end of :data:`STRENGTH_RANGE` (every user the site's) is returned.

    The likelihood is the Dirichlet-multinomial's (the Polya distribution's) with a
    fixed mean ``p``. Its score in the strength ``s`` is
    ``sum_u,k p_k [psi(c_uk + s p_k) - psi(s p_k)] - sum_u [psi(n_u + s) - psi(s)]``
    (Minka, "Estimating a Dirichlet distribution", 2000), and the counts are whole, so
    each digamma difference is the finite sum ``psi(c + x) - psi(x) = sum_{i<c} 1 / (x + i)``:
    exact sums, in numpy alone (more exact than sums of gamma functions, whose rounding
    makes the likelihood flat to 1e-13 near a large strength). The score's root is found
    by bisection in ``log s`` within :data:`STRENGTH_RANGE`, keeping it positive below
    and negative above, so the point is a maximum; an end of the range where the score
    points outward (>= 0 at the top, <= 0 at the bottom) is returned as it is. Why not
    scipy's bounded minimizer on the gamma functions, as before: scipy's import was half
    a second of CPU of every fit (docs/service.md, "Speed"), and the score is this sum."""
    c = np.asarray(counts, dtype=float).reshape(-1, HOURS)
    if not np.array_equal(c, np.round(c)):
        raise ValueError("start counts must be whole numbers")
    c = c[c.sum(axis=1) > 0]
    if np.count_nonzero(c.sum(axis=1) >= 2) < 2:
        return STRENGTH_RANGE[1]
    p = site_profile(c)
    seen = p > 0
    whole, p = c[:, seen].astype(np.int64), p[seen]
    # How many users have more than i starts in all (above[i]) and at each hour
    # (hour_above[k, i]): each finite sum over users becomes one sum over i.
    above = _more_than(whole.sum(axis=1))
    top = int(whole.max())
    hour_above = np.array([_more_than(column, top) for column in whole.T])
    steps_all, steps_hour = np.arange(len(above)), np.arange(hour_above.shape[1])

    def score(s: float) -> float:
        hours = np.sum(hour_above * p[:, None] / (s * p[:, None] + steps_hour[None, :]))
        return float(hours - np.sum(above / (s + steps_all)))

    low, high = (math.log(b) for b in STRENGTH_RANGE)
    if score(math.exp(high)) >= 0:
        return STRENGTH_RANGE[1]
    if score(math.exp(low)) <= 0:
        return STRENGTH_RANGE[0]
    for _ in range(BISECTIONS):
        mid = (low + high) / 2
        low, high = (mid, high) if score(math.exp(mid)) > 0 else (low, mid)
    return math.exp((low + high) / 2)


def _more_than(values: NDArray[np.int64], top: int | None = None) -> NDArray[np.int64]:
    """``out[i]``: how many of ``values`` (whole, >= 0) are above ``i``, for ``i`` in
    ``0 .. top - 1`` (``top``: the largest value)."""
    top = int(values.max()) if top is None else top
    counts = np.bincount(values, minlength=top + 1)
    return np.cumsum(counts[::-1])[::-1][1:]


def own_cycle(weekly: ArrayLike, counts: Sequence[int], profile: ArrayLike, strength: float) -> NDArray[np.float64]:
    """A user's weekly cycle (168 weights): the site's ``weekly`` cycle times, at each
    hour of the day, the user's shrunk share of its starts there over the site's share
    ``profile``. Hours no user started at keep the site's weight."""
    w = np.asarray(weekly, dtype=float)
    p = np.asarray(profile, dtype=float)
    c = np.asarray(counts, dtype=float)
    own = (c + strength * p) / (c.sum() + strength)
    ratio = np.divide(own, p, out=np.ones(HOURS), where=p > 0)
    return w * np.tile(ratio, 7)
