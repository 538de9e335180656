"""Issue 13: always-on rules are static and live in repo conventions (the cached prefix),
after the convention files, in a stated order (each tool's main rule file before niche
ones); scoped docs keeps only the conditional ones, and ``leave`` loses nothing."""

from __future__ import annotations

import os
from pathlib import Path

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, Contribution, ModelTarget, Stability
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.rules.order import stated_order
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.support.files import make_repo, write

COUNTER = FallbackCounter()


def ask(
    provider: object, root: Path, budget: int = 8000, touched: tuple[str, ...] = ()
) -> Contribution:
    request = ContextRequest(budget, str(root), ModelTarget("m"), files_touched=touched)
    return contribute(provider, request, COUNTER)  # type: ignore[arg-type]


def conventions(**config: object) -> RepoConventionsProvider:
    provider = RepoConventionsProvider()
    provider.configure(config)
    return provider


def labels(result: Contribution) -> list[str]:
    return [s.label for s in result.sections]


def cline_shaped(root: Path) -> Path:
    """cline/cline's layout: niche rules sort before general.md; procedures beside them."""
    make_repo(root)
    write(root, "AGENTS.md", "# Agents\n\nROOT\n")
    write(root, ".clinerules/bun-and-node.md", "# Bun\n\nBUN\n")
    write(root, ".clinerules/cline-overview.md", "# Overview\n\n" + "OVERVIEW " * 400 + "\n")
    write(root, ".clinerules/general.md", "Tribal knowledge.\n\nGENERAL\n")
    write(root, ".clinerules/storage.md", "---\npaths: ['src/storage/**']\n---\n# Storage\n")
    write(root, ".clinerules/workflows/release.md", "# Release\n\nPROCEDURE\n")
    write(root, ".clinerules/hooks/pre.md", "# Hook\n")
    return root


def test_every_tools_always_form_is_a_static_section_after_the_convention_files(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path)
    write(root, "CLAUDE.md", "# Claude\n\nROOT\n")
    write(root, ".cursor/rules/always.mdc", "---\nalwaysApply: true\n---\nCURSOR\n")
    write(root, ".cursor/rules/py.mdc", "---\nglobs: '**/*.py'\n---\nCURSOR PY\n")
    write(root, ".cursor/rules/asked.mdc", "---\ndescription: when migrating\n---\nASKED\n")
    write(root, ".claude/rules/style.md", "# Style\n\nCLAUDE STYLE\n")
    write(root, ".claude/rules/api.md", "---\npaths: ['src/api/**']\n---\nCLAUDE API\n")
    write(root, ".clinerules/general.md", "CLINE\n")
    write(root, ".windsurf/rules/on.md", "---\ntrigger: always_on\n---\nWINDSURF\n")
    write(root, ".windsurf/rules/model.md", "---\ntrigger: model_decision\n---\nMODEL\n")
    write(root, ".continue/rules/base.md", "---\nname: base\n---\nCONTINUE\n")
    write(root, ".continue/rules/ts.md", "---\nglobs: '**/*.ts'\n---\nCONTINUE TS\n")
    result = ask(conventions(), root)
    assert labels(result) == [
        "CLAUDE.md",
        ".cursor/rules/always.mdc",
        ".claude/rules/style.md",
        ".clinerules/general.md",
        ".windsurf/rules/on.md",
        ".continue/rules/base.md",
    ]
    assert all(s.stability is Stability.STATIC for s in result.sections)
    text = "".join(s.text for s in result.sections)
    assert "alwaysApply" not in text and "trigger" not in text  # front matter stripped
    for conditional in ("CURSOR PY", "ASKED", "CLAUDE API", "MODEL", "CONTINUE TS"):
        assert conditional not in text


def test_the_main_rule_file_comes_before_niche_ones_and_procedures_are_not_rules(
    tmp_path: Path,
) -> None:
    root = cline_shaped(tmp_path)
    result = ask(conventions(), root)
    assert labels(result) == [
        "AGENTS.md",
        ".clinerules/general.md",
        ".clinerules/bun-and-node.md",
        ".clinerules/cline-overview.md",
    ]
    assert "PROCEDURE" not in "".join(s.text for s in result.sections)
    # A tight budget keeps the root file and the main rule file first; the rest is named.
    tight = ask(conventions(), root, budget=120)
    assert labels(tight)[:2] == ["AGENTS.md", ".clinerules/general.md"]
    assert "cline-overview.md" in tight.sections[-1].text


def test_numbered_rule_files_keep_their_authors_order() -> None:
    paths = [
        ".cursor/rules/010-style.mdc",
        ".cursor/rules/000-core.mdc",
        ".cursor/rules/general.mdc",
    ]
    assert stated_order(paths, [".cursor/rules"]) == [
        ".cursor/rules/000-core.mdc",
        ".cursor/rules/010-style.mdc",
        ".cursor/rules/general.mdc",
    ]
    nested = [".claude/rules/a/main.md", ".claude/rules/z.md", ".claude/rules/main.md"]
    assert stated_order(nested, [".claude/rules"]) == [
        ".claude/rules/main.md",
        ".claude/rules/z.md",
        ".claude/rules/a/main.md",
    ]


def test_scoped_docs_leaves_them_and_the_two_never_send_one_rule_twice(tmp_path: Path) -> None:
    root = cline_shaped(tmp_path)
    scoped = ScopedDocsProvider()
    scoped.configure({"watch": False})
    dynamic = ask(scoped, root, touched=("src/storage/db.ts",))
    static = ask(conventions(), root)
    dynamic_labels = [label.split(" (")[0] for label in labels(dynamic)]
    assert ".clinerules/storage.md" in dynamic_labels
    assert not set(dynamic_labels) & set(labels(static))


def test_a_rule_that_repeats_a_convention_file_is_sent_once(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    write(root, "AGENTS.md", "# Agents\n\nSHARED\n")
    (root / ".claude/rules").mkdir(parents=True)
    os.symlink("../../AGENTS.md", root / ".claude/rules/agents.md")
    write(root, ".clinerules/copy.md", "# Agents\n\nSHARED\n")
    assert labels(ask(conventions(), root)) == ["AGENTS.md"]


def test_imports_in_an_always_rule_resolve(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    write(root, "docs/testing.md", "TESTING GUIDE\n")
    write(root, ".claude/rules/testing.md", "# Testing\n\n@../../docs/testing.md\n")
    result = ask(conventions(), root)
    assert "TESTING GUIDE" in result.sections[0].text


def test_switched_off_and_fresh_after_edits(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    write(root, "AGENTS.md", "ROOT\n")
    assert labels(ask(conventions(always_rules=False), root)) == ["AGENTS.md"]
    provider = conventions()
    assert labels(ask(provider, root)) == ["AGENTS.md"]
    rule = write(root, ".cursor/rules/new.mdc", "---\nalwaysApply: true\n---\nNEW\n")
    assert labels(ask(provider, root)) == ["AGENTS.md", ".cursor/rules/new.mdc"]
    rule.write_text("---\nalwaysApply: false\nglobs: '*.py'\n---\nNEW, now scoped\n")
    os.utime(rule, ns=(1, 1))  # a different key even within the clock's resolution
    assert labels(ask(provider, root)) == ["AGENTS.md"]
