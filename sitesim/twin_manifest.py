"""The build's record of the compiled twins: size and SHA-256 of each, checked before loading.

Why: loading a shared library maps it into memory, and a file cut short (an interrupted
copy, a full disk during ``pip install``) makes the loader touch pages beyond its end:
the process dies of SIGBUS, with no message and no chance to fall back, since no
exception is raised. So the build writes, beside the compiled modules, a manifest of
their sizes and hashes (:data:`MANIFEST`), and :func:`~sitesim.compiled.twin`
loads a compiled module only where it matches; otherwise the Python original runs,
after a warning.

This module imports nothing of sitesim's: setup.py loads it by path to write the
manifest (the package's dependencies are not there while it builds), so the file name,
the format and the check are declared once, here.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

#: The manifest's file name, beside the compiled modules it describes.
MANIFEST = "_compiled.json"
#: What the manifest says it is (a file of another format is not read as one).
FORMAT = "sitesim-compiled-twins"
#: The largest manifest read: three entries need a few hundred bytes.
MAX_MANIFEST_BYTES = 64 * 1024


def digest(path: Path) -> str:
    """SHA-256 of the file's bytes (read, never mapped: a short file is just short)."""
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def write(directory: Path, modules: Iterable[Path]) -> Path:
    """Record the size and hash of each built module in ``directory``'s manifest (by file
    name; modules that are missing, an optional build that failed, are left out)."""
    entries = {
        path.name: {"size": path.stat().st_size, "sha256": digest(path)}
        for path in sorted(modules) if path.is_file()
    }
    target = directory / MANIFEST
    target.write_text(json.dumps({"format": FORMAT, "modules": entries}, indent=1, sort_keys=True) + "\n")
    return target


def problem(module: Path) -> str | None:
    """Why the compiled ``module`` must not be loaded, or None where it matches what its
    build recorded. The size is compared first (a truncated file is found without
    reading it), then the hash."""
    manifest = module.parent / MANIFEST
    try:
        with open(manifest, "rb") as handle:
            raw = handle.read(MAX_MANIFEST_BYTES + 1)
        if len(raw) > MAX_MANIFEST_BYTES:
            return f"its build record {manifest.name} is too large"
        data = json.loads(raw.decode("utf-8"))
        entry = data["modules"][module.name] if data.get("format") == FORMAT else None
    except FileNotFoundError:
        return f"its build left no record of it ({manifest.name}), so it cannot be checked"
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        entry = None
    if not isinstance(entry, dict):
        return f"its build record {manifest.name} does not describe it"
    try:
        size = os.stat(module).st_size
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    recorded = entry.get("size")
    if size != recorded:
        shown = f"{recorded:,}" if isinstance(recorded, int) else repr(recorded)
        return f"it is {size:,} bytes where its build recorded {shown}"
    try:
        if digest(module) != entry.get("sha256"):
            return "its bytes differ from those its build recorded (SHA-256)"
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    return None
