"""Runtime-estimate models: where the scheduler's ``estimate`` of each job comes from.

Backfilling schedulers plan with user estimates, never with real runtimes. A model is
named on the command line (``--estimates NAME`` or ``NAME:ARG``) and registered here by
class. A job that runs past its estimate is killed at the estimate (see docs/metrics.md).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar


from sitesim.errors import InputError
from sitesim.registry import Registry

if TYPE_CHECKING:  # only annotations: a replay with trace estimates never loads numpy
    import numpy as np

#: A model's estimate with its generator fixed: (runtime, requested) -> estimate.
Estimator = Callable[[int, int], int]


class EstimateModel(ABC):
    """Turns a job's real runtime (and, in replay, its requested time) into an estimate."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    #: True if the model needs the trace's requested time (replay only).
    needs_trace: ClassVar[bool] = False
    #: True if the model draws random numbers.
    random: ClassVar[bool] = False

    def __init__(self, arg: str | None = None) -> None:
        if arg is not None:
            raise InputError(f"estimate model {self.name!r} takes no argument", field="--estimates")

    @property
    def spec(self) -> str:
        """The name that recreates this model (what ``--estimates`` was given)."""
        return self.name

    def use_tables(self, tables: Any) -> None:
        """A site-level run hands over its empirical tables (``--empirical``); models
        that draw from tables use them, the others ignore them (the default)."""

    @abstractmethod
    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        """Estimate in whole seconds; ``requested`` is -1 when unknown."""

    def bound(self, rng: np.random.Generator | None) -> Estimator:
        """:meth:`estimate` with ``rng`` fixed, for a caller that draws every estimate
        from a generator of its own (a simulated user: one estimate per job).

        It gives the estimates that calling :meth:`estimate` with ``rng`` job after job
        would give. A random model may draw ahead in blocks
        (:func:`sitesim.distributions.empirical.block_sampler`), a pop per job instead
        of a numpy call, so nothing else may draw from ``rng``.
        """
        estimate = self.estimate
        return lambda runtime, requested: estimate(runtime, requested, rng)

    def _inherits_estimate(self, owner: type[EstimateModel]) -> bool:
        """Whether this model's ``estimate`` is ``owner``'s own: a subclass that
        overrides only ``estimate`` must not be bound to ``owner``'s block draws."""
        return type(self).estimate is owner.estimate


ESTIMATE_MODELS: Registry[type[EstimateModel]] = Registry("estimate model", "--estimates", EstimateModel)
#: Class decorator: make an estimate model available under its ``name``.
register_estimates = ESTIMATE_MODELS.register


def estimate_models() -> dict[str, type[EstimateModel]]:
    return ESTIMATE_MODELS.items()


def make_estimates(spec: str) -> EstimateModel:
    """Build a model from ``NAME`` or ``NAME:ARG`` (unknown names are input errors)."""
    cls, arg = ESTIMATE_MODELS.lookup(spec)
    return cls(arg or None)


@register_estimates
class ExactEstimates(EstimateModel):
    """Perfect knowledge: the estimate is the real runtime (the paper's setting)."""

    name = "exact"
    summary = "estimate = actual runtime"

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return runtime


@register_estimates
class TraceEstimates(EstimateModel):
    """The user's requested time from the trace (SWF field 9), else the real runtime.

    A requested time of -1 or 0 is taken as missing. Jobs whose trace runtime exceeds
    their request are killed at the request, as the real system would have done.
    """

    name = "trace"
    summary = "requested time from the trace (field 9), runtime where missing"
    needs_trace = True

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return requested if requested > 0 else runtime


def _generator(model: EstimateModel, rng: np.random.Generator | None) -> np.random.Generator:
    if rng is None:
        raise ValueError(f"estimate model {model.spec!r} is random and needs a generator")
    return rng


#: Largest badness factor ``f:F`` accepts.
MAX_FACTOR = 1e6


@register_estimates
class FactorEstimates(EstimateModel):
    """``f:F``: estimate uniform in [r, F*r], Mu'alem & Feitelson's "badness factor".

    F = 1 is exact estimates; larger F gives ever looser (never too small) estimates,
    the setting in which the paper found that overestimation can *improve* backfilling.
    The draw is continuous and rounded up to whole seconds, so it stays >= r.
    """

    name = "f"
    summary = "f:F, uniform in [runtime, F x runtime] (badness factor F >= 1)"
    random = True

    def __init__(self, arg: str | None = None) -> None:
        if arg is None:
            raise InputError("estimate model 'f' needs a factor, e.g. f:2", field="--estimates")
        try:
            factor = float(arg)
        except ValueError:
            raise InputError(f"bad badness factor {arg!r} (want a number >= 1)", field="--estimates") from None
        # Beyond a million an estimate is no longer a plan (and r * F could overflow).
        if not 1.0 <= factor <= MAX_FACTOR:
            raise InputError(
                f"badness factor must be in [1, {MAX_FACTOR:g}], got {arg}", field="--estimates"
            )
        self.factor = factor
        self._arg = arg

    @property
    def spec(self) -> str:
        return f"{self.name}:{self._arg}"

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return self._scaled(runtime, _generator(self, rng).uniform(1.0, self.factor))

    def bound(self, rng: np.random.Generator | None) -> Estimator:
        if not self._inherits_estimate(FactorEstimates):
            return super().bound(rng)
        from sitesim.distributions.empirical import block_sampler  # numpy: site runs only

        gen, factor, scaled = _generator(self, rng), self.factor, self._scaled
        draw = block_sampler(lambda size: gen.uniform(1.0, factor, size))  # same stream as one by one
        return lambda runtime, requested: scaled(runtime, draw())

    @staticmethod
    def _scaled(runtime: int, draw: float) -> int:
        return max(runtime, math.ceil(runtime * draw))


@register_estimates
class MualemFeitelsonEstimates(EstimateModel):
    """``mf`` / ``mf:CAP``: the user-estimate model of Mu'alem & Feitelson (2001, 4.3).

    The flat histogram of runtime/estimate in real logs makes r/e ~ U(0, 1]:

    1. with probability 0.1 the estimate is 0.99 r: the job is killed, as about 10% of
       real jobs are (rounded *down* to stay an underestimate, but never below 1 s);
    2. otherwise r/u with u ~ U(0, 1], rounded up;
    3. times 10 for jobs shorter than 90 s, whose users ask for round minutes;
    4. truncated at CAP seconds (default 24 h) -- but never below the runtime, so the
       cap removes outrageous estimates without killing long jobs it would not have.

    Every estimate is at least 1 s: no user asks for zero time.
    """

    name = "mf"
    summary = "mf[:CAP], Mu'alem-Feitelson: 10% 0.99r, else r/U(0,1], x10 under 90 s, cap 24 h"
    random = True

    #: Default cap: 24 hours, the "upper bound (e.g., 24 hours)" of the paper.
    DEFAULT_CAP = 86_400
    KILLED_FRACTION = 0.1
    SHORT = 90
    SHORT_FACTOR = 10

    def __init__(self, arg: str | None = None) -> None:
        cap = self.DEFAULT_CAP
        if arg is not None:
            try:
                cap = int(arg)
            except ValueError:
                raise InputError(f"bad cap {arg!r} for 'mf' (want whole seconds)", field="--estimates") from None
            if cap < 1:
                raise InputError(f"mf cap must be at least 1 s, got {cap}", field="--estimates")
        self.cap = cap
        self._arg = arg

    @property
    def spec(self) -> str:
        return self.name if self._arg is None else f"{self.name}:{self._arg}"

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return self._from_uniforms(runtime, _generator(self, rng).random)

    def bound(self, rng: np.random.Generator | None) -> Estimator:
        if not self._inherits_estimate(MualemFeitelsonEstimates):
            return super().bound(rng)
        from sitesim.distributions.empirical import block_sampler  # numpy: site runs only

        uniform, from_uniforms = block_sampler(_generator(self, rng).random), self._from_uniforms
        return lambda runtime, requested: from_uniforms(runtime, uniform)

    def _from_uniforms(self, runtime: int, uniform: Callable[[], float]) -> int:
        """The estimate, given a source of U[0, 1) draws (one or two are taken)."""
        if uniform() < self.KILLED_FRACTION:
            return max(1, math.floor(0.99 * runtime))
        u = 1.0 - uniform()  # U(0, 1]: never divides by zero
        est = math.ceil(runtime / u)
        if runtime < self.SHORT:
            est *= self.SHORT_FACTOR
        return max(1, min(est, max(self.cap, runtime)))


@register_estimates
class EmpiricalEstimates(EstimateModel):
    """``empirical`` / ``empirical:TABLE``: runtime x a ratio drawn from the measured
    requested/actual ratios (the ``estimate_ratio`` field of ``empirical/TABLE.json``).

    Users' requests as the analysed logs show them, ratio distribution and all: about
    7% of the combined table's ratios are below 1, and those jobs are killed at their
    estimate, as their real counterparts were (docs/failures.md has the measured kill
    fraction). The estimate is rounded up to whole seconds and is at least 1 s.

    The tables are loaded on first use, not at construction, so naming the model costs
    nothing until a job needs an estimate. Without TABLE a site-level run hands the
    model its own tables (:meth:`use_tables`, the ``--empirical`` choice); elsewhere
    (replay) the combined table is used.
    """

    name = "empirical"
    summary = "empirical[:TABLE], runtime x measured requested/actual ratio (some < 1: killed)"
    random = True
    DEFAULT_TABLE = "combined"

    def __init__(self, arg: str | None = None) -> None:
        self._arg = arg
        self._ratio: Any = None  # a sitesim.distributions.Distribution, once loaded

    @property
    def spec(self) -> str:
        return self.name if self._arg is None else f"{self.name}:{self._arg}"

    def use_tables(self, tables: Any) -> None:
        """Draw from these already-loaded tables, unless a TABLE was named explicitly."""
        if self._arg is None:
            self._ratio = tables.distribution("estimate_ratio")

    def _distribution(self) -> Any:
        if self._ratio is None:
            from sitesim.distributions import load_empirical  # lazy: tables are large

            tables = load_empirical(self._arg or self.DEFAULT_TABLE)
            self._ratio = tables.distribution("estimate_ratio")
        return self._ratio

    def estimate(self, runtime: int, requested: int, rng: np.random.Generator | None) -> int:
        return self._scaled(runtime, float(self._distribution().sample(_generator(self, rng))))

    def bound(self, rng: np.random.Generator | None) -> Estimator:
        if not self._inherits_estimate(EmpiricalEstimates):
            return super().bound(rng)
        from sitesim.distributions.empirical import block_sampler  # numpy: site runs only

        gen, scaled = _generator(self, rng), self._scaled
        # The table is looked up at the first draw: use_tables may come after this.
        ratio = block_sampler(lambda size: self._distribution().sample(gen, size))
        return lambda runtime, requested: scaled(runtime, ratio())

    @staticmethod
    def _scaled(runtime: int, ratio: float) -> int:
        return max(1, math.ceil(runtime * ratio))
