"""Trace analysis that measures the site-level models on any SWF trace.

- :mod:`~sitesim.analysis.cleaning`  which jobs are used, and the exclusion counts;
- :mod:`~sitesim.analysis.sessions`  think times, batches, sessions (paper section 3);
- :mod:`~sitesim.analysis.workpool`  sizes, runtimes, repetitions, estimates, status;
- :mod:`~sitesim.analysis.trace`     one-call :func:`analyze_trace`;
- :mod:`~sitesim.analysis.tables`    the ``empirical/*.json`` tables built from analyses.
"""

from sitesim.analysis.cleaning import CleaningReport, TraceJob, clean_records
from sitesim.analysis.sessions import SESSION_THRESHOLD, SubmissionBehavior, analyze_submission
from sitesim.analysis.trace import TraceAnalysis, analyze_jobs, analyze_trace
from sitesim.analysis.workpool import Workpool, analyze_workpool

__all__ = [
    "SESSION_THRESHOLD",
    "CleaningReport",
    "SubmissionBehavior",
    "TraceAnalysis",
    "TraceJob",
    "Workpool",
    "analyze_jobs",
    "analyze_submission",
    "analyze_trace",
    "analyze_workpool",
    "clean_records",
]
