"""Packaging: the project's metadata is in pyproject.toml; this maps the data and builds
the compiled twins.

The shipped tables (``empirical/``) and site files (``models/``) stay top-level folders
of the repository, and the wheel carries them as the data packages ``sitesim.empirical``
and ``sitesim.models`` (read with importlib.resources, sitesim/resources.py).

Three compiled modules (Cython), each the twin of a Python implementation that gives the
same schedules, only slower (docs/performance.md): ``sitesim.schedulers._reservations``,
conservative backfilling's planned schedule in C arrays, ``sitesim.schedulers._backfill``,
EASY's backfill scan and shadow time, and ``sitesim.schedulers._priority``, the
ordered queues of the multifactor and creasy policies. Each makes some whole run at least 1.3 times faster. They
are optional: where the compiler fails (no C compiler), the install warns and goes on,
and the Python implementations are used. Cython itself is a build requirement
(pyproject.toml), which pip installs for the build; a ``setup.py`` run without it (a
source distribution made where it is missing) leaves the extensions out, and
MANIFEST.in ships their sources anyway.
"""

import sys

from setuptools import Extension, find_packages, setup

DATA = {"sitesim.empirical": "empirical", "sitesim.models": "models"}


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("setup.py: Cython not found, the compiled twins are not built (the Python code runs)", file=sys.stderr)
        return []
    modules = [Extension(f"sitesim.schedulers.{name}", [f"sitesim/schedulers/{name}.pyx"]) for name in ("_reservations", "_backfill")]
    # The priorities must be the very numbers the Python original computes: no fused multiply-add.
    modules.append(Extension("sitesim.schedulers._priority", ["sitesim/schedulers/_priority.pyx"],
                             extra_compile_args=["-ffp-contract=off"]))
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
