"""Packaging: the project's metadata is in pyproject.toml; this maps the data and builds
the compiled twins.

The shipped tables (``empirical/``) and site files (``models/``) stay top-level folders
of the repository, and the wheel carries them as the data packages ``sitesim.empirical``
and ``sitesim.models`` (read with importlib.resources, sitesim/resources.py).

Four compiled modules (Cython), each the twin of a Python implementation that gives the
same answers, only slower (docs/performance.md): ``sitesim.schedulers._reservations``,
conservative backfilling's planned schedule in C arrays, ``sitesim.schedulers._backfill``,
EASY's backfill scan and shadow time, ``sitesim.schedulers._priority``, the
ordered queues of the multifactor and creasy policies, and ``sitesim.workload._swf``, the
SWF reader's usual line of 18 plain numbers. They
are optional: where the compiler fails (no C compiler), the install warns and goes on,
and the Python implementations are used. Cython itself is a build requirement
(pyproject.toml), which pip installs for the build; a ``setup.py`` run without it (a
source distribution made where it is missing) leaves the extensions out, and
MANIFEST.in ships their sources anyway.

Beside the compiled modules the build writes a record of their sizes and hashes
(``_compiled.json`` in each package that has some; sitesim/twin_manifest.py), in the
build tree (so the wheel carries it) and, for an in-place or editable build, in the
source tree: the
loader checks each compiled module against it before loading, since a truncated one
kills the process (SIGBUS) instead of raising an error it could fall back from.
"""

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

DATA = {"sitesim.empirical": "empirical", "sitesim.models": "models"}
HERE = Path(__file__).resolve().parent


def _twin_manifest():
    """sitesim/twin_manifest.py, loaded by path: importing the package would need its
    dependencies, which a build does not have."""
    spec = importlib.util.spec_from_file_location("twin_manifest", HERE / "sitesim" / "twin_manifest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithManifest(build_ext):
    """build_ext, then the record of what it built, beside each copy of the modules."""

    def run(self):
        super().run()
        manifest = _twin_manifest()
        for directory, modules in self._module_copies().items():
            if any(path.is_file() for path in modules):
                manifest.write(directory, modules)

    def _module_copies(self):
        """Folder -> the compiled modules in it: the build tree's, and the source tree's
        for an in-place (or editable) build."""
        build_py = self.get_finalized_command("build_py")
        copies = {}
        for ext in self.extensions:
            filename = self.get_ext_filename(self.get_ext_fullname(ext.name))
            built = Path(self.build_lib) / filename
            copies.setdefault(built.parent, []).append(built)
            if self.inplace:
                package = ".".join(self.get_ext_fullname(ext.name).split(".")[:-1])
                local = Path(build_py.get_package_dir(package)) / os.path.basename(filename)
                copies.setdefault(local.parent, []).append(local)
        return copies

    def get_outputs(self):
        return [*super().get_outputs(), *self._manifests()]

    def get_output_mapping(self):
        mapping = dict(super().get_output_mapping())
        if self.inplace:
            mapping.update(self._manifest_pairs())
        return mapping

    def _manifests(self):
        pairs = self._manifest_pairs()
        return list(pairs.values() if self.inplace else pairs)

    def _manifest_pairs(self):
        """The build tree's manifest -> the source tree's, for each package with twins."""
        name = _twin_manifest().MANIFEST
        build_py = self.get_finalized_command("build_py")
        packages = sorted({".".join(self.get_ext_fullname(ext.name).split(".")[:-1]) for ext in self.extensions})
        return {os.path.join(self.build_lib, *package.split("."), name):
                os.path.join(build_py.get_package_dir(package), name) for package in packages}


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
    modules.append(Extension("sitesim.workload._swf", ["sitesim/workload/_swf.pyx"]))
    built = cythonize(modules, compiler_directives={"language_level": "3"}, quiet=True)
    for module in built:
        module.optional = True  # set after cythonize, which does not carry it over
    return built


setup(
    packages=[*find_packages(include=["sitesim", "sitesim.*"]), *DATA],
    package_dir=DATA,
    package_data={"sitesim": ["py.typed", "schedulers/*.pyi", "workload/*.pyi"], "sitesim.empirical": ["*.json", "README.md"],
                  "sitesim.models": ["*.toml"]},
    include_package_data=False,
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildWithManifest},
)
