"""A rule whose front matter is not valid YAML: what each tool does with it (issue 23 item 8).

Checked in each tool's code: Cline (``rule-helpers.ts``, fail-open with the raw file),
Continue (``parseMarkdownRule``: the whole file as the rule, no globs), Copilot (VS
Code's tolerant ``yaml.ts``: the attributes it still parsed), Claude Code (its reader
quotes values and tries again, then keeps the body alone, the rule unconditional),
Roo Code (no front matter of its own). Cursor, Windsurf and Kiro publish no code: their
rules are not applied. In every case scoped docs' index says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.core.provider import contribute
from providers.rules.dialects import DIALECTS, Broken
from providers.rules.load import Problem, Rule, default_reader, load_rule
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.scoped_docs.sections import INDEX_LABEL
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, request, texts

BROKEN = "---\n{key}: src/**\n  oops: indented: more\nnote: MARK-FM\n---\nMARK-BODY\n"


@pytest.mark.parametrize(
    ("dialect", "rel", "key"),
    [
        ("cline", ".clinerules/r.md", "paths"),
        ("continue", ".continue/rules/r.md", "globs"),
        ("roo", ".roo/rules/r.md", "paths"),
    ],
)
def test_fail_open_always(tmp_path: Path, dialect: str, rel: str, key: str) -> None:
    root = make_repo(tmp_path / "r")
    write(root, rel, BROKEN.format(key=key))
    rule = load_rule(root, rel, DIALECTS[dialect], default_reader)
    assert isinstance(rule, Rule) and rule.always
    assert "MARK-BODY" in rule.text and "MARK-FM" not in rule.text  # left out, as always
    assert "not valid YAML" in rule.broken and "front matter part of its text" in rule.broken


def test_claude_code_applies_it_always_without_its_front_matter(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".claude/rules/r.md", BROKEN.format(key="paths"))
    rule = load_rule(root, ".claude/rules/r.md", DIALECTS["claude"], default_reader)
    assert isinstance(rule, Rule) and rule.always
    assert "MARK-BODY" in rule.text and "MARK-FM" not in rule.text
    assert "Claude Code" in rule.broken and "(front matter line" in rule.broken


def test_claude_code_quotes_values_and_tries_again(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".claude/rules/r.md", "---\ndescription: use: this\npaths:\n\t- docs/**\n---\nB\n")
    rule = load_rule(root, ".claude/rules/r.md", DIALECTS["claude"], default_reader)
    assert isinstance(rule, Rule) and not rule.always and not rule.broken
    assert rule.match("docs/a.md") is not None and rule.description == "use: this"


def test_copilot_keeps_the_keys_it_still_reads(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    rel = ".github/instructions/r.instructions.md"
    write(root, rel, '---\napplyTo: "src/**"\ntools: [a,\ndescription: Web\n---\nMARK-BODY\n')
    rule = load_rule(root, rel, DIALECTS["copilot"], default_reader)
    assert isinstance(rule, Rule) and not rule.always
    assert rule.match("src/a.ts") is not None and rule.match("lib/a.ts") is None
    assert rule.description == "Web" and "Copilot" in rule.broken


@pytest.mark.parametrize(
    ("dialect", "rel"),
    [
        ("cursor", ".cursor/rules/r.mdc"),
        ("windsurf", ".windsurf/rules/r.md"),
        ("kiro", ".kiro/steering/r.md"),
    ],
)
def test_without_code_to_follow_the_rule_is_not_applied(
    tmp_path: Path, dialect: str, rel: str
) -> None:
    assert DIALECTS[dialect].broken is Broken.DROP
    root = make_repo(tmp_path / "r")
    write(root, rel, BROKEN.format(key="globs"))
    problem = load_rule(root, rel, DIALECTS[dialect], default_reader)
    assert isinstance(problem, Problem) and "not applied" in problem.note


def test_the_index_says_how_a_broken_rule_was_applied(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, ".clinerules/broken.md", BROKEN.format(key="paths"))
    write(repo, ".cursor/rules/broken.mdc", BROKEN.format(key="globs"))
    write(repo, "src/a.py", "x\n")
    provider = ScopedDocsProvider()
    try:
        result = contribute(provider, request(repo, ("src/a.py",)), COUNTER)
    finally:
        provider.close()
    index = texts(result)[INDEX_LABEL]
    assert "applied as Cline does: always, the front matter part of its text" in index
    assert ".cursor/rules/broken.mdc: not applied, front matter is not valid YAML" in index
