"""Packaging: the project's metadata is in pyproject.toml; this only maps the data.

The shipped tables (``empirical/``) and site files (``models/``) stay top-level folders
of the repository, and the wheel carries them as the data packages ``sitesim.empirical``
and ``sitesim.models`` (read with importlib.resources, sitesim/resources.py).
"""

from setuptools import find_packages, setup

DATA = {"sitesim.empirical": "empirical", "sitesim.models": "models"}

setup(
    packages=[*find_packages(include=["sitesim", "sitesim.*"]), *DATA],
    package_dir=DATA,
    package_data={"sitesim": ["py.typed"], "sitesim.empirical": ["*.json", "README.md"],
                  "sitesim.models": ["*.toml"]},
    include_package_data=False,
)
