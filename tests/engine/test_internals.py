"""Only sitesim/engine/events.py touches SimPy's internals.

The engine works on SimPy's event queue directly in a few places (speed, or a move no
public call makes); a SimPy release that changes that state must break one module,
whose tests compare it with SimPy's own calls. What counts as touching the internals,
read from the source:

- an attribute SimPy keeps private (any ``_name`` SimPy's own source uses as an
  attribute: ``env._queue``, ``env._now``, ``event._value``, ...), except on ``self``
  in a class that is not SimPy's (``self._now`` of a scheduler is its own);
- an event's ``callbacks`` list (who runs when an event is processed is the queue's
  business: a process's resumption moved by hand changes the order of events);
- the queue's priorities (``NORMAL``, ``URGENT``) taken from SimPy;
- ``schedule`` called on an environment (``env.schedule``), which writes a queue entry.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import simpy

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sitesim"
HOLDER = PACKAGE / "engine" / "events.py"
PRIORITIES = {"NORMAL", "URGENT"}


def simpy_private_names() -> set[str]:
    """Every ``_name`` (not a dunder) SimPy's source uses as an attribute."""
    names: set[str] = set()
    for path in Path(simpy.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                names.add(node.attr)
    return names


def simpy_classes(module: str) -> set[str]:
    """Names of the classes defined in sitesim module ``module`` that derive from SimPy's."""
    mod = importlib.import_module(module)
    return {
        name for name, cls in vars(mod).items()
        if inspect.isclass(cls) and cls.__module__ == module
        and any(base.__module__.startswith("simpy") for base in cls.__mro__)
    }


def touches(source: str, private: set[str], simpy_owned: set[str]) -> list[str]:
    """Where ``source`` touches SimPy's internals: ``line: what``, in order."""
    found: list[str] = []

    def walk(node: ast.AST, own_self: bool) -> None:
        if isinstance(node, ast.ClassDef):
            own_self = node.name not in simpy_owned
        elif isinstance(node, ast.Attribute):
            on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
            if node.attr in private and not (on_self and own_self):
                found.append(f"{node.lineno}: .{node.attr}")
            elif node.attr == "callbacks":
                found.append(f"{node.lineno}: .callbacks")
            elif node.attr in PRIORITIES and "simpy" in ast.unparse(node.value):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
            elif node.attr == "schedule" and ast.unparse(node.value).split(".")[-1] in ("env", "environment"):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simpy"):
            found.extend(f"{node.lineno}: {a.name} from {node.module}" for a in node.names if a.name in PRIORITIES)
        for child in ast.iter_child_nodes(node):
            walk(child, own_self)

    walk(ast.parse(source), own_self=False)
    return found


def test_the_check_sees_each_kind_of_touch() -> None:
    """The checker flags every kind of use listed above, and not a class's own ``_now``."""
    source = (
        "from simpy.core import NORMAL\n"
        "due = env._queue[0][0] <= env._now\n"
        "timer.callbacks.pop()\n"
        "self.site.env.schedule(stop, simpy.core.URGENT, 5)\n"
        "class Policy:\n"
        "    def schedule(self, now): self._now = now; return self.queue.schedule(now)\n"
        "class Stop(simpy.Event):\n"
        "    def fire(self): self._ok = True\n"
    )
    assert touches(source, simpy_private_names(), {"Stop"}) == [
        "1: NORMAL from simpy.core", "2: ._queue", "2: ._now", "3: .callbacks",
        "4: self.site.env.schedule", "4: simpy.core.URGENT", "8: ._ok",
    ]


def test_no_module_but_the_engine_events_touches_simpy_internals() -> None:
    private = simpy_private_names()
    assert {"_queue", "_now", "_eid", "_value", "_ok"} <= private  # what the engine uses is seen
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == HOLDER:
            continue
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        module = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        owned = simpy_classes(module) if "simpy" in source else set()
        wrong.extend(f"{rel}:{where}" for where in touches(source, private, owned))
    assert not wrong, "SimPy's internals outside sitesim/engine/events.py:\n" + "\n".join(wrong)


def test_the_engine_events_module_does_touch_them() -> None:
    """The holder is where the uses are (so the check above is not empty by a wrong path)."""
    assert len(touches(HOLDER.read_text(encoding="utf-8"), simpy_private_names(), {"At"})) >= 5
