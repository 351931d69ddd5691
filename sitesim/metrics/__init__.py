"""Metrics: per-job statistics, run summaries and the output files of a run."""
