"""One small study shared by the study tests: the paper site, FCFS and EASY, 3 seeds of
30 days, run exactly as the issue's command line (local processes)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: The issue's command, without its output folder.
STUDY = ["study", "--site", "paper", "-s", "fcfs,easy", "--seeds", "3", "--duration", "30"]


@pytest.fixture(scope="session")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sitesim.cli import main

    out = tmp_path_factory.mktemp("study") / "paper"
    assert main([*STUDY, "-o", str(out), "--no-progress"]) == 0
    return out
