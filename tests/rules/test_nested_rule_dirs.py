"""Issue 23 item 4: rule folders below the root (``packages/web/.claude/rules/``,
``packages/web/.cursor/rules/``) apply to their own subtree: Claude Code loads a
package's ``.claude/rules/`` when a file below the package is read and reads ``paths``
relative to the package; Cursor's nested ``.cursor/rules/`` attach when files in their
directory are referenced.

Layout: a monorepo as the two tools' documentation lays one out, a rule folder per
package (paths only; our texts).
"""

from __future__ import annotations

from pathlib import Path

from providers.core.provider import contribute
from providers.rules.flavours import Flavour
from providers.rules.nested_rules import owner, rebase
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, labels, request, texts


def monorepo(root: Path) -> Path:
    make_repo(root)
    write(root, ".claude/rules/root.md", "---\npaths: ['**/*.py']\n---\nRoot Python rule.\n")
    write(root, "packages/web/.claude/rules/react.md", "# React\n\nFunction components only.\n")
    write(
        root,
        "packages/web/.claude/rules/tests.md",
        "---\npaths: ['src/**/*.test.tsx']\n---\nUse testing-library.\n",
    )
    write(
        root, "packages/web/.cursor/rules/css.mdc", "---\nglobs: '*.css'\n---\nUse CSS modules.\n"
    )
    write(
        root,
        "packages/web/.cursor/rules/asked.mdc",
        "---\ndescription: when touching the design tokens\n---\nTokens live in theme.ts.\n",
    )
    write(root, "packages/web/src/App.tsx", "export {}\n")
    write(root, "packages/web/src/App.test.tsx", "export {}\n")
    write(root, "packages/web/src/styles/app.css", "a {}\n")
    write(root, "packages/api/main.py", "x = 1\n")
    return root


def answer(root: Path, *touched: str) -> dict[str, str]:
    provider = ScopedDocsProvider(watcher_factory=None)
    try:
        return texts(contribute(provider, request(root, touched, budget=4000), COUNTER))
    finally:
        provider.close()


def test_patterns_are_read_under_the_package() -> None:
    assert rebase(("src/**/*.ts",), "packages/web", Flavour.PICOMATCH) == (
        "packages/web/src/**/*.ts",
    )
    assert rebase(("*.css", "!vendor/*.css"), "pkg", Flavour.GITIGNORE) == (
        "pkg/**/*.css",
        "!pkg/vendor/*.css",
    )
    assert rebase(("*.ts",), "pkg", Flavour.PICOMATCH) == ("pkg/*.ts",)
    assert rebase(("**/x", "/top.md"), "pkg", Flavour.GITIGNORE) == ("pkg/**/x", "pkg/top.md")
    assert owner("packages/web/.claude/rules/a.md", (".claude/rules",)) == (
        "packages/web",
        ".claude/rules",
    )
    assert owner("packages/web/.claude/CLAUDE.md", (".claude/rules",)) is None
    assert owner("packages/web/.claude", (".claude/rules",), loosely=True) == (
        "packages/web",
        ".claude/rules",
    )


def test_a_packages_rules_apply_to_its_files_only(tmp_path: Path) -> None:
    root = monorepo(tmp_path)
    shown = answer(root, "packages/web/src/App.tsx")
    assert next(iter(shown)) == (
        "packages/web/.claude/rules/react.md "
        '(applies to packages/web/src/App.tsx via "packages/web/**")'
    )
    assert not any("tests.md" in label or "css.mdc" in label for label in shown)
    index = shown["scoped docs index"]
    assert "- packages/web/.cursor/rules/asked.mdc: when touching the design tokens" in index
    assert not any("packages/web" in label for label in answer(root, "packages/api/main.py"))


def test_a_packages_glob_rules_match_under_the_package(tmp_path: Path) -> None:
    root = monorepo(tmp_path)
    shown = answer(root, "packages/web/src/App.test.tsx", "packages/web/src/styles/app.css")
    found = [label.split(" (", 1)[0] for label in shown]
    assert "packages/web/.claude/rules/tests.md" in found
    assert "packages/web/.cursor/rules/css.mdc" in found
    assert 'via "packages/web/src/**/*.test.tsx"' in next(
        label for label in shown if "tests.md" in label
    )


def test_a_rule_added_to_a_package_is_seen(tmp_path: Path) -> None:
    root = monorepo(tmp_path)
    provider = ScopedDocsProvider(watcher_factory=None)
    try:
        contribute(provider, request(root, ("packages/web/src/App.tsx",)), COUNTER)
        write(root, "packages/web/.claude/rules/state.md", "# State\n\nNo global stores.\n")
        later = contribute(
            provider, request(root, ("packages/web/src/App.tsx", "packages/web/src/x.tsx")), COUNTER
        )
    finally:
        provider.close()
    assert any(label.startswith("packages/web/.claude/rules/state.md") for label in labels(later))
