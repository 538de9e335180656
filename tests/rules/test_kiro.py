"""Kiro steering files: ``inclusion`` (always, fileMatch, manual) and ``fileMatchPattern``."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.rules.catalog import Catalog
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS, ScopeKind
from providers.rules.load import Problem, Rule, default_reader, load_rule
from tests.support.files import make_repo, write


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


def steering(root: Path, name: str, text: str) -> Rule | Problem | None:
    rel = f".kiro/steering/{name}"
    write(root, rel, text)
    return load_rule(root, rel, DIALECTS["kiro"], default_reader)


def test_kiro_is_a_builtin_rule_directory() -> None:
    assert (".kiro/steering", "kiro") in BUILTIN_RULE_DIRS
    assert DIALECTS["kiro"].accepts("tech.md") and not DIALECTS["kiro"].accepts("tech.txt")


def test_no_front_matter_is_always(root: Path) -> None:
    loaded = steering(root, "product.md", "# Product\n\nWhat we build.\n")
    assert isinstance(loaded, Rule) and loaded.always


def test_inclusion_always_and_default(root: Path) -> None:
    explicit = steering(root, "a.md", "---\ninclusion: always\n---\nA\n")
    assert isinstance(explicit, Rule) and explicit.always
    other_keys = steering(root, "b.md", "---\ntitle: b\n---\nB\n")
    assert isinstance(other_keys, Rule) and other_keys.always


def test_file_match_with_a_string(root: Path) -> None:
    loaded = steering(
        root, "ui.md", "---\ninclusion: fileMatch\nfileMatchPattern: components/**/*.tsx\n---\nUI\n"
    )
    assert isinstance(loaded, Rule) and not loaded.always
    hits = [loaded.match(p) is not None for p in ("components/a/B.tsx", "lib/B.tsx")]
    assert hits == [True, False]


def test_file_match_with_a_list(root: Path) -> None:
    loaded = steering(
        root,
        "ts.md",
        '---\ninclusion: fileMatch\nfileMatchPattern: ["**/*.ts", "**/*.tsx"]\n---\nTS\n',
    )
    assert isinstance(loaded, Rule)
    hits = [loaded.match(p) is not None for p in ("a/b.ts", "c.tsx", "d.js")]
    assert hits == [True, True, False]


def test_manual_is_not_injected(root: Path) -> None:
    assert steering(root, "m.md", "---\ninclusion: manual\n---\nM\n") is None
    assert DIALECTS["kiro"].interpret({"inclusion": "manual"}).kind is ScopeKind.MANUAL


@pytest.mark.parametrize(
    "front",
    ["inclusion: sometimes", "inclusion: fileMatch", 'inclusion: fileMatch\nfileMatchPattern: "!"'],
)
def test_unreadable_inclusion_is_a_problem(root: Path, front: str) -> None:
    loaded = steering(root, "x.md", f"---\n{front}\n---\nX\n")
    assert isinstance(loaded, Problem) and "not applied" in loaded.note


def test_catalog_finds_steering_files(root: Path) -> None:
    write(root, ".kiro/steering/tech.md", "# Tech\n\nPython 3.11.\n")
    write(
        root,
        ".kiro/steering/api.md",
        "---\ninclusion: fileMatch\nfileMatchPattern: api/**\n---\nAPI\n",
    )
    catalog = Catalog(root, {d: DIALECTS[n] for d, n in BUILTIN_RULE_DIRS}, ())
    catalog.scan_rule_dirs()
    assert {".kiro/steering/tech.md", ".kiro/steering/api.md"} <= set(catalog.rules)
