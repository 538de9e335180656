"""The "pattern matches nothing" check, against the repository's real file list."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from providers.repository.sources import FileKey
from providers.rules.flavours import Flavour
from providers.rules.globs import GlobSet
from providers.rules.load import Rule
from providers.scoped_docs.pattern_check import MAX_REPORTS, PatternCheck
from tests.support.files import write


def glob_rule(path: str, *patterns: str) -> Rule:
    return Rule(path, "cursor", "x\n", FileKey(0, 0, 0, 0), globs=GlobSet(patterns))


def test_only_patterns_matching_nothing_are_reported_once(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    for rel in ("src/auth/login.py", "src/auth.py", "src/authz/x.py", "docs/a.md", "README"):
        write(root, rel, "x\n")
    check = PatternCheck(root)
    rules = [
        glob_rule("a.mdc", "src/auth/**", "*.md", "src/auth.py", "lib/**", "*.rs", "src/authz"),
        glob_rule("b.mdc", "**/*.{py,go}", "docs/", "**/*.go", "README", "!*.rs"),
    ]
    found = check.check(rules)
    assert found == [("a.mdc", "lib/**"), ("a.mdc", "*.rs"), ("b.mdc", "**/*.go")]
    assert check.check(rules) == []  # once per session


def test_touched_paths_count_as_files(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "a.py", "x\n")
    check = PatternCheck(root)
    assert check.check([glob_rule("r.md", "new/**")], seen={"new/file.py"}) == []
    assert check.check([glob_rule("r.md", "new/**")]) == [("r.md", "new/**")]


def test_many_reports_are_counted_not_listed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "plain"
    write(root, "a.py", "x\n")
    rules = [glob_rule(f"r{i:02}.md", f"missing{i}/**") for i in range(MAX_REPORTS + 5)]
    caplog.set_level(logging.WARNING, logger="providers.scoped_docs")
    assert len(PatternCheck(root).check(rules)) == MAX_REPORTS + 5
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == MAX_REPORTS + 1
    assert messages[-1] == "5 more rule patterns match no file in the repository"


@pytest.mark.parametrize("flavour", [Flavour.VSCODE, Flavour.CLAUDE])
def test_a_pattern_whose_tool_ignores_case_is_checked_without_it(
    tmp_path: Path, flavour: Flavour
) -> None:
    """``SRC/*.TS`` matches ``src/a.ts`` for Copilot and Claude Code: not a typo."""
    root = tmp_path / "plain"
    write(root, "src/a.ts", "x\n")
    rule = Rule("r.md", "claude", "x\n", FileKey(0, 0, 0, 0), globs=GlobSet(["SRC/*.TS"], flavour))
    assert PatternCheck(root).check([rule]) == []
