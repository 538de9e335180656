"""What ``@path`` means in each tool's files, read from real files (issue 22 item 6).

Claude Code's and Gemini CLI's readings were measured against the clients themselves
(``tests/clients/test_import_semantics.py`` runs them); the others come from each tool's
documentation or code, as the import table of docs/configuration.md says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.rules.dialects import BUILTIN_RULE_DIRS
from providers.rules.expand import Expanded, ImportPolicy, load_expanded
from providers.rules.import_styles import (
    AGENTS,
    ANTIGRAVITY,
    CLAUDE,
    CURSOR,
    GEMINI,
    NO_IMPORTS,
    RULE_DIR_STYLES,
    style_for,
)
from tests.support.files import make_repo, write


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo").resolve()


def expanded(root: Path, rel: str, policy: ImportPolicy | None = None) -> Expanded:
    loaded = load_expanded(root, rel, policy or ImportPolicy())
    assert isinstance(loaded, Expanded), loaded
    return loaded


@pytest.mark.parametrize(
    ("path", "style"),
    [
        ("CLAUDE.md", CLAUDE),
        ("CLAUDE.local.md", CLAUDE),
        (".claude/CLAUDE.md", CLAUDE),
        (".claude/rules/testing.md", CLAUDE),
        ("packages/web/.claude/rules/ui.md", CLAUDE),
        ("src/CLAUDE.md", CLAUDE),
        ("GEMINI.md", GEMINI),
        ("QWEN.md", GEMINI),
        ("AGENTS.md", AGENTS),
        ("sdk/packages/llms/AGENTS.md", AGENTS),
        ("AGENTS.override.md", AGENTS),
        (".cursorrules", CURSOR),
        (".cursor/rules/api.mdc", CURSOR),
        (".agents/rules/style.md", ANTIGRAVITY),
        (".clinerules", NO_IMPORTS),
        (".clinerules/general.md", NO_IMPORTS),
        (".clinerules/AGENTS.md", NO_IMPORTS),  # a Cline rule, whatever its name
        (".github/copilot-instructions.md", NO_IMPORTS),
        (".github/instructions/py.instructions.md", NO_IMPORTS),
        (".windsurfrules", NO_IMPORTS),
        (".windsurf/rules/x.md", NO_IMPORTS),
        (".continue/rules/x.md", NO_IMPORTS),
        (".kiro/steering/product.md", NO_IMPORTS),
        (".roo/rules/x.md", NO_IMPORTS),
        (".kilocode/rules/x.md", NO_IMPORTS),
        (".junie/guidelines.md", NO_IMPORTS),
        ("CONVENTIONS.md", NO_IMPORTS),
        (".rules", NO_IMPORTS),
        ("docs/ai-guide.md", CLAUDE),  # a file of the user's own naming
    ],
)
def test_each_file_follows_its_own_tool(path: str, style: object) -> None:
    """Issue 22 item 6: an @ means what the tool whose file it is makes of it."""
    assert style_for(path) is style


def test_every_rule_directory_has_a_decision() -> None:
    """A new rule dialect cannot slip in with another tool's @ imports (issue 22 item 6)."""
    decided = {directory for directory, _ in RULE_DIR_STYLES}
    assert {directory for directory, _ in BUILTIN_RULE_DIRS} <= decided


def test_cline_rules_have_no_imports(root: Path) -> None:
    """Issue 22 item 6 (cline/cline): a Cline rule's ``@.clinerules/network.md`` is a
    mention the model may follow from the workspace root; it stays as written, with no
    note saying the file is missing, though the file is there."""
    write(root, ".clinerules/network.md", "# Network\n\nRetry twice.\n")
    text = "# General\n\nFor requests see @.clinerules/network.md.\n\n@.clinerules/network.md\n"
    write(root, ".clinerules/general.md", text)
    loaded = expanded(root, ".clinerules/general.md")
    assert loaded.text == text
    assert loaded.notes == []


@pytest.mark.parametrize(
    "rel",
    [
        ".github/copilot-instructions.md",
        ".windsurf/rules/style.md",
        ".continue/rules/style.md",
        ".kiro/steering/style.md",
        ".roo/rules/style.md",
    ],
)
def test_tools_without_imports_leave_the_text(root: Path, rel: str) -> None:
    """Issue 22 item 6: Copilot, Windsurf, Continue, Kiro and Roo Code have no @ imports."""
    write(root, str(Path(rel).parent / "near.md"), "NEAR\n")
    write(root, "near.md", "ROOT\n")
    write(root, rel, "# Style\n\n@near.md\n")
    loaded = expanded(root, rel)
    assert loaded.text == "# Style\n\n@near.md\n"
    assert loaded.notes == []


def test_claude_code_imports_relative_to_the_importing_file(root: Path) -> None:
    """Issue 22 item 6: Claude Code resolves ``@path`` from the importing file's
    directory, never from the working directory or the root (measured on 2.1.328), in
    ``.claude/rules`` as in ``CLAUDE.md``; what is not there is left as written."""
    write(root, ".claude/rules/sibling.md", "SIBLING\n")
    write(root, "sibling.md", "ROOT SIBLING\n")
    write(root, "docs/testing.md", "ROOT DOCS\n")
    write(root, ".claude/rules/general.md", "# General\n\n@sibling.md\n\n@docs/testing.md\n")
    loaded = expanded(root, ".claude/rules/general.md")
    assert loaded.text == "# General\n\nSIBLING\n\n@docs/testing.md\n"
    assert loaded.notes == []


def test_agents_md_is_read_as_claude_code_reads_it(root: Path) -> None:
    """Issue 22 item 6: AGENTS.md imports resolve from the file (Claude Code's reading,
    the one tool that expands them; docs/configuration.md says why)."""
    write(root, "pkg/notes.md", "PKG NOTES\n")
    write(root, "pkg/AGENTS.md", "# Pkg\n\nSee @notes.md first.\n")
    assert expanded(root, "pkg/AGENTS.md").text == "# Pkg\n\nSee @notes.md first.\n\nPKG NOTES\n"


def test_a_scope_or_handle_that_names_no_file_is_no_import(root: Path) -> None:
    """Issue 22 item 6 (cline/cline's ``# @cline/llms ...`` heading): an @ naming no file
    (an npm scope, a handle, a decorator, an address) is left as written, no note."""
    text = (
        "# @cline/llms development\n\n"
        "Thanks @alice.dev for the @types/node bump; mail ops@example.com.\n\n"
        "Decorate with @functools.cache where it helps.\n\n"
        "@cline/llms\n"
    )
    write(root, "sdk/packages/llms/AGENTS.md", text)
    loaded = expanded(root, "sdk/packages/llms/AGENTS.md")
    assert loaded.text == text
    assert loaded.notes == []


def test_a_missing_import_is_picked_up_once_it_exists(root: Path) -> None:
    """A target that is not there yet stays a dependency: creating it changes the file's
    expansion on the next load."""
    write(root, "CLAUDE.md", "# Root\n\n@docs/later.md\n")
    loaded = expanded(root, "CLAUDE.md")
    assert loaded.text == "# Root\n\n@docs/later.md\n"
    assert loaded.dependencies[str(root / "docs/later.md")] is None
    write(root, "docs/later.md", "LATER\n")
    assert expanded(root, "CLAUDE.md").text == "# Root\n\nLATER\n"


def test_a_directory_is_no_import(root: Path) -> None:
    (root / "docs").mkdir()
    write(root, "CLAUDE.md", "Docs live in @docs/ and @docs.\n")
    loaded = expanded(root, "CLAUDE.md")
    assert loaded.text == "Docs live in @docs/ and @docs.\n"
    assert loaded.notes == []


def test_a_line_keeps_its_words_when_one_of_its_imports_is_none(root: Path) -> None:
    """A line of imports is replaced by what they import only when every one is an
    import: otherwise it stays as written and the imported text follows its block."""
    write(root, "a.md", "A TEXT\n")
    write(root, "CLAUDE.md", "@a.md @scope/pkg\n")
    assert expanded(root, "CLAUDE.md").text == "@a.md @scope/pkg\n\nA TEXT\n"


def test_gemini_home_form_is_no_import(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI's import finder takes only ``.``, ``/`` or a letter after the ``@``:
    ``@~/x.md`` in GEMINI.md stays as written even where the home directory is allowed;
    its relative imports resolve from the importing file."""
    home = tmp_path / "home"
    write(home, "x.md", "HOME X\n")
    monkeypatch.setenv("HOME", str(home))
    write(root, "sub/b.md", "SUB B\n")
    write(root, "b.md", "ROOT B\n")
    write(root, "sub/a.md", "@b.md\n")
    write(root, "GEMINI.md", "@~/x.md\n\n@sub/a.md\n")
    loaded = expanded(root, "GEMINI.md", ImportPolicy(allowed_roots=(home.resolve(),)))
    assert loaded.text == "@~/x.md\n\nSUB B\n"


def test_cursor_rule_attaches_workspace_paths_one_level(root: Path) -> None:
    """Cursor: ``@file`` in a rule is a workspace path (from the root), attached when the
    rule applies; the attached file's own @ are not followed."""
    write(root, "src/template.ts", "export const shape = 1; // @src/other.ts\n")
    write(root, "docs/api.md", "API DOC\n\n@nested.md\n")
    write(root, "docs/nested.md", "NESTED\n")
    write(root, ".cursor/rules/api.mdc", "---\nalwaysApply: true\n---\n@docs/api.md\n")
    loaded = expanded(root, ".cursor/rules/api.mdc")
    assert loaded.text == "API DOC\n\n@nested.md\n"


def test_antigravity_absolute_path_falls_back_to_the_root(root: Path) -> None:
    """Google Antigravity: relative to the rule file; ``@/path`` is that absolute path
    when it exists, else the path under the repository."""
    write(root, ".agents/rules/near.md", "NEAR\n")
    write(root, "docs/style-guide-h22.md", "STYLE GUIDE\n")
    write(root, ".agents/rules/style.md", "@near.md\n\n@/docs/style-guide-h22.md\n")
    assert expanded(root, ".agents/rules/style.md").text == "NEAR\n\nSTYLE GUIDE\n"


def test_a_policy_may_name_the_style(root: Path) -> None:
    """The seam: a caller that knows the file's tool passes its style."""
    write(root, "near.md", "NEAR\n")
    write(root, "notes.md", "@near.md\n")
    assert expanded(root, "notes.md").text == "NEAR\n"
    assert expanded(root, "notes.md", ImportPolicy(style=NO_IMPORTS)).text == "@near.md\n"
