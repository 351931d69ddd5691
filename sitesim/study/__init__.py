"""``sitesim study``: schedulers compared on one site, end to end, into a report (docs/study.md)."""

from sitesim.study.build import Study, prepare, run_study
from sitesim.study.config import StudyConfig

__all__ = ["Study", "StudyConfig", "prepare", "run_study"]
