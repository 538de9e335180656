"""The main job end to end: python -m providers preview sample_repo, real processes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, SAMPLE_REPO


def test_preview_sample_repo_prints_prompt_table_and_warnings() -> None:
    before = sorted(p.name for p in SAMPLE_REPO.iterdir())
    result = subprocess.run(
        [sys.executable, "-m", "providers", "preview", str(SAMPLE_REPO)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "turn 1" in out and "turn 3" in out
    # Labelled boundaries (Labeling MUST: the kernel wraps each section).
    assert '<context provider="repo_conventions" label="AGENTS.md">' in out
    assert "provider" in out and "tokens/budget" in out and "truncated" in out
    assert "/3000" in out
    assert "warnings:" in out
    # The sample is never written to: the session runs in a scratch copy.
    assert sorted(p.name for p in SAMPLE_REPO.iterdir()) == before
    assert not (SAMPLE_REPO / ".git").exists()


def test_preview_without_agent_hcl_fails_cleanly(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "providers", "preview", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "agent.hcl" in result.stderr


def test_kernel_compat_preview_prints_the_same_full_prompt() -> None:
    """Issue 11: with ``--kernel-compat`` the reference host answers CountTokens
    UNIMPLEMENTED like the upstream kernel; each provider falls back to counting itself
    (wire-contract.md: ceil(utf8_bytes / 4), what such a kernel computes), so every
    section is still there, with the same text and the same counts."""

    def preview(*flags: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "providers", "preview", str(SAMPLE_REPO), *flags],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def prompts(out: str) -> str:
        """The turns (prompt and table), with the scratch directory and commit masked."""
        turns = out.split("provider logs:")[0]
        turns = re.sub(r"/preview-[^/\s]+", "/preview-X", turns)
        return re.sub(r"\b[0-9a-f]{7}\b", "sha", turns)

    compat = preview("--kernel-compat")
    assert "the kernel has no CountTokens" in compat
    for name in ("repo_conventions", "git_status", "file_tree", "scoped_docs"):
        assert f'<context provider="{name}"' in compat
    assert "(unknown)" not in compat and "(source_unavailable)" not in compat
    assert prompts(compat) == prompts(preview())


def test_preview_render_draws_each_section_through_its_providers_render() -> None:
    """``--render``: after each turn every accepted section goes back to its provider's
    Render RPC (issue 11 item 5) and the tree is printed as indented text."""
    result = subprocess.run(
        [sys.executable, "-m", "providers", "preview", str(SAMPLE_REPO), "--render"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Render failed" not in out
    turn_one = out.split("turn 2")[0]
    for expected in (
        "render: repo_conventions / AGENTS.md\n  [+] AGENTS.md\n    ```markdown\n    # tasklane\n",
        "render: git_status / git status\n  <bold> On branch main\n",
        "  <bold> Recent commits:\n  - <dim> ",
        "render: file_tree / file tree\n  [-] ",
        "    - .claude/rules/storage.md\n",  # a single-child chain, folded
        "  <dim> (shown: ",
        "render: scoped_docs / scoped docs index\n  [+] scoped docs index\n",
    ):
        assert expected in turn_one, expected
    assert out.count("render: git_status / git status") == 3  # once a turn
