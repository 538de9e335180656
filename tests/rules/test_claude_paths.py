"""Claude Code's ``paths:`` as its dialect reads and matches them (issue 23 item 6).

Observed with the real client 2.1.328 after it reads ``src/a.ts`` (``tests/clients/
test_claude_rules.py`` runs it) and checked on every case of the generated case file
against Claude Code's own matcher: gitignore lines, the case ignored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.rules.dialects import DIALECTS, ScopeKind
from providers.rules.flavours import Flavour
from providers.rules.globs import GlobSet
from providers.rules.load import Rule, default_reader, load_rule
from providers.rules.nested_rules import load_in_subtree
from tests.support.files import make_repo, write


def _applies(paths: object, path: str) -> bool:
    scope = DIALECTS["claude"].interpret({"paths": paths})
    if scope.kind is ScopeKind.ALWAYS:
        return True
    return GlobSet(scope.patterns, DIALECTS["claude"].flavour).match(path) is not None


def test_the_claude_dialect_matches_as_claude_code() -> None:
    assert DIALECTS["claude"].flavour is Flavour.CLAUDE


@pytest.mark.parametrize(
    ("paths", "path", "applies"),
    [
        ("*.ts", "src/a.ts", True),  # observed: any depth
        ("*.ts", "a/b/c/d.ts", True),
        ("src", "src/a.ts", True),  # observed: a folder's name
        ("src", "lib/src/a.ts", True),  # no slash: at any depth
        ("src", "srcx/a.ts", False),
        ("src/*.TS", "src/a.ts", True),  # observed: case does not matter
        ("SRC", "src/deep/a.ts", True),
        ("[!a].ts", "a.ts", True),  # observed: no negation in a class ("!" or "a")
        ("[!a].ts", "b.ts", False),
        ("[[:alpha:]].ts", "a.ts", False),  # no POSIX classes
        ("src/**/", "src/a.ts", True),  # observed
        ("src/**", "src/a/b.ts", True),
        ("{src,lib}/*.ts", "lib/a.ts", True),  # braces expanded first
        ("{src,lib}/*.ts", "lib/deep/a.ts", False),
        ("docs/**, src/a.ts", "src/a.ts", True),  # commas outside braces split
        ("/src/a.ts", "src/a.ts", True),  # anchored at the folder holding .claude/
        ("/src/a.ts", "lib/src/a.ts", False),
        ("!src/**", "src/a.ts", False),  # only negations match nothing
        (["lib/**", "!lib/deep/**"], "lib/deep/y.ts", True),  # the folder decided first
        ("**/deep/**", "lib/deep/y.ts", True),
        ("src/*", "src/a.ts", True),
        ("src/*", "src/a/b.ts", True),  # "src/a" is a folder it matches
    ],
)
def test_paths_as_claude_code_reads_them(paths: object, path: str, applies: bool) -> None:
    assert _applies(paths, path) is applies


@pytest.mark.parametrize("paths", [5, [], "", None, "**", ["**", "/**"], " , ", True, {}])
def test_no_usable_paths_means_always(paths: object) -> None:
    """Anything but strings, nothing, or ``**`` alone: the rule loads at the start."""
    assert DIALECTS["claude"].interpret({"paths": paths}).kind is ScopeKind.ALWAYS


def test_non_strings_in_the_list_are_skipped() -> None:
    scope = DIALECTS["claude"].interpret({"paths": [5, "src/**", None]})
    assert scope.kind is ScopeKind.GLOBS and scope.patterns == ("src/**",)


def test_unquoted_star_is_read_as_a_pattern(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".claude/rules/ts.md", "---\npaths: *.ts\n---\nTS\n")
    rule = load_rule(root, ".claude/rules/ts.md", DIALECTS["claude"], default_reader)
    assert isinstance(rule, Rule) and rule.match("deep/a.TS") is not None


def test_a_nested_rule_folder_reads_paths_under_its_package(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    rel = "packages/web/.claude/rules/ts.md"
    write(root, rel, "---\npaths:\n  - '*.TS'\n  - /app\n---\nWEB\n")
    rule = load_in_subtree(root, rel, DIALECTS["claude"], "packages/web", default_reader)
    assert isinstance(rule, Rule)
    assert rule.match("packages/web/src/a.ts") is not None
    assert rule.match("packages/web/app/page.js") is not None
    assert rule.match("packages/api/src/a.ts") is None
    assert rule.match("packages/web/lib/app/x.js") is None


def test_the_label_names_the_pattern_as_written() -> None:
    globs = GlobSet(["{src,lib}/**"], Flavour.CLAUDE)
    found = globs.match("lib/a.ts")
    assert found is not None and (found.written, found.expanded) == ("{src,lib}/**", "lib")
