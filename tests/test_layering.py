"""The package layering documented in docs/architecture.md holds, and has no cycle.

Every ``import sitesim.X`` / ``from sitesim.X import ...`` in the package, at module
level or inside a function, must point to the same package or one on a lower layer;
``import sitesim`` and ``from sitesim import name`` point to the package's ``__init__``,
on the top layer.
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


def imported_units(source: str) -> set[str]:
    """The units ``source`` imports from. ``import sitesim`` and ``from sitesim import
    name``, where ``name`` is not a module of the package, take from the package's own
    ``__init__`` (which sits at the top: it loads the API on demand)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "sitesim":
                names = [f"sitesim.{a.name}" if is_module(a.name) else "sitesim.__init__" for a in node.names]
        elif isinstance(node, ast.Import):
            names = ["sitesim.__init__" if a.name == "sitesim" else a.name for a in node.names]
        found.update(n.split(".")[1] for n in names if n.startswith("sitesim."))
    return found


def is_module(name: str) -> bool:
    return (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()


def imports(path: Path) -> set[str]:
    return imported_units(path.read_text(encoding="utf-8"))


def test_a_name_from_the_package_is_an_import_of_its_init() -> None:
    assert imported_units("from sitesim import __version__") == {"__init__"}
    assert imported_units("import sitesim\nprint(sitesim.__version__)") == {"__init__"}
    assert imported_units("from sitesim import api, simulate") == {"api", "__init__"}
    assert imported_units("import sitesim.workload.swf\nfrom sitesim.version import __version__") == {"workload", "version"}


def test_every_unit_has_a_layer() -> None:
    layer = layers()
    units = {unit(p) for p in PACKAGE.rglob("*.py")}
    assert units <= set(layer), f"add to docs/architecture.md: {sorted(units - set(layer))}"


def test_imports_only_go_down() -> None:
    layer = layers()
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        src = unit(path)
        for dst in imports(path):
            if dst != src and dst in layer and layer[dst] >= layer[src]:
                wrong.append(f"{path.relative_to(ROOT)}: {src} (layer {layer[src]}) imports {dst} (layer {layer[dst]})")
    assert not wrong, "\n".join(wrong)


def test_no_scheduler_reads_configuration() -> None:
    for path in (PACKAGE / "schedulers").rglob("*.py"):
        assert "runs" not in imports(path), path


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def module_imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules ``path`` imports anywhere (inside functions and under
    ``TYPE_CHECKING`` too): ``from a.b import c`` is ``a.b.c`` when that is a module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                found.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found & modules


def test_no_module_imports_itself_round_a_circle() -> None:
    """Within a unit too: two modules that import each other (even for types only) are
    one module in two files, or want a third that both build on."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {m: module_imports(p, set(paths)) - {m} for m, p in paths.items()}
    # Depth-first search; an edge back to a module on the current trail closes a circle.
    circles: list[str] = []
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                circles.append(" -> ".join([*trail[trail.index(n):], n]))
            elif n not in state:
                visit(n, [*trail, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not circles, "\n".join(circles)
