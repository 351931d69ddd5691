"""Workloads: the job record, Standard Workload Format (SWF) I/O and trace replay."""
