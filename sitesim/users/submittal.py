"""Submittal models: the structure of a user's session (paper section 3).

A session is a sequence of batches. A batch of *batch width* jobs is submitted
asynchronously, one *inter-submission time* apart; the next batch starts a *think
time* after the last job of the batch completed. That wait is the feedback: a slow
scheduler delays the user's next batch.

Each user owns a model instance holding its own random stream, so the k-th batch width,
gap and think time of a user depend only on the run seed, never on the scheduler
(common random numbers: two schedulers face the same users doing the same work).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from sitesim.distributions import EmpiricalModel
from sitesim.registry import Registry


class SubmittalModel(ABC):
    """When a user submits: batch widths, gaps inside a batch, think times between batches."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""

    def __init__(self, tables: EmpiricalModel, rng: np.random.Generator) -> None:
        self.tables = tables
        self.rng = rng

    @abstractmethod
    def batch_width(self) -> int:
        """Jobs in the next batch (at least 1)."""

    @abstractmethod
    def gap(self) -> int:
        """Seconds from one submission to the next inside a batch."""

    @abstractmethod
    def think(self) -> int:
        """Seconds from the end of a batch's last job to the next batch."""


SUBMITTAL_MODELS: Registry[type[SubmittalModel]] = Registry("submittal model", "--submittal", SubmittalModel)


@SUBMITTAL_MODELS.register
class BatchSubmittal(SubmittalModel):
    """The paper's batch model on empirical distributions (batch width, gap, think time)."""

    name = "batch"
    summary = "empirical batch widths, inter-submission and think times (the paper's model)"

    def __init__(self, tables: EmpiricalModel, rng: np.random.Generator) -> None:
        super().__init__(tables, rng)
        # One stream per quantity, so the k-th width never depends on how many gaps
        # earlier batches drew.
        width_rng, gap_rng, think_rng = rng.spawn(3)
        self._width = tables.sampler("batch_width", width_rng)
        self._gap = tables.sampler("inter_submission", gap_rng)
        self._think = tables.sampler("think_time", think_rng)

    # Clamped with conditionals, not max(): these run once or twice per simulated job.
    def batch_width(self) -> int:
        width = int(self._width())
        return width if width > 1 else 1

    def gap(self) -> int:
        gap = round(self._gap())
        return gap if gap > 0 else 0

    def think(self) -> int:
        think = round(self._think())
        return think if think > 0 else 0


@SUBMITTAL_MODELS.register
class ClosedSubmittal(SubmittalModel):
    """The pure closed model: one job at a time, the next submitted as the last ends."""

    name = "closed"
    summary = "batch width 1 and think time 0 (the pure closed model)"

    def batch_width(self) -> int:
        return 1

    def gap(self) -> int:
        return 0

    def think(self) -> int:
        return 0
