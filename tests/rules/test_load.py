"""Each dialect's front matter read from real files: when a rule applies, and what it says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from providers.rules.dialects import DIALECTS
from providers.rules.load import Problem, Rule, default_reader, load_nested, load_rule
from tests.support.files import make_repo, write


def rule(root: Path, rel: str, dialect: str, text: str) -> Rule | Problem | None:
    write(root, rel, text)
    return load_rule(root, rel, DIALECTS[dialect], default_reader)


def matches(loaded: object, *paths: str) -> list[bool]:
    assert isinstance(loaded, Rule), loaded
    return [loaded.match(p) is not None for p in paths]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


# -- cursor ---------------------------------------------------------------


def test_cursor_globs_comma_string(root: Path) -> None:
    loaded = rule(
        root,
        ".cursor/rules/api.mdc",
        "cursor",
        "---\ndescription: API\nglobs: src/api/**, src/cli.py\nalwaysApply: false\n---\nBody\n",
    )
    assert matches(loaded, "src/api/h.py", "src/cli.py", "src/other.py") == [True, True, False]


def test_cursor_unquoted_star_glob_is_read_as_the_glob(root: Path) -> None:
    """``globs: *.ts`` is invalid YAML (an alias) but is what every Cursor user writes."""
    loaded = rule(root, ".cursor/rules/ts.mdc", "cursor", "---\nglobs: *.ts\n---\nBody\n")
    assert matches(loaded, "a/b.ts", "a/b.js") == [True, False]


def test_cursor_always_apply_wins_over_globs(root: Path) -> None:
    loaded = rule(
        root, ".cursor/rules/a.mdc", "cursor", "---\nglobs: x/**\nalwaysApply: true\n---\nAll\n"
    )
    assert isinstance(loaded, Rule) and loaded.always and loaded.globs is None


def test_cursor_description_only_rule_is_listed_on_request_never_injected(root: Path) -> None:
    """Issue 13: Cursor offers agent-requested rules to the model by description; so does
    the index. They never match a path."""
    loaded = rule(
        root, ".cursor/rules/d.mdc", "cursor", "---\ndescription: when asked\n---\nOn request\n"
    )
    assert isinstance(loaded, Rule) and loaded.on_request and not loaded.always
    assert loaded.title == "when asked" and loaded.match("src/a.py") is None
    manual = rule(root, ".cursor/rules/m.mdc", "cursor", "---\nalwaysApply: false\n---\nBy hand\n")
    assert manual is None  # no description: attached by hand only
    model = "---\ntrigger: model_decision\ndescription: for migrations\n---\nMigrate\n"
    windsurf = rule(root, ".windsurf/rules/w.md", "windsurf", model)
    assert isinstance(windsurf, Rule) and windsurf.on_request


def test_cursor_list_with_braces_and_negation(root: Path) -> None:
    text = '---\nglobs:\n  - "web/**/*.{ts,tsx}"\n  - "!web/**/*.test.tsx"\n---\nReact\n'
    loaded = rule(root, ".cursor/rules/web.mdc", "cursor", text)
    assert matches(loaded, "web/a/App.tsx", "web/a/api.ts", "web/a/App.test.tsx") == [
        True,
        True,
        False,
    ]


# -- copilot --------------------------------------------------------------


def test_copilot_apply_to_comma_string(root: Path) -> None:
    loaded = rule(
        root,
        ".github/instructions/ts.instructions.md",
        "copilot",
        '---\napplyTo: "**/*.ts,**/*.tsx"\n---\nTS\n',
    )
    assert matches(loaded, "x.ts", "a/b/y.tsx", "z.py") == [True, True, False]


def test_copilot_without_apply_to_is_manual(root: Path) -> None:
    loaded = rule(
        root, ".github/instructions/m.instructions.md", "copilot", "---\nname: x\n---\nBody\n"
    )
    assert loaded is None


# -- claude / cline -------------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "directory"), [("claude", ".claude/rules"), ("cline", ".clinerules")]
)
def test_paths_list_scopes_and_no_paths_means_always(
    root: Path, dialect: str, directory: str
) -> None:
    scoped = rule(
        root, f"{directory}/s.md", dialect, '---\npaths:\n  - "src/storage/**"\n---\nSQL\n'
    )
    assert matches(scoped, "src/storage/db.py", "src/api.py") == [True, False]
    plain = rule(root, f"{directory}/all.md", dialect, "Always read me.\n")
    assert isinstance(plain, Rule) and plain.always


def test_paths_single_string(root: Path) -> None:
    loaded = rule(root, ".clinerules/sh.md", "cline", "---\npaths: scripts/*.sh\n---\nShell\n")
    assert matches(loaded, "scripts/a.sh", "scripts/sub/a.sh") == [True, False]


# -- windsurf -------------------------------------------------------------


def test_windsurf_glob_trigger(root: Path) -> None:
    loaded = rule(
        root,
        ".windsurf/rules/d.md",
        "windsurf",
        '---\ntrigger: glob\nglobs: "docs/**/*.md"\n---\nDocs\n',
    )
    assert matches(loaded, "docs/a/b.md", "docs/a.txt") == [True, False]


def test_windsurf_always_on_and_manual(root: Path) -> None:
    always = rule(root, ".windsurf/rules/a.md", "windsurf", "---\ntrigger: always_on\n---\nA\n")
    assert isinstance(always, Rule) and always.always
    for trigger in ("manual", "model_decision"):
        loaded = rule(
            root, f".windsurf/rules/{trigger}.md", "windsurf", f"---\ntrigger: {trigger}\n---\nM\n"
        )
        assert loaded is None


def test_windsurf_unknown_trigger_is_a_problem(root: Path) -> None:
    loaded = rule(root, ".windsurf/rules/x.md", "windsurf", "---\ntrigger: sometimes\n---\nX\n")
    assert isinstance(loaded, Problem) and "trigger" in loaded.note


# -- continue -------------------------------------------------------------


def test_continue_globs_always_and_default(root: Path) -> None:
    scoped = rule(root, ".continue/rules/ts.md", "continue", '---\nglobs: "*.{ts,tsx}"\n---\nTS\n')
    # minimatch, as Continue calls it: a pattern without a slash matches top-level names only
    assert matches(scoped, "deep/x.tsx", "x.ts", "x.js") == [False, True, False]
    deep = rule(root, ".continue/rules/d2.md", "continue", '---\nglobs: "**/*.tsx"\n---\nT\n')
    assert matches(deep, "deep/x.tsx", "x.tsx", ".hidden/x.tsx") == [True, True, False]
    always = rule(root, ".continue/rules/a.md", "continue", "---\nalwaysApply: true\n---\nA\n")
    assert isinstance(always, Rule) and always.always
    default = rule(root, ".continue/rules/d.md", "continue", "---\nname: d\n---\nD\n")
    assert isinstance(default, Rule) and default.always
    off = rule(root, ".continue/rules/o.md", "continue", "---\nalwaysApply: false\n---\nO\n")
    assert off is None


# -- broken front matter --------------------------------------------------


@pytest.mark.parametrize(
    "front",
    [
        "globs: [unclosed\nalwaysApply: false",
        "- just\n- a list",
        "globs: 3",
        "alwaysApply: maybe",
    ],
)
def test_broken_front_matter_is_a_problem_not_a_rule(root: Path, front: str) -> None:
    """A rule whose scope cannot be read is reported, never applied to everything."""
    loaded = rule(root, ".cursor/rules/broken.mdc", "cursor", f"---\n{front}\n---\nSECRET BODY\n")
    assert isinstance(loaded, Problem)
    assert loaded.note.startswith(".cursor/rules/broken.mdc: not applied")
    assert "SECRET BODY" not in loaded.note
    assert "\n" not in loaded.note


def test_artifacts_are_stripped_and_code_kept(root: Path) -> None:
    """Stripping non-semantic authoring artifacts SHOULD (context-conformance.md)."""
    text = (
        '---\npaths: ["a/**"]\n---\n# Title\n\n<!-- authoring note -->\n\n'
        "```sh\n<!-- kept in code -->\n```\n"
    )
    loaded = rule(root, ".claude/rules/c.md", "claude", text)
    assert isinstance(loaded, Rule)
    assert "authoring note" not in loaded.text
    assert "paths:" not in loaded.text
    assert "<!-- kept in code -->" in loaded.text


def test_crlf_rules_are_read(root: Path) -> None:
    path = root / ".clinerules" / "w.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\r\npaths: src/**\r\n---\r\nWindows line endings\r\n")
    loaded = load_rule(root, ".clinerules/w.md", DIALECTS["cline"], default_reader)
    assert matches(loaded, "src/a") == [True]
    assert isinstance(loaded, Rule) and "\r" not in loaded.text


def test_empty_rule_is_not_injected(root: Path) -> None:
    assert (
        rule(root, ".clinerules/e.md", "cline", "---\npaths: a/**\n---\n<!-- nothing -->\n") is None
    )


# -- nested convention files ----------------------------------------------


def test_nested_file_scopes_to_its_subtree(root: Path) -> None:
    write(root, "src/auth/AGENTS.md", "# auth\n\nUse compare_digest.\n")
    loaded = load_nested(root, "src/auth/AGENTS.md", default_reader)
    assert isinstance(loaded, Rule) and loaded.subtree == "src/auth"
    found = loaded.match("src/auth/deep/login.py")
    assert found is not None and found.written == "src/auth/**"
    assert loaded.match("src/authz/x.py") is None
    assert loaded.match("src/other.py") is None


def test_symlinked_rule_pointing_outside_the_repo_is_refused(root: Path, tmp_path: Path) -> None:
    secret = write(tmp_path, "outside/secret.md", "OUTSIDE SECRET\n")
    link = root / ".clinerules" / "evil.md"
    link.parent.mkdir(parents=True)
    os.symlink(secret, link)
    loaded = load_rule(root, ".clinerules/evil.md", DIALECTS["cline"], default_reader)
    assert isinstance(loaded, Problem)
    assert "outside the repository" in loaded.note
    assert "OUTSIDE SECRET" not in loaded.note


def test_cline_workflows_hooks_and_skills_are_not_rules(tmp_path: Path) -> None:
    """Issue 13 item 4: Cline runs these on request; they are not rules to apply."""
    from providers.rules.catalog import Catalog
    from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS

    for rel in ("style.md", "workflows/release.md", "hooks/pre.md", "skills/x.md", "sub/y.md"):
        path = tmp_path / ".clinerules" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("rule\n")
    catalog = Catalog(tmp_path, {d: DIALECTS[n] for d, n in BUILTIN_RULE_DIRS}, ())
    catalog.scan_rule_dirs()
    assert sorted(catalog.rules) == [".clinerules/style.md", ".clinerules/sub/y.md"]


def test_copilot_instructions_excluding_the_coding_agent_are_not_applied() -> None:
    from providers.rules.dialects import DIALECTS, ScopeKind

    copilot = DIALECTS["copilot"]
    assert copilot.interpret({"applyTo": "**/*.ts", "excludeAgent": "coding-agent"}).kind is (
        ScopeKind.MANUAL
    )
    assert copilot.interpret({"applyTo": "**/*.ts", "excludeAgent": "code-review"}).kind is (
        ScopeKind.GLOBS
    )
