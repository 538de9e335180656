"""Issue 12: the map spends its budget on what the agent will open next."""

from __future__ import annotations

from pathlib import Path

from providers.core.budget import FallbackCounter
from providers.file_tree.history import build
from providers.file_tree.kinds import kind_factor
from providers.file_tree.rank import Focus, order_touched, targets
from providers.file_tree.section import Presentation, build_section
from providers.file_tree.tree import Tree
from tests.file_tree.helpers import shown_paths

REPO = [
    *(f"src/app/mod{i:02}.py" for i in range(40)),
    "src/app/routing.py",
    "tests/test_routing.py",
    *(f"docs/de/page{i}.md" for i in range(30)),
    *(f"docs/en/page{i}.md" for i in range(30)),
    "package-lock.json",
    ".github/workflows/ci.yml",
    "README.md",
    "vendor/lib/x.js",
]


def shown(tree: Tree, focus: Focus, budget: int = 250) -> set[str]:
    section = build_section(tree, Presentation("repo"), focus, budget, FallbackCounter())
    assert section is not None
    return shown_paths(section.text)


def test_a_touched_file_brings_its_tests_partners_and_neighbours() -> None:
    history = build([["src/app/routing.py", "src/app/mod33.py"], ["src/app/mod05.py"]] * 3)
    seen = shown(Tree.of(REPO), Focus(touched=("src/app/routing.py",), history=history))
    assert "src/app/routing.py" in seen
    assert "src/app/mod33.py" in seen  # changed with it before
    assert "tests/test_routing.py" in seen  # its test
    assert "src/app/mod39.py" in seen  # the entry right before it (neighbours, not the alphabet)


def test_root_entries_stay_when_files_are_touched() -> None:
    tree = Tree.of(REPO)
    before = {p for p in shown(tree, Focus(), 120) if "/" not in p.rstrip("/")}
    after = {p for p in shown(tree, Focus(touched=("src/app/mod20.py",)), 120)}
    assert before <= after


def test_generated_vendored_and_translations_weigh_little() -> None:
    assert kind_factor("package-lock.json", False) < 0.1
    assert kind_factor("vendor/lib/x.js", False) < 0.1
    assert kind_factor("docs/de/page1.md", False) < kind_factor("docs/en/page1.md", False)
    assert kind_factor(".github/workflows/ci.yml", False) < 1
    order = list(targets(Tree.of(REPO), Focus(), None))
    assert order.index("src") < order.index(".github")
    assert order.index("src") < order.index("vendor")


def test_this_turns_files_come_before_earlier_ones() -> None:
    focus = order_touched(["b.py"], ["a.py", "c.py"])
    assert focus.touched == ("b.py", "c.py", "a.py")  # then the newest earlier first
    assert focus.this_turn == ("b.py",) and focus.earlier == ("c.py", "a.py")


def test_more_budget_never_shows_less() -> None:
    tree = Tree.of(REPO)
    history = build([["src/app/routing.py", "docs/en/page3.md"]])
    focus = Focus(touched=("src/app/routing.py",), history=history)
    previous: set[str] = set()
    for budget in range(20, 600, 20):
        now = shown(tree, focus, budget)
        assert previous <= now, budget
        previous = now


def test_same_named_files_elsewhere_are_neighbours() -> None:
    tree = Tree.of(["a/x/spec-case.js", "b/y/z/spec-case.js", *(f"a/x/f{i}.js" for i in range(60))])
    assert "b/y/z/spec-case.js" in shown(tree, Focus(touched=("a/x/spec-case.js",)), 150)


FASTAPI = Path(__file__).with_name("data") / "fastapi_paths.txt"
"""fastapi's paths at the commit the orientation benchmark pins (``git ls-tree -r
--name-only 6d9dc39``): the layout only, no file's contents."""


def test_a_first_map_without_history_shows_the_main_source_package() -> None:
    """Issue 22 item 3: on fastapi's layout, with no history, the default budget opened
    ``docs/`` (1,200 files, 800 of them translations: 24 folders listed) and
    ``docs_src/`` (72 example folders listed) and left ``fastapi/`` (45 files) one
    collapsed line. Directories at one depth now share it by weight, documentation,
    examples and tests count half their size and translations hardly at all: the package
    shows whole, the translations are one "more" line."""
    paths = FASTAPI.read_text().splitlines()
    seen = shown(Tree.of(paths), Focus(), 1000)
    package = {p for p in paths if p.startswith("fastapi/") and p.count("/") == 1}
    assert package <= seen
    assert {"fastapi/dependencies/", "fastapi/security/"} <= seen
    translations = {p for p in seen if p.count("/") == 2 and p.startswith("docs/")}
    assert translations == {"docs/en/"}
    assert any(p.startswith("docs_src/") for p in seen)  # the examples still show, in part
    assert any(p.startswith("tests/test_") for p in seen)
