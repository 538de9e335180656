"""Issue 22 item 6 on cline/cline's layout: what the user's files say, not what they seem
to say. The fixture has that repository's paths (its Cline rules, its root and nested
AGENTS.md) with small texts of our own; an @ is read as each file's own tool reads it,
and no answer says a file is missing when it is there."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.core.provider import contribute
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, request, texts

CLINE_LAYOUT = {
    "AGENTS.md": "# Cline\n\nRules live in .clinerules; read @.clinerules/general.md.\n",
    "CLAUDE.md": "# Cline for Claude\n\nKeep changes small.\n",
    ".clinerules/general.md": (
        "# General\n\nNetwork code follows @.clinerules/network.md.\n\n@.clinerules/network.md\n"
    ),
    ".clinerules/network.md": "# Network\n\nGo through the shared HTTP client.\n",
    ".clinerules/workflows/release.md": "# Release\n\nTag, then publish.\n",
    "sdk/AGENTS.md": "# SDK\n\nBuild with the workspace tool.\n",
    "sdk/packages/llms/AGENTS.md": (
        "# @cline/llms development guidance\n\nKeep provider quirks inside @cline/llms.\n"
    ),
    "sdk/packages/llms/src/index.ts": "export {}\n",
}


@pytest.fixture
def cline(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "cline")
    for rel, text in CLINE_LAYOUT.items():
        write(root, rel, text)
    return root


def test_cline_rules_mention_files_they_do_not_import(cline: Path) -> None:
    """Issue 22 item 6: ``.clinerules/general.md`` saying ``@.clinerules/network.md`` is
    a Cline mention (Cline's rules have no imports): the rule is sent as written, the
    file it names is its own rule, and nothing says it does not exist."""
    provider = RepoConventionsProvider()
    provider.configure({})
    answer = texts(contribute(provider, request(cline), COUNTER))
    assert answer[".clinerules/general.md"] == CLINE_LAYOUT[".clinerules/general.md"]
    assert "Go through the shared HTTP client." in answer[".clinerules/network.md"]
    joined = "".join(answer.values())
    assert "not loaded" not in joined
    assert "does not exist" not in joined
    # AGENTS.md is read as Claude Code reads it: its @ resolves from the file, at the root.
    assert "Network code follows" in answer["AGENTS.md"]


def test_an_npm_scope_in_a_nested_heading_is_no_import(
    cline: Path, provider: ScopedDocsProvider
) -> None:
    """Issue 22 item 6: the heading ``# @cline/llms ...`` names a package, not a file: the
    nested doc is shown as written, without a note."""
    result = contribute(provider, request(cline, ("sdk/packages/llms/src/index.ts",)), COUNTER)
    shown = {label.split(" (")[0]: text for label, text in texts(result).items()}
    assert shown["sdk/packages/llms/AGENTS.md"] == CLINE_LAYOUT["sdk/packages/llms/AGENTS.md"]
    assert "not loaded" not in "".join(shown.values())


def test_nested_home_imports_say_which_block_allows_them(
    cline: Path, provider: ScopedDocsProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22 item 7 for nested docs: the refusal names scoped docs' own ``import_allow``,
    and with it the ``@~/`` import resolves under the allowed directory."""
    home = tmp_path / "home"
    write(home, ".claude/sdk-notes.md", "PERSONAL SDK NOTES\n")
    monkeypatch.setenv("HOME", str(home))
    write(cline, "sdk/CLAUDE.md", "# SDK for Claude\n\n@~/.claude/sdk-notes.md\n")
    touched = ("sdk/packages/llms/src/index.ts",)
    refused = "".join(texts(contribute(provider, request(cline, touched), COUNTER)).values())
    assert (
        "[import @~/.claude/sdk-notes.md from sdk/CLAUDE.md not loaded: outside the repository "
        '(to read it: import_allow = ["~/.claude"] in the provider "scoped_docs" block)]'
    ) in refused
    allowed = ScopedDocsProvider()
    try:
        allowed.configure({"import_allow": ["~/.claude"]})
        shown = texts(contribute(allowed, request(cline, touched), COUNTER))
    finally:
        allowed.close()
    assert "PERSONAL SDK NOTES" in "".join(shown.values())
