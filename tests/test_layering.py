"""The package layering documented in docs/architecture.md holds, and has no cycle.

Every ``import sitesim.X`` / ``from sitesim.X import ...`` in the package, at module
level or inside a function, must point to the same package or one on a lower layer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sitesim"


def layers() -> dict[str, int]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("<!-- layers: begin -->")[1].split("<!-- layers: end -->")[0]
    out: dict[str, int] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            for name in re.findall(r"`([\w_]+)`", cells[1]):
                out[name] = int(cells[0])
    return out


def unit(path: Path) -> str:
    """The package (first level under sitesim/) or top-level module a file belongs to."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "sitesim":
                names = [f"sitesim.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found.update(n.split(".")[1] for n in names if n.startswith("sitesim."))
    return found


def test_every_unit_has_a_layer() -> None:
    layer = layers()
    units = {unit(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    assert units <= set(layer), f"add to docs/architecture.md: {sorted(units - set(layer))}"


def test_imports_only_go_down() -> None:
    layer = layers()
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        src = unit(path)
        if src == "__init__":
            continue
        for dst in imports(path):
            if dst != src and dst in layer and layer[dst] >= layer[src]:
                wrong.append(f"{path.relative_to(ROOT)}: {src} (layer {layer[src]}) imports {dst} (layer {layer[dst]})")
    assert not wrong, "\n".join(wrong)


def test_no_scheduler_reads_configuration() -> None:
    for path in (PACKAGE / "schedulers").rglob("*.py"):
        assert "runs" not in imports(path), path
