"""Issue 22 item 6: our reading of ``@`` in Claude Code's and Gemini CLI's own files,
checked against the clients themselves (offline, the stub model records what reaches it).

For the files each client loads by itself, the files it inlines are exactly those our
expansion reads (relative to the importing file, never to the working directory; in
``.claude/rules`` as in ``CLAUDE.md``), and an ``@`` that names no file reaches its model
as written. Gemini CLI's own comment for an import that fails is a difference docs/configuration.md
states; this test pins that the client still writes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from providers.rules.expand import Expanded, ImportPolicy, load_expanded
from tests.clients.conftest import Runs, make_repo
from tests.clients.real_clients import Run, missing_reason, reached_model, run_client

FILES = {
    "CLAUDE.md": (
        "# Root MARK-I-ROOT\n\n@sub/a.md\n\n# Packages: @cline/llms and @scope/pkg\n\n"
        "Mail ops@example.com.\n\n@docs/missing.md\n"
    ),
    "sub/a.md": "MARK-I-SUB-A\n\n@b.md\n\n@sub/c.md\n",
    "sub/b.md": "MARK-I-SUB-B\n",
    "b.md": "MARK-I-ROOT-B\n",
    "sub/c.md": "MARK-I-SUB-C\n",
    ".claude/rules/general.md": (
        "MARK-I-RULE\n\n@sibling.txt\n\n@.claude/rules/net.txt\n\n@docs/rule-doc.md\n"
    ),
    ".claude/rules/sibling.txt": "MARK-I-RULE-SIBLING\n",
    ".claude/rules/net.txt": "MARK-I-RULE-NET\n",
    "docs/rule-doc.md": "MARK-I-RULE-DOC\n",
    "GEMINI.md": "MARK-I-GEMINI\n\n@sub/a.md\n\n@~/home-notes.md\n\n# Uses @scope/pkg\n",
}
HOME_FILES = {"home-notes.md": "MARK-I-HOME\n"}
OWN_FILES = {"claude": ("CLAUDE.md", ".claude/rules/general.md"), "gemini": ("GEMINI.md",)}
MARKER = re.compile(r"MARK-I-[A-Z-]+")


def run_imports(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", FILES)

    def prepare(env: Mapping[str, str]) -> list[str]:
        for name, text in HOME_FILES.items():
            (Path(env["HOME"]) / name).write_text(text, encoding="utf-8")
        return []

    return run_client(client, repo, "MARK-PROMPT hello", workdir=work, prepare=prepare)


def our_expansion(run: Run, client: str) -> str:
    """What our providers make of the client's own files in ``run``'s repository, its
    home directory allowed."""
    repo = run.home.parent.parent / "repo"  # run_client's directory is beside the repo
    policy = ImportPolicy(allowed_roots=(run.home.resolve(),))
    found = [load_expanded(repo.resolve(), rel, policy) for rel in OWN_FILES[client]]
    assert all(isinstance(item, Expanded) for item in found), found
    return "\n".join(item.text for item in found if isinstance(item, Expanded))


@pytest.mark.parametrize("client", ["claude", "gemini"])
def test_imports_resolve_as_the_client_resolves_them(runs: Runs, client: str) -> None:
    """Issue 22 item 6: relative to the importing file (``sub/a.md``'s ``@b.md`` is
    ``sub/b.md``, not the root's ``b.md``; its ``@sub/c.md`` is nothing), in a
    ``.claude/rules`` file as in ``CLAUDE.md``; the files inlined are the same."""
    reason = missing_reason(client)
    if reason is not None:
        pytest.skip(reason)
    run = runs.get(f"imports-{client}", lambda work: run_imports(client, work))
    assert run.exit_code == 0 and not run.timed_out and run.model_requests, run.describe()
    ours = set(MARKER.findall(our_expansion(run, client)))
    theirs = {m for m in set(MARKER.findall("".join(FILES.values()))) if reached_model(m, run)}
    theirs |= {m for m in MARKER.findall(HOME_FILES["home-notes.md"]) if reached_model(m, run)}
    assert theirs == ours, (sorted(theirs), sorted(ours), run.describe())
    assert "MARK-I-SUB-B" in ours and "MARK-I-ROOT-B" not in ours


def test_what_names_no_file_reaches_claude_as_written(runs: Runs) -> None:
    """Issue 22 item 6: an npm scope in a heading, an address, a missing file: Claude Code
    leaves the words as written and says nothing; so do we."""
    reason = missing_reason("claude")
    if reason is not None:
        pytest.skip(reason)
    run = runs.get("imports-claude", lambda work: run_imports("claude", work))
    ours = our_expansion(run, "claude")
    for words in ("# Packages: @cline/llms and @scope/pkg", "ops@example.com", "@docs/missing.md"):
        assert reached_model(words, run), (words, run.describe())
        assert words in ours
    assert "not loaded" not in ours


def test_gemini_comments_a_failed_import_we_leave_the_words(runs: Runs) -> None:
    """docs/configuration.md's stated difference: Gemini CLI replaces ``@scope/pkg`` in a
    heading with an "Import failed" comment; we leave the words (they name no file).
    ``@~/`` is no import for Gemini CLI, nor for us in its files."""
    reason = missing_reason("gemini")
    if reason is not None:
        pytest.skip(reason)
    run = runs.get("imports-gemini", lambda work: run_imports("gemini", work))
    assert reached_model("<!-- Import failed: scope/pkg", run), run.describe()
    assert reached_model("@~/home-notes.md", run), run.describe()
    ours = our_expansion(run, "gemini")
    assert "# Uses @scope/pkg" in ours and "@~/home-notes.md" in ours
