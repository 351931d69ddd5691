"""The docs stay true to themselves: every page is reachable from docs/index.md, and every
generated block in docs/ is current, or at least still tied to what writes it.

A generated block lies between two marker comments (``<!-- name:start -->`` and the
like) that the script writing it looks for. Every marker comment in docs/ is listed
in :data:`BLOCKS`, which says how its block is checked:

- ``regenerated``: remade here in memory from what the repository holds (the sources,
  the CSVs in docs/data) with the script's own functions, and compared with the page;
  the page must be regenerated when it differs (the test says with which command);
- ``runs``: remaking it needs hours of simulation on the archive's logs, so only what
  is cheap is checked: the writing script still holds both markers exactly (so its
  ``--doc`` replaces this block and no other), and the block is not empty;
- ``hand``: written by hand and marked for a reader or a test (``layers`` is read by
  tests/test_layering.py): both markers present, once.

A marker comment not listed fails the test, so a new generated block says how it is
kept current.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SCRIPTS = ROOT / "scripts"
DATA = DOCS / "data"


def script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as a module (scripts import each other by bare name)."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(f"docs_check_{name}", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variant_lines() -> str:
    """The variants' module sizes, from the files as they are now (as ``write_doc`` puts
    them after the start marker's line)."""
    return "\n" + script("variants_table").lines_table()


def moldable(name: str, table: str, *csvs: str) -> Callable[[], str]:
    """A moldable.md table, from its CSVs in docs/data, as plot_moldable.py writes it."""

    def make() -> str:
        m = script("plot_moldable")
        lines = getattr(m, table)(*(m.read(DATA / f"moldable-{c}.csv") for c in csvs))
        return "\n" + "\n".join(lines) + "\n"

    make.__name__ = name
    return make


MOLDABLE_COMMAND = (
    "python scripts/plot_moldable.py --one-apples docs/data/moldable-one-apples.csv"
    " --bushel docs/data/moldable-bushel.csv --sigma docs/data/moldable-sigma.csv"
    " --feedback docs/data/moldable-feedback.csv --adaptive docs/data/moldable-adaptive-summary.csv"
    " --doc docs/moldable.md"
)

#: (page, begin marker, end marker) -> how the block is checked: ("regenerated", the
#: block's expected text, the command that rewrites the page), ("runs", script), or
#: ("hand",).
def options_table() -> str:
    """docs/options.md's table, from the options' one declaration."""
    return "\n" + script("options_table").table() + "\n"


BLOCKS: dict[tuple[str, str, str], tuple] = {
    ("options.md", "<!-- options table: begin (scripts/options_table.py) -->", "<!-- options table: end -->"):
        ("regenerated", options_table, "python scripts/options_table.py --doc docs/options.md"),
    ("schedulers.md", "<!-- variant-lines:start -->", "<!-- variant-lines:end -->"):
        ("regenerated", variant_lines, "python scripts/variants_table.py --lines-doc docs/schedulers.md"),
    ("moldable.md", "<!-- one-apples table: begin -->", "<!-- one-apples table: end -->"):
        ("regenerated", moldable("one-apples", "one_apples_table", "one-apples"), MOLDABLE_COMMAND),
    ("moldable.md", "<!-- bushel table: begin -->", "<!-- bushel table: end -->"):
        ("regenerated", moldable("bushel", "bushel_table", "bushel"), MOLDABLE_COMMAND),
    ("moldable.md", "<!-- load-ratio table: begin -->", "<!-- load-ratio table: end -->"):
        ("regenerated", moldable("load-ratio", "load_ratio_table", "bushel"), MOLDABLE_COMMAND),
    ("moldable.md", "<!-- sigma table: begin -->", "<!-- sigma table: end -->"):
        ("regenerated", moldable("sigma", "variant_table", "sigma", "bushel"), MOLDABLE_COMMAND),
    ("moldable.md", "<!-- feedback table: begin -->", "<!-- feedback table: end -->"):
        ("regenerated", moldable("feedback", "variant_table", "feedback", "bushel"), MOLDABLE_COMMAND),
    ("moldable.md", "<!-- adaptive table: begin -->", "<!-- adaptive table: end -->"):
        ("regenerated", moldable("adaptive", "adaptive_table", "adaptive-summary"), MOLDABLE_COMMAND),
    ("backfilling-results.md", "<!-- estimates-table:start -->", "<!-- estimates-table:end -->"):
        ("runs", "estimates_table"),
    ("backfilling-results.md", "<!-- variants-table:start -->", "<!-- variants-table:end -->"):
        ("runs", "variants_table"),
    ("feedback-replay.md", "<!-- BEGIN results: scripts/feedback_table.py -->", "<!-- END results -->"):
        ("runs", "feedback_table"),
    ("fidelity.md", "<!-- generated by scripts/fidelity.py: begin -->", "<!-- generated by scripts/fidelity.py: end -->"):
        ("runs", "fidelity"),
    ("site-level.md", "<!-- variants-site:start -->", "<!-- variants-site:end -->"):
        ("runs", "variants_site"),
    ("study.md", "<!-- example: begin -->", "<!-- example: end -->"):
        ("runs", "study_example"),
    ("trial-runs.md", "<!-- trial-runs table: begin (scripts/trial_runs_table.py) -->", "<!-- trial-runs table: end -->"):
        ("runs", "trial_runs_table"),
    ("user-aware.md", "<!-- user-aware:start -->", "<!-- user-aware:end -->"):
        ("runs", "user_aware"),
    ("service.md", "<!-- service table, development logs: begin (scripts/service_table.py) -->",
     "<!-- service table, development logs: end -->"): ("runs", "service_table"),
    ("service.md", "<!-- service table, held-out logs: begin (scripts/service_table.py --held-out) -->",
     "<!-- service table, held-out logs: end -->"): ("runs", "service_table"),
    ("architecture.md", "<!-- layers: begin -->", "<!-- layers: end -->"): ("hand",),
    ("moldable.md", "<!-- partitions example: begin -->", "<!-- partitions example: end -->"): ("hand",),
    ("moldable.md", "<!-- bushel coverage: begin -->", "<!-- bushel coverage: end -->"): ("hand",),
    ("moldable.md", "<!-- adaptive answer: begin -->", "<!-- adaptive answer: end -->"): ("hand",),
}


def pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def block(page: str, begin: str, end: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    assert text.count(begin) == 1 and text.count(end) == 1, f"{page}: {begin} and {end} must occur once each"
    inside = text.split(begin, 1)[1]
    assert end in inside, f"{page}: {end} comes before {begin}"
    return inside.split(end, 1)[0]


def marker_comments(text: str) -> Iterator[str]:
    """HTML comments on lines of their own: the form every block marker takes."""
    return (m.group(0) for m in re.finditer(r"^<!--.*?-->$", text, flags=re.MULTILINE))


def test_every_marker_in_docs_is_a_known_block() -> None:
    known = {(page, marker) for page, begin, end in BLOCKS for marker in (begin, end)}
    unknown = [
        f"{page.name}: {marker}"
        for page in pages()
        for marker in marker_comments(page.read_text(encoding="utf-8"))
        if (page.name, marker) not in known
    ]
    assert not unknown, "say in tests/test_docs.py how these blocks are kept current:\n" + "\n".join(unknown)


@pytest.mark.parametrize(
    "key", [k for k, how in BLOCKS.items() if how[0] == "regenerated"], ids=lambda k: f"{k[0]}:{k[1][5:-4]}"
)
def test_a_block_remade_from_the_repository_is_current(key: tuple[str, str, str]) -> None:
    page, begin, end = key
    _, make, command = BLOCKS[key]
    assert block(page, begin, end) == make(), f"docs/{page} is out of date: run `{command}`"


@pytest.mark.parametrize("key", [k for k, how in BLOCKS.items() if how[0] == "runs"], ids=lambda k: k[0])
def test_a_block_remade_by_runs_is_still_the_scripts(key: tuple[str, str, str]) -> None:
    page, begin, end = key
    source = (SCRIPTS / f"{BLOCKS[key][1]}.py").read_text(encoding="utf-8")
    for marker in (begin, end):
        # A script holds the marker whole, or its name between the comment's delimiters.
        assert marker in source or marker.removeprefix("<!-- ").removesuffix(" -->") in source, (page, marker)
    assert block(page, begin, end).strip(), f"docs/{page}: the block between {begin} and {end} is empty"


@pytest.mark.parametrize("key", [k for k, how in BLOCKS.items() if how[0] == "hand"], ids=lambda k: k[0])
def test_a_marked_hand_written_block_is_there(key: tuple[str, str, str]) -> None:
    assert block(*key).strip()


def test_the_line_count_block_follows_the_sources(tmp_path: Path) -> None:
    """The check cannot pass on a stale table: one line more in a variant's module changes it."""
    m = script("variants_table")
    before = m.lines_table()
    folder = tmp_path / "schedulers"
    folder.mkdir()
    for name in m.MODULES.values():
        source = (ROOT / "sitesim" / "schedulers" / name).read_text(encoding="utf-8")
        (folder / name).write_text(source + ("\n" if name == "sjbf.py" else ""), encoding="utf-8")
    after = m.lines_table(folder)
    assert before != after


def test_index_links_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w.-]+\.md)(?:#[\w-]*)?\)", index))
    missing = [p.name for p in pages() if p.name != "index.md" and p.name not in linked]
    assert not missing, f"docs/index.md links none of: {missing}"


def test_readme_points_to_the_index_instead_of_listing_pages() -> None:
    """The README keeps its two commands on top and leaves the map of docs/ to index.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^    (.+)$", readme, flags=re.MULTILINE)
    assert blocks[:2] == ["python -m pip install -e . && sitesim", "python -m pip install -e '.[test]' && python -m pytest -q"]
    assert "](docs/index.md)" in readme
    listed = re.findall(r"^- .*`docs/[\w-]+\.md`", readme, flags=re.MULTILINE)
    assert not listed, f"README lists pages that docs/index.md maps: {listed}"
