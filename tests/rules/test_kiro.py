"""Kiro steering files: ``inclusion`` (always, fileMatch, manual, auto), ``fileMatchPattern``
and ``#[[file:path]]`` references."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.core.provider import contribute
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.rules.catalog import Catalog
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS, ScopeKind
from providers.rules.expand import ImportPolicy, load_expanded
from providers.rules.load import Problem, Rule, default_reader, load_rule
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.scoped_docs.sections import INDEX_LABEL
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, request, texts


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


# -- inclusion: auto and #[[file:path]] (issue 23 item 7) ------------------------------


def test_auto_is_listed_by_its_description(root: Path) -> None:
    """``inclusion: auto``: Kiro includes it when a request matches its description; we
    list it for the model, as Cursor's agent-requested rules."""
    text = "---\ninclusion: auto\nname: api\ndescription: REST API design rules\n---\nAPI\n"
    loaded = steering(root, "api.md", text)
    assert isinstance(loaded, Rule) and loaded.on_request and not loaded.always
    assert loaded.description == "REST API design rules"
    assert steering(root, "bare.md", "---\ninclusion: auto\n---\nNo description\n") is None


def test_auto_reaches_the_index(tmp_path: Path) -> None:

    repo = make_repo(tmp_path / "repo")
    write(repo, ".kiro/steering/api.md", "---\ninclusion: auto\ndescription: REST APIs\n---\nA\n")
    write(repo, "src/a.py", "x\n")
    provider = ScopedDocsProvider()
    try:
        result = contribute(provider, request(repo, ("src/a.py",)), COUNTER)
    finally:
        provider.close()
    index = texts(result)[INDEX_LABEL]
    assert "[Rules to read when the task fits their description:]" in index
    assert "- .kiro/steering/api.md: REST APIs" in index
    assert "not applied" not in index


def test_file_references_are_read_from_the_workspace_root(root: Path) -> None:
    write(root, "api/openapi.yaml", "openapi: 3.1.0\n")
    write(root, "docs/style.md", "# Style\n\nShort names.\n")
    text = (
        "---\ninclusion: fileMatch\nfileMatchPattern: api/**\n---\n"
        "Follow the spec:\n\n#[[file:api/openapi.yaml]]\n\nAnd #[[file:docs/style.md]] too.\n"
        "`#[[file:in/code.md]]` stays.\n"
    )
    loaded = steering(root, "api.md", text)
    assert isinstance(loaded, Rule)
    assert "openapi: 3.1.0" in loaded.text and "#[[file:api/openapi.yaml]]" not in loaded.text
    assert "Short names." in loaded.text and "And #[[file:docs/style.md]] too." in loaded.text
    assert "`#[[file:in/code.md]]`" in loaded.text
    assert {Path(p).name for p, _ in loaded.imported} == {"openapi.yaml", "style.md"}


def test_a_missing_or_outside_reference_leaves_a_note(root: Path) -> None:
    text = "#[[file:nope.md]]\n\n#[[file:../outside.md]]\n"
    loaded = steering(root, "refs.md", text)
    assert isinstance(loaded, Rule)
    assert "[import #[[file:nope.md]] from .kiro/steering/refs.md not loaded:" in loaded.text
    assert "#[[file:../outside.md]] from .kiro/steering/refs.md not loaded: outside" in loaded.text


def test_always_steering_expands_references_in_repo_conventions(tmp_path: Path) -> None:

    repo = make_repo(tmp_path / "repo")
    write(repo, "AGENTS.md", "# Agents\n")
    write(repo, "tech.txt", "Python 3.11 MARK-TECH\n")
    write(repo, ".kiro/steering/tech.md", "# Tech\n\n#[[file:tech.txt]]\n")
    write(repo, "docs/x.md", "@tech.txt is not Kiro's\n")
    result = contribute(RepoConventionsProvider(), request(repo, ()), COUNTER)
    sections = texts(result)
    assert "MARK-TECH" in sections[".kiro/steering/tech.md"]


def test_references_count_only_in_kiro_steering(root: Path) -> None:

    write(root, "x.md", "MARK-X\n")
    write(root, "docs/a.md", "#[[file:x.md]]\n")
    loaded = load_expanded(root, "docs/a.md", ImportPolicy())
    assert not isinstance(loaded, Problem) and "MARK-X" not in getattr(loaded, "text", "")
