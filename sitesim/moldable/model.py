"""Where moldable jobs come from: Downey programs with drawn parameters, or a measured table.

A moldable job stands in for a rigid job of a log or a workpool (``size`` processors for
``runtime`` seconds): the same program, now able to run on other sizes. Both sources
give it a :class:`~sitesim.moldable.speedup.RuntimeFunction` whose work is close to the
rigid job's (CPU time = size x runtime), so replacing a job alters the load as little
as possible, as Cirne & Berman (1999, section 5.1) required of their substitutes.

:class:`DowneySource` (the default) -- a program in Downey's speedup model:

- **size rule**: powers of two, perfect squares or any size, one third each, as the
  paper's mix of NAS benchmarks (MG/LU, SP/BT, EP; section 5.2);
- **average parallelism A**: the rigid job's size. The size its user ran it on is the
  one observation of this program's parallelism the log holds, and Downey (1997)
  read A off the logs' job sizes the same way. (Tried and rejected: A log-uniform
  between the job's size and the machine size. Gas then picks wide partitions at low
  efficiency and the altered KTH log carries 1.22 times the original requested CPU
  instead of 0.96, so the bushel would measure an overloaded machine.);
- **sigma**: normal, mean :data:`SIGMA_MEAN`, standard deviation :data:`SIGMA_SD`,
  redrawn while negative. The values are attributed to Cirne & Berman's moldable-job
  model ("A model for moldable supercomputer jobs", IPDPS 2001,
  doi:10.1109/IPDPS.2001.925004), which the Parallel Workloads Archive's models page
  lists (Cirne01) and its Downey97 page credits with the distributions of Downey's
  parameters; neither page, nor any public source found, states them, so they are
  *unconfirmed* named constants (docs/moldable.md, "Checking sigma", with a
  sensitivity check: the sigma of a run is ``MoldableSpec.sigma``);
- **work T1**: ``runtime x S(size)``, so that on its original size the program runs
  exactly as long as the job it replaces (same CPU time there).

:class:`TableSource` -- measured applications from a CSV (``application,processors,
runtime``, :func:`load_table`): the rigid job is replaced by the application whose
CPU time on the size nearest the job's is closest to the job's CPU time (log scale),
as the paper picked NAS benchmarks.
"""

from __future__ import annotations

import csv
import io
import math
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np

from sitesim.errors import InputError
from sitesim.inputs import read_document
from sitesim.moldable.speedup import (
    SIZE_RULES,
    RuntimeFunction,
    accepted_sizes,
    downey_function,
    downey_speedup,
)

#: Sigma of Downey's model ~ Normal(1.209, 1.132), non-negative: attributed to Cirne &
#: Berman (IPDPS 2001), not confirmed from a public source (docs/moldable.md).
SIGMA_MEAN = 1.209
SIGMA_SD = 1.132


class ApplicationSource(ABC):
    """Turns a rigid job (size, runtime) into a moldable program on ``nodes`` nodes."""

    @abstractmethod
    def program(self, size: int, runtime: int, nodes: int, rng: np.random.Generator) -> RuntimeFunction:
        """The moldable program standing in for ``size`` processors x ``runtime`` seconds."""


class DowneySource(ApplicationSource):
    """Downey programs, parameters as in the module docstring.

    ``sigma_mean`` and ``sigma_sd`` replace the distribution of sigma (a standard
    deviation of 0 fixes sigma at the mean), for sensitivity checks: whatever they are,
    sigma takes one normal draw per program, so the size rules drawn stay the same.
    """

    rules = tuple(SIZE_RULES)

    def __init__(self, sigma_mean: float = SIGMA_MEAN, sigma_sd: float = SIGMA_SD) -> None:
        if not (sigma_mean >= 0 and sigma_sd >= 0 and math.isfinite(sigma_mean + sigma_sd)):
            raise InputError(f"sigma needs a mean and deviation >= 0, got {sigma_mean}, {sigma_sd}", field="sigma")
        self.sigma_mean = sigma_mean
        self.sigma_sd = sigma_sd

    def draw_sigma(self, rng: np.random.Generator) -> float:
        while True:
            sigma = float(rng.normal(self.sigma_mean, self.sigma_sd))
            if sigma >= 0:
                return sigma

    def program(self, size: int, runtime: int, nodes: int, rng: np.random.Generator) -> RuntimeFunction:
        rule = self.rules[int(rng.integers(len(self.rules)))]
        sigma = self.draw_sigma(rng)
        average = float(max(1, min(size, nodes)))
        work = max(1, runtime) * float(downey_speedup(average, average, sigma))
        label = f"downey A={average:g} sigma={sigma:.3f} T1={work:.0f} {rule}"
        return downey_function(work, average, sigma, accepted_sizes(rule, nodes), label)


class TableSource(ApplicationSource):
    """Measured applications; the one closest in CPU time replaces the job."""

    def __init__(self, table: dict[str, RuntimeFunction]) -> None:
        if not table:
            raise InputError("the application table is empty")
        self.table = table

    def program(self, size: int, runtime: int, nodes: int, rng: np.random.Generator) -> RuntimeFunction:
        target = math.log(max(1, size) * max(1, runtime))
        best: tuple[float, str] | None = None
        for name, f in self.table.items():
            fits = [n for n in f.sizes if n <= nodes]
            if not fits:
                continue
            near = min(fits, key=lambda n: (abs(n - size), n))
            distance = abs(math.log(near * f.runtime(near)) - target)
            if best is None or (distance, name) < best:
                best = (distance, name)
        if best is None:
            raise InputError(f"no application of the table fits on {nodes} nodes")
        return self.table[best[1]].capped(nodes)


def load_table(path: str | Path) -> dict[str, RuntimeFunction]:
    """Read ``application,processors,runtime`` rows (a header line first) into functions.

    Runtimes are seconds (rounded to whole seconds, at least 1); each (application,
    processors) pair appears once. Errors name the file, line and column.
    """
    path = str(path)
    rows: dict[str, dict[int, int]] = {}
    try:
        with io.StringIO(read_document(path, "moldable table"), newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None or [h.strip().lower() for h in header] != ["application", "processors", "runtime"]:
                raise InputError("the header must be application,processors,runtime", path=path, line=1)
            for row in reader:
                line = reader.line_num
                if not row or not "".join(row).strip():
                    continue
                if len(row) != 3:
                    raise InputError(f"expected 3 columns, got {len(row)}", path=path, line=line)
                name = row[0].strip()
                if not name:
                    raise InputError("empty application name", path=path, line=line, field="application")
                n = int(_number(row[1], int, path, line, "processors"))
                r = _number(row[2], float, path, line, "runtime")
                if n < 1:
                    raise InputError(f"must be at least 1, got {n}", path=path, line=line, field="processors")
                if not (r > 0 and math.isfinite(r)):
                    raise InputError(f"must be a positive number, got {r}", path=path, line=line, field="runtime")
                sizes = rows.setdefault(name, {})
                if n in sizes:
                    raise InputError(f"{name!r} on {n} processors listed twice", path=path, line=line, field="processors")
                sizes[n] = max(1, round(r))
    except csv.Error as exc:  # a field beyond the csv module's limit, a stray quote
        raise InputError(f"not a CSV table: {exc}", path=path, line=reader.line_num) from None
    if not rows:
        raise InputError("no applications in the table", path=path)
    return {
        name: RuntimeFunction(tuple(sorted(s)), tuple(s[n] for n in sorted(s)), name)
        for name, s in rows.items()
    }


def _number(text: str, kind: type, path: str, line: int, column: str) -> float:
    try:
        value = kind(text.strip())
    except ValueError:
        raise InputError(f"{text.strip()!r} is not a number", path=path, line=line, field=column) from None
    return value
