"""Issue 13: one copy per doc across providers, and nested @imports as at the root.

A nested doc that is the root convention file under another path (langfuse: the
root AGENTS.md is a symlink to .agents/AGENTS.md) or says the same is not sent
again; a nested CLAUDE.md that says @AGENTS.md is its neighbour's text, sent once;
an edit to an imported file is an edit to the doc."""

from __future__ import annotations

import os
from pathlib import Path

from providers.core.provider import contribute
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.scoped_docs.provider import ScopedDocsProvider
from tests.scoped_docs.conftest import FeedWatch
from tests.support.files import write
from tests.support.requests import COUNTER, labels, request, texts


def test_a_nested_doc_that_is_the_root_file_is_not_sent_again(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(repo, ".agents/AGENTS.md", "# Guide\n\nROOT GUIDE\n")
    os.symlink(".agents/AGENTS.md", repo / "AGENTS.md")
    write(repo, "web/AGENTS.md", "# Web\n\nWEB\n")
    result = contribute(provider, request(repo, (".agents/skills/x.md", "web/a.ts")), COUNTER)
    assert labels(result) == ['web/AGENTS.md (applies to web/a.ts via "web/**")']
    conventions = RepoConventionsProvider()
    conventions.configure({})
    static = contribute(conventions, request(repo), COUNTER)
    assert "ROOT GUIDE" in static.sections[0].text  # sent once, by repo conventions


def test_a_nested_doc_with_the_root_files_text_is_not_sent_again(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(repo, "CLAUDE.md", "# Guide\n\nSAME\n")
    write(repo, "pkg/AGENTS.md", "<!-- a copy -->\n# Guide\n\nSAME\n")
    assert labels(contribute(provider, request(repo, ("pkg/a.py",)), COUNTER)) == []
    # The root file changes: the nested one is no longer a copy and is shown.
    write(repo, "CLAUDE.md", "# Guide\n\nCHANGED\n")
    shown = labels(contribute(provider, request(repo, ("pkg/b.py",)), COUNTER))
    assert shown == ['pkg/AGENTS.md (applies to pkg/b.py via "pkg/**")']


def test_nested_imports_resolve_and_a_pointer_file_is_sent_once(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(repo, "web/AGENTS.md", "# Web\n\nWEB RULES\n\n@../docs/web-testing.md\n")
    write(repo, "web/CLAUDE.md", "@AGENTS.md\n")
    write(repo, "docs/web-testing.md", "Run `pnpm test:web`.\n")
    result = contribute(provider, request(repo, ("web/a.ts",)), COUNTER)
    assert labels(result) == ['web/AGENTS.md (applies to web/a.ts via "web/**")']
    text = texts(result)['web/AGENTS.md (applies to web/a.ts via "web/**")']
    assert "Run `pnpm test:web`." in text and "@../docs" not in text


def test_an_edit_to_an_imported_file_is_picked_up(
    repo: Path, provider: ScopedDocsProvider, feed: FeedWatch
) -> None:
    write(repo, "web/AGENTS.md", "# Web\n\n@../docs/web.md\n")
    imported = write(repo, "docs/web.md", "OLD ADVICE\n")
    label = 'web/AGENTS.md (applies to web/a.ts via "web/**")'
    assert "OLD ADVICE" in texts(contribute(provider, request(repo, ("web/a.ts",)), COUNTER))[label]
    provider.answer_sent()  # as the adapter does: the watch starts once the answer is out
    imported.write_text("NEW ADVICE\n")
    feed.push(imported)
    assert "NEW ADVICE" in texts(contribute(provider, request(repo, ("web/a.ts",)), COUNTER))[label]


def test_without_a_watch_an_edit_to_an_imported_file_is_picked_up(repo: Path) -> None:
    provider = ScopedDocsProvider()
    provider.configure({"watch": False})
    write(repo, "web/AGENTS.md", "# Web\n\n@../docs/web.md\n")
    imported = write(repo, "docs/web.md", "OLD ADVICE\n")
    label = 'web/AGENTS.md (applies to web/a.ts via "web/**")'
    assert "OLD ADVICE" in texts(contribute(provider, request(repo, ("web/a.ts",)), COUNTER))[label]
    imported.write_text("NEWER ADVICE\n")
    os.utime(imported, ns=(1, 1))
    assert "NEWER" in texts(contribute(provider, request(repo, ("web/a.ts",)), COUNTER))[label]
    provider.close()


# -- the index is a catalog (issue 13) ----------------------------------------


def test_the_index_says_why_what_and_how_big_and_lists_what_the_model_may_ask_for(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(repo, "src/AGENTS.md", "# Source conventions\n\n" + "Detail. " * 200 + "\n")
    write(repo, "src/api/AGENTS.md", "# API rules\n\nAPI\n")
    write(repo, ".cursor/rules/migrate.mdc", "---\ndescription: Writing DB migrations\n---\nM\n")
    write(repo, ".cursor/rules/typo.mdc", "---\nglobs: 'scr/**/*.py'\n---\nTYPO\n")
    write(repo, "src/api/app.py", "")
    result = contribute(provider, request(repo, ("src/api/app.py",), budget=150), COUNTER)
    index = texts(result)["scoped docs index"]
    assert labels(result)[0] == 'src/api/AGENTS.md (applies to src/api/app.py via "src/api/**")'
    assert '- src/AGENTS.md: via "src/**"; Source conventions; ~4' in index
    assert "[Rules to read when the task fits their description:]" in index
    assert "- .cursor/rules/migrate.mdc: Writing DB migrations; ~1 tokens" in index
    assert '- .cursor/rules/typo.mdc: "scr/**/*.py"' in index
    # A pattern that fires is no typo: once it matches a touched file it leaves the index.
    later = contribute(provider, request(repo, ("src/api/app.py", "scr/x/y.py")), COUNTER)
    assert "scr/**/*.py" not in texts(later).get("scoped docs index", "")


def test_continue_colocated_rules_md_applies_to_its_own_folder(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    """Issue 13: Continue's colocated rules.md (core/config/markdown/loadCodebaseRules.ts)
    applies to the files in its folder; its globs are read under that folder
    (markdownToRule's getGlobPattern: "*.tsx" -> "web/**/*.tsx")."""
    write(repo, "web/rules.md", "# Web\n\nWEB RULE\n")
    write(repo, "api/rules.md", "---\nglobs: '*.py'\n---\nPY UNDER API\n")
    result = contribute(
        provider, request(repo, ("web/src/a.ts", "api/x/b.py", "api/c.ts")), COUNTER
    )
    assert labels(result) == [
        'web/rules.md (applies to web/src/a.ts via "web/**/*")',
        'api/rules.md (applies to api/x/b.py via "api/**/*.py")',
    ]
    other = ScopedDocsProvider()
    other.configure({"rule_dirs": {".continue/rules": "off"}, "watch": False})
    assert labels(contribute(other, request(repo, ("web/src/a.ts",)), COUNTER)) == []
    other.close()
