"""Packaging: the project's metadata is in pyproject.toml; this maps the data and builds
the compiled twin.

The shipped tables (``empirical/``) and site files (``models/``) stay top-level folders
of the repository, and the wheel carries them as the data packages ``sitesim.empirical``
and ``sitesim.models`` (read with importlib.resources, sitesim/resources.py).

One compiled module (Cython), the twin of a Python implementation that gives the same
schedules, only slower (docs/performance.md): ``sitesim.schedulers._reservations``,
conservative backfilling's planned schedule in C arrays, 4-6 times faster on whole
runs; no other loop gained the 1.3x that keeps a twin. It is optional: where the
compiler fails (no C compiler), the install warns and goes on, and the Python
implementation is used. Cython itself is a build requirement (pyproject.toml), which
pip installs for the build; a ``setup.py`` run without it (a source distribution made
where it is missing) leaves the extension out, and MANIFEST.in ships its source anyway.
"""

import sys

from setuptools import Extension, find_packages, setup

DATA = {"sitesim.empirical": "empirical", "sitesim.models": "models"}


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("setup.py: Cython not found, the compiled twin is not built (the Python code runs)", file=sys.stderr)
        return []
    modules = [Extension("sitesim.schedulers._reservations", ["sitesim/schedulers/_reservations.pyx"])]
    built = cythonize(modules, compiler_directives={"language_level": "3"}, quiet=True)
    for module in built:
        module.optional = True  # set after cythonize, which does not carry it over
    return built


setup(
    packages=[*find_packages(include=["sitesim", "sitesim.*"]), *DATA],
    package_dir=DATA,
    package_data={"sitesim": ["py.typed", "schedulers/*.pyi"], "sitesim.empirical": ["*.json", "README.md"],
                  "sitesim.models": ["*.toml"]},
    include_package_data=False,
    ext_modules=extensions(),
)
