"""The session rule, and a user's state at a submission: declared once, without numpy.

Why a module of its own: the session analysis (:mod:`sitesim.analysis.sessions`), the
measurement of waits by state (:mod:`sitesim.analysis.wait_states`) and the fitted
service, which a site file may tell to shift a job's level by its user's state
(:mod:`sitesim.schedulers.service`, ``level_states``), must cut sessions and name
states alike; the scheduler may not import the analysis (and numpy) for it.

A user's *think time* at a submission is the time since the latest end of its earlier
jobs, negative while one of them still waits or runs (docs/population.md). A think
time above :data:`SESSION_THRESHOLD` starts a new session (Zilber et al.'s 20 minutes;
exactly 1200 s stays in the session).
"""

from __future__ import annotations

from typing import Any

#: Session break: think time strictly above this many seconds (Zilber et al.).
SESSION_THRESHOLD = 1200.0

#: The states of a user at a submission, in the order ``level_states`` lists them.
STATES = ("in a batch", "continuing", "opening")
IN_BATCH, CONTINUING, OPENING = range(len(STATES))


def state_of(think: float | None, threshold: float = SESSION_THRESHOLD) -> int:
    """The index in :data:`STATES` of a submission whose think time is ``think``
    (None: the user's first): some earlier job not ended (think < 0), all ended at most
    ``threshold`` before, or neither."""
    if think is None or think > threshold:
        return OPENING
    return IN_BATCH if think < 0 else CONTINUING


def states_of(think: Any, threshold: float = SESSION_THRESHOLD) -> Any:
    """:func:`state_of` over a numpy array of think times (NaN: the user's first), for
    the analysis of a whole log at once. numpy is imported here, not with the module:
    a scheduler reads the rule without it."""
    import numpy as np

    return np.where(np.isnan(think) | (think > threshold), OPENING, np.where(think < 0, IN_BATCH, CONTINUING))
