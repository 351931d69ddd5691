"""Packaging: the project's metadata is in pyproject.toml; this maps the data and builds
the one compiled module.

The shipped tables (``empirical/``) and site files (``models/``) stay top-level folders
of the repository, and the wheel carries them as the data packages ``sitesim.empirical``
and ``sitesim.models`` (read with importlib.resources, sitesim/resources.py).

``sitesim.schedulers._reservations`` (Cython) is conservative backfilling's planned
schedule in C arrays. It is optional: where it cannot be built (no C compiler, no
Cython), the install goes on and the scheduler uses the Python implementation, which
gives the same schedules, only slower (docs/performance.md).
"""

from setuptools import Extension, find_packages, setup

DATA = {"sitesim.empirical": "empirical", "sitesim.models": "models"}


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    module = Extension(
        "sitesim.schedulers._reservations", ["sitesim/schedulers/_reservations.pyx"], optional=True
    )
    return cythonize([module], compiler_directives={"language_level": "3"}, quiet=True)


setup(
    packages=[*find_packages(include=["sitesim", "sitesim.*"]), *DATA],
    package_dir=DATA,
    package_data={"sitesim": ["py.typed", "schedulers/*.pyi"], "sitesim.empirical": ["*.json", "README.md"],
                  "sitesim.models": ["*.toml"]},
    include_package_data=False,
    ext_modules=extensions(),
)
