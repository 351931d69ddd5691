"""The study on a Dask cluster gives the same results.csv and cross.csv as with processes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sitesim.cli import main
from tests.study.conftest import STUDY


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                    reason="dask.distributed not installed (pip install 'sitesim[dask]')")
def test_dask_matches_processes(study_dir: Path, tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    out = tmp_path / "dask"
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        assert main([*STUDY, "-o", str(out), "--scheduler-address", cluster.scheduler_address,
                     "--no-progress"]) == 0
    for name in ("results.csv", "replays.csv", "cross.csv", "study.toml"):
        assert (out / name).read_bytes() == (study_dir / name).read_bytes(), name
