"""The repo conventions provider, called directly (no server): discover -> load -> render."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from providers.core.budget import FallbackCounter, fallback_token_count
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.provider import contribute
from providers.core.types import ContextRequest, Contribution, ModelTarget, Stability
from providers.repo_conventions.provider import RepoConventionsProvider


def collect(
    repo: Path,
    budget: int = 8000,
    provider: RepoConventionsProvider | None = None,
    **config: object,
) -> Contribution:
    provider = provider or RepoConventionsProvider()
    if config:
        provider.configure(config)
    request = ContextRequest(
        token_budget=budget, working_directory=str(repo), model_target=ModelTarget("m")
    )
    return contribute(provider, request, FallbackCounter())


def texts(contribution: Contribution) -> dict[str, str]:
    return {s.label: s.text for s in contribution.sections}


def test_sample_repo_sections_imports_and_stripping(sample: Path) -> None:
    """Stripping non-semantic authoring artifacts SHOULD (data-types.md): HTML comments
    and front matter go, code stays byte for byte; @imports resolve, failures leave notes."""
    result = texts(collect(sample))
    assert list(result) == [
        "AGENTS.md",
        ".github/copilot-instructions.md",
        ".cursor/rules/always.mdc",
    ]
    agents = result["AGENTS.md"]
    # Front matter and every HTML comment outside code are gone.
    assert "title: tasklane agent guide" not in agents
    assert "maintainer note" not in agents
    assert "inline note" not in agents
    assert "Multi-line maintainer comment" not in agents
    assert "TODO(ana)" not in agents  # a comment inside an imported file
    # Code is untouched: the fence keeps its comment and its @-reference.
    assert "```markdown\n<!-- keep this comment -->\n@docs/not-an-import.md\n```" in agents
    assert "`@not/an/import`" in agents
    # Imports: standalone lines replaced, a sentence keeps its text and gains the file after it.
    assert "@docs/testing.md" not in agents
    assert (sample / "docs/testing.md").read_text().splitlines()[0] in agents
    assert "See @docs/architecture.md for the big picture." in agents
    assert "@./docs/style.md" not in agents
    # An @ naming no file is no import: left as written, no note (issue 22 item 6).
    assert "\n@docs/missing.md\n" in agents
    assert "does not exist" not in agents
    # Failures are one-line notes, never errors; a refusal says how to allow it.
    assert (
        "[import @../outside.md from AGENTS.md not loaded: outside the repository (to read "
        'it: its directory in import_allow, in the provider "repo_conventions" block)]'
    ) in agents
    assert "import cycle" in agents


def test_claude_md_that_only_imports_agents_md_appears_once(sample: Path) -> None:
    labels = [s.label for s in collect(sample).sections]
    assert labels.count("AGENTS.md") == 1
    assert "CLAUDE.md" not in labels


def test_same_inode_appears_once(sample: Path) -> None:
    (sample / "CLAUDE.md").unlink()
    os.link(sample / "AGENTS.md", sample / "GEMINI.md")
    labels = [s.label for s in collect(sample).sections]
    assert "GEMINI.md" not in labels and "AGENTS.md" in labels


def test_static_stability_byte_identical_and_edits_picked_up(sample: Path) -> None:
    """stability declaration MUST: static sections are byte-identical while files are unchanged."""
    provider = RepoConventionsProvider()
    first = collect(sample, provider=provider)
    second = collect(sample, provider=provider)
    assert first == second
    assert all(s.stability is Stability.STATIC for s in first.sections)
    imported = sample / "docs/testing.md"
    imported.write_text(imported.read_text() + "\nNew rule: run the slow tests nightly.\n")
    third = collect(sample, provider=provider)
    assert "New rule: run the slow tests nightly." in texts(third)["AGENTS.md"]


def test_file_deleted_between_turns(sample: Path) -> None:
    """source_unavailable (deleted mid-session) never fails the turn."""
    provider = RepoConventionsProvider()
    assert "AGENTS.md" in texts(collect(sample, provider=provider))
    (sample / "AGENTS.md").unlink()
    after = texts(collect(sample, provider=provider))
    assert "AGENTS.md" not in after
    assert after["CLAUDE.md"] == "@AGENTS.md\n"  # no such file: left as written (issue 22 item 6)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x00\x01binary\x00", "binary content"),
        (b"caf\xe9 au lait\n", "not valid UTF-8"),
    ],
)
def test_unusable_files_become_notes(tmp_path: Path, content: bytes, reason: str) -> None:
    (tmp_path / "AGENTS.md").write_bytes(content)
    (tmp_path / "GEMINI.md").write_text("# Gemini\n\nBe brief.\n")
    result = texts(collect(tmp_path))
    assert "AGENTS.md" not in result
    assert f"[AGENTS.md not loaded: {reason}" in result["GEMINI.md"]


def test_huge_file_is_refused_unread(tmp_path: Path) -> None:
    """Never load an unbounded file: a 50 MB convention file is refused by its size."""
    with (tmp_path / "AGENTS.md").open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    (tmp_path / "GEMINI.md").write_text("# Gemini\n")
    result = texts(collect(tmp_path))
    assert "AGENTS.md not loaded: too large" in result["GEMINI.md"]


def test_fifo_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    (tmp_path / "GEMINI.md").write_text("# Gemini\n")
    assert texts(collect(tmp_path)) == {"GEMINI.md": "# Gemini\n"}  # skipped, not read


def test_symlinks_out_of_the_repo_are_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    secret = tmp_path / "secret.md"
    secret.write_text("TOP SECRET\n")
    (repo / "AGENTS.md").symlink_to(secret)
    (repo / "docs").mkdir()
    (repo / "docs" / "link.md").symlink_to(secret)
    (repo / "GEMINI.md").write_text("# G\n\n@docs/link.md\n")
    result = collect(repo)
    joined = "".join(s.text for s in result.sections)
    assert "TOP SECRET" not in joined
    assert (
        "[import @docs/link.md from GEMINI.md not loaded: outside the repository: a link to a "
        "file outside it (to read it: the directory it links to in import_allow, in the "
        'provider "repo_conventions" block)]'
    ) in joined


def test_symlink_inside_the_repo_is_followed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "real.md").write_text("# Real\n\nreal content\n")
    (tmp_path / "AGENTS.md").symlink_to(tmp_path / "docs" / "real.md")
    assert "real content" in texts(collect(tmp_path))["AGENTS.md"]


def test_import_depth_is_capped(tmp_path: Path) -> None:
    for i in range(8):
        (tmp_path / f"d{i}.md").write_text(f"level {i}\n\n@d{i + 1}.md\n")
    (tmp_path / "d8.md").write_text("level 8\n")
    (tmp_path / "AGENTS.md").write_text("root\n\n@d0.md\n")
    text = texts(collect(tmp_path, max_import_depth=3))["AGENTS.md"]
    assert "level 2" in text and "level 3" not in text
    assert "deeper than 3 imports" in text


def test_home_imports_need_an_allowlist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "personal.md").write_text("personal preferences\n")
    monkeypatch.setenv("HOME", str(home))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("# Root\n\n@~/personal.md\n")
    denied = texts(collect(repo))["AGENTS.md"]
    assert 'import_allow = ["~"] in the provider "repo_conventions" block' in denied
    allowed = texts(collect(repo, import_allow=[str(home)]))["AGENTS.md"]
    assert "personal preferences" in allowed


def test_claude_home_import_note_says_how_to_allow_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22 item 7: Claude Code's documented ``@~/.claude/...`` import is refused
    without ``import_allow``, and the note names the setting that allows it; with
    ``import_allow = ["~/.claude"]`` it resolves under that directory, as documented."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "my-project-instructions.md").write_text("Use tabs, always.\n")
    (home / "elsewhere.md").write_text("NOT ALLOWED\n")
    monkeypatch.setenv("HOME", str(home))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "CLAUDE.md").write_text(
        "# Individual Preferences\n\n- @~/.claude/my-project-instructions.md\n\n@~/elsewhere.md\n"
    )
    denied = texts(collect(repo))["CLAUDE.md"]
    assert (
        "[import @~/.claude/my-project-instructions.md from CLAUDE.md not loaded: outside the "
        'repository (to read it: import_allow = ["~/.claude"] in the provider '
        '"repo_conventions" block)]'
    ) in denied
    assert str(home) not in denied  # no machine path of the user's
    allowed = texts(collect(repo, import_allow=["~/.claude"]))["CLAUDE.md"]
    assert "- @~/.claude/my-project-instructions.md\n\nUse tabs, always.\n" in allowed
    # Only that directory: a home file beside it is still refused, with its own hint.
    assert "NOT ALLOWED" not in allowed
    assert 'import_allow = ["~"] in the provider "repo_conventions" block' in allowed


def test_crlf_files_are_normalised(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"# Title\r\n\r\n<!-- x -->\r\nBody line\r\n")
    text = texts(collect(tmp_path))["AGENTS.md"]
    assert "\r" not in text and "Body line" in text and "<!--" not in text


def test_no_convention_files_is_not_an_error(tmp_path: Path) -> None:
    assert collect(tmp_path).sections == ()


def test_explicit_paths_must_resolve(chdir_tmp: Path) -> None:
    """Configure rejects explicitly declared paths that resolve to nothing (invalid_request)."""
    provider = RepoConventionsProvider()
    with pytest.raises(ProviderError) as info:
        provider.configure({"paths": ["RULES.md", "docs/*.md"]})
    assert info.value.category is ErrorCategory.INVALID_REQUEST
    assert "RULES.md" in info.value.message and "docs/*.md" in info.value.message


def test_explicit_paths_and_globs_in_order(chdir_tmp: Path) -> None:
    (chdir_tmp / "docs").mkdir()
    (chdir_tmp / "docs" / "b.md").write_text("# B\n")
    (chdir_tmp / "docs" / "a.md").write_text("# A\n")
    (chdir_tmp / "RULES.md").write_text("# Rules\n")
    result = collect(chdir_tmp, paths=["RULES.md", "docs/*.md"])
    assert [s.label for s in result.sections] == ["RULES.md", "docs/a.md", "docs/b.md"]


def test_over_budget_keeps_opening_sections_and_names_the_rest(sample: Path) -> None:
    """Self-truncation MUST: whole units, root file's opening sections first, and a note
    naming what was left out (so the model can read it on demand)."""
    full = collect(sample)
    total = sum(s.tokens for s in full.sections)
    cut = collect(sample, budget=total // 3)
    assert sum(s.tokens for s in cut.sections) <= total // 3
    agents = texts(cut)["AGENTS.md"]
    assert agents.startswith("# tasklane\n")
    assert "## Overview" in agents
    assert "## Release" not in agents.split("[Left out")[0]
    assert "[Left out to fit the token budget; read these files for the rest:]" in agents
    assert "- AGENTS.md (partly shown): " in agents and "## Release" in agents.split("[Left out")[1]
    assert "- .github/copilot-instructions.md: (whole file)" in agents
    assert any(s.truncated for s in cut.sections)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(budget=st.integers(min_value=1, max_value=3000))
def test_any_budget_recount_never_exceeds_it(sample: Path, budget: int) -> None:
    """For any budget from 1 up, our sections' recount never exceeds it."""
    result = collect(sample, budget=budget)
    assert sum(fallback_token_count(s.text) for s in result.sections) <= budget
    assert all(s.tokens == fallback_token_count(s.text) for s in result.sections)
