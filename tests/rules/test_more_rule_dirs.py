"""Issue 23 item 4: the rule directories of Google Antigravity (``.agents/rules``), Roo Code
(``.roo``) and Kilo Code (``.kilo``, ``.kilocode``): always-on rules into repo conventions,
``rules-{mode}`` folders listed in the scoped docs index as one mode's rules.

Layouts are real repositories' trees (paths only; the texts are ours):
RooCodeInc/Roo-Code's ``.roo`` (``rules/rules.md``, ``rules-code/``, ``rules-debug/``,
``rules-issue-fixer/*.xml``, ``commands/``, ``skills/``, ``guidance/``,
``roomotes.yml``) and Zaoqu-Liu/mbti-typing-skill's ``.kilo/rules/`` and
``.roo/rules-mbti-typing/``.
"""

from __future__ import annotations

from pathlib import Path

from providers.core.provider import contribute
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.rules.catalog import Catalog
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS, mode_of
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, labels, request, texts


def roo_code_tree(root: Path) -> Path:
    """RooCodeInc/Roo-Code's ``.roo`` folder, as paths."""
    make_repo(root)
    write(root, "AGENTS.md", "# Roo\n\nThe extension.\n")
    write(root, ".roo/rules/rules.md", "# Rules\n\nUse safeWriteJson for JSON files.\n")
    write(root, ".roo/rules-code/use-safeWriteJson.md", "# Code mode\n\nWrite JSON safely.\n")
    write(root, ".roo/rules-debug/cli.md", "# Debug mode\n\nRun the CLI with --debug.\n")
    write(root, ".roo/rules-issue-fixer/1_Workflow.xml", "<workflow>steps</workflow>\n")
    write(root, ".roo/rules/.DS_Store", "junk\n")
    write(root, ".roo/commands/release.md", "# Release\n\nA command.\n")
    write(root, ".roo/skills/roo-translation/SKILL.md", "---\nname: t\ndescription: d\n---\nX\n")
    write(root, ".roo/guidance/roo-translator.md", "# Guidance\n")
    write(root, ".roo/roomotes.yml", "a: 1\n")
    return root


def test_the_new_directories_and_their_dialects() -> None:
    dirs = dict(BUILTIN_RULE_DIRS)
    assert dirs[".agents/rules"] == "windsurf"
    assert dirs[".roo"] == dirs[".kilo"] == dirs[".kilocode"] == "roo"
    assert mode_of(".roo/rules-code/a.md") == "code"
    assert mode_of(".roo/rules/a.md") is None
    assert mode_of(".kilo/rules-issue-fixer/deep/1.xml") == "issue-fixer"


def test_only_rules_and_mode_folders_of_a_tools_folder_are_read(tmp_path: Path) -> None:
    """Roo Code reads ``rules/`` and ``rules-{mode}/`` whole (any text file, ``.xml``
    included), never its commands, skills, guidance or settings, nor editor junk."""
    root = roo_code_tree(tmp_path)
    catalog = Catalog(root, {".roo": DIALECTS["roo"]}, nested_names=())
    catalog.scan_rule_dirs()
    assert sorted(catalog.rules) == [
        ".roo/rules-code/use-safeWriteJson.md",
        ".roo/rules-debug/cli.md",
        ".roo/rules-issue-fixer/1_Workflow.xml",
        ".roo/rules/rules.md",
    ]
    assert catalog.rules[".roo/rules/rules.md"].always
    mode_rule = catalog.rules[".roo/rules-code/use-safeWriteJson.md"]
    assert mode_rule.on_request and not mode_rule.always and "'code' mode" in mode_rule.title


def test_roo_rules_are_static_and_mode_rules_are_listed_not_applied(tmp_path: Path) -> None:
    """``.roo/rules/`` always applies: repo conventions sends it after AGENTS.md. A mode's
    rules are not injected (we have no modes); scoped docs' index names them."""
    root = roo_code_tree(tmp_path)
    conventions = RepoConventionsProvider()
    conventions.configure({})
    static = contribute(conventions, request(root, budget=8000), COUNTER)
    assert labels(static) == ["AGENTS.md", ".roo/rules/rules.md", "skills"]
    assert "(.roo/skills/roo-translation/SKILL.md)" in texts(static)["skills"]
    scoped = ScopedDocsProvider(watcher_factory=None)
    try:
        answer = contribute(scoped, request(root, ("src/extension.ts",)), COUNTER)
    finally:
        scoped.close()
    index = texts(answer)["scoped docs index"]
    assert "- .roo/rules-code/use-safeWriteJson.md: rules for the 'code' mode" in index
    assert ".roo/rules-debug/cli.md" in index
    assert "Write JSON safely" not in index  # named, not shown


def test_kilo_and_antigravity_rules(tmp_path: Path) -> None:
    """Zaoqu-Liu/mbti-typing-skill's ``.kilo/rules/`` always applies; an Antigravity rule
    in ``.agents/rules/`` reads Windsurf's ``trigger`` (its fork): ``always_on`` static,
    ``glob`` scoped, ``model_decision`` listed."""
    root = make_repo(tmp_path)
    write(root, ".kilo/rules/mbti-typing.md", "# Typing\n\nAsk one question at a time.\n")
    write(root, ".roo/rules-mbti-typing/mbti-typing.md", "# Mode\n\nThe typing mode.\n")
    write(root, ".agents/rules/style.md", "---\ntrigger: always_on\n---\nShort answers.\n")
    write(root, ".agents/rules/py.md", "---\ntrigger: glob\nglobs: '*.py'\n---\nType hints.\n")
    write(
        root,
        ".agents/rules/db.md",
        "---\ntrigger: model_decision\ndescription: database migrations\n---\nUse alembic.\n",
    )
    conventions = RepoConventionsProvider()
    conventions.configure({})
    static = contribute(conventions, request(root, budget=8000), COUNTER)
    assert labels(static) == [".agents/rules/style.md", ".kilo/rules/mbti-typing.md"]
    scoped = ScopedDocsProvider(watcher_factory=None)
    try:
        answer = contribute(scoped, request(root, ("app/main.py",)), COUNTER)
    finally:
        scoped.close()
    assert labels(answer)[0] == '.agents/rules/py.md (applies to app/main.py via "*.py")'
    index = texts(answer)["scoped docs index"]
    assert "- .agents/rules/db.md: database migrations" in index
    assert "- .roo/rules-mbti-typing/mbti-typing.md: rules for the 'mbti-typing' mode" in index
