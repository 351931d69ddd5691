"""The code the docs show runs as shown (issue 26, group 11).

README's Python block defines what it uses; sweeps.md's Python block is a script that
starts worker processes only under a ``__main__`` guard, and its replay example replays
a trace that an earlier command of the same block writes.
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from pathlib import Path

import sitesim

ROOT = Path(__file__).resolve().parents[1]


def _blocks(text: str, fence: str) -> list[str]:
    return re.findall(rf"```{fence}\n(.*?)```", text, flags=re.S)


def _readme_python() -> str:
    section = (ROOT / "README.md").read_text().split("## Python", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("    ") or not line.strip()]
    return textwrap.dedent("\n".join(lines)).strip() + "\n"


def test_readme_python_defines_what_it_uses() -> None:
    tree = ast.parse(_readme_python())
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(dir(builtins))
    imported = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    assigned = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    parameters = {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args}
    comprehension = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    assert "MyScheduler" in defined
    assert used <= defined | imported | assigned | parameters | comprehension


def test_readme_scheduler_runs_under_its_own_name() -> None:
    code = _readme_python().split("sitesim.replay(")[0].replace("duration_days=30", "duration_days=1")
    namespace: dict[str, object] = {"__name__": "__main__"}  # as a script or notebook runs it
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the README's own code
    cls = namespace["MyScheduler"]
    assert cls.__dict__.get("name") == "smallest-first"  # type: ignore[attr-defined]
    result = sitesim.simulate(users=3, scheduler=cls, duration_days=1)
    assert result.summary["config"]["scheduler"] == "smallest-first"


def test_sweeps_python_snippet_has_a_main_guard() -> None:
    (python,) = _blocks((ROOT / "docs" / "sweeps.md").read_text(), "python")
    tree = ast.parse(python)
    guard = [n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)]
    assert guard and any("run_sweep" in ast.unparse(n) for n in guard[0].body)
    assert not any("run_sweep(" in ast.unparse(n) for n in tree.body if n not in guard)


def test_sweeps_replay_example_replays_a_trace_it_writes() -> None:
    shell = _blocks((ROOT / "docs" / "sweeps.md").read_text(), "sh")[0]
    written: set[str] = set()
    for command in shell.replace("\\\n", " ").splitlines():
        for trace in re.findall(r"--trace (\S+)", command):
            assert trace.split("/")[0] in written, trace
        written.update(re.findall(r"--out (\S+)", command))
