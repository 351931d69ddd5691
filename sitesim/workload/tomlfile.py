"""TOML input files (site files, partition files, grids): read whole, errors in one line.

``path`` may also be a shipped file (:mod:`sitesim.resources`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitesim.errors import InputError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def read_toml(path: str | Path | Traversable) -> dict[str, Any]:
    """A TOML file's tables; unreadable or invalid files are input errors naming it."""
    import tomllib  # here, not at the top: a run without a site or partition file never reads TOML

    where = str(path)
    file = Path(path) if isinstance(path, str) else path
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read site file: {exc.strerror or exc}", path=where) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}): TOML files are UTF-8", path=where) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"invalid TOML: {exc}", path=where) from None
