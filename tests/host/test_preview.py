"""The main job end to end: python -m providers preview sample_repo, real processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, SAMPLE_REPO, git


def test_preview_sample_repo_prints_prompt_table_and_warnings() -> None:
    before = sorted(p.name for p in SAMPLE_REPO.iterdir())
    result = subprocess.run(
        [sys.executable, "-m", "providers", "preview", "--scratch", str(SAMPLE_REPO)],
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


def preview(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "providers", "preview", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_any_repository_is_previewed_with_the_defaults_and_never_written_to(
    tmp_path: Path,
) -> None:
    """Issue 22 item 1: a repository with no agent.hcl is previewed with the four
    providers' defaults, the first lines say which, and nothing is written into it."""
    repo = tmp_path / "myrepo"
    (repo / "src").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("# Mine\n\nMy conventions.\n")
    (repo / "src" / "app.py").write_text("x = 1\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    result = preview(str(repo))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"(repository: {repo})"
    assert lines[1] == "(providers: no agent.hcl here, so the four providers with their defaults)"
    for name in ("repo_conventions", "git_status", "file_tree"):
        assert f'<context provider="{name}"' in result.stdout
    assert "My conventions." in result.stdout
    assert git(repo, "status", "--porcelain", "--ignored") == ""
    inside = preview(str(repo / "src"))
    assert (
        inside.stdout.splitlines()[0] == f"(repository: {repo}, working directory {repo / 'src'})"
    )


def test_bad_input_exits_2_and_says_why_first(tmp_path: Path) -> None:
    """Issue 22 items 5 and 10: no such directory, a broken agent.hcl: exit 2, the reason
    on stderr's first line."""
    missing = preview(str(tmp_path / "no-such-dir"))
    assert missing.returncode == 2
    assert missing.stderr.splitlines()[0] == (
        f"error: invalid_request: no such directory: {tmp_path / 'no-such-dir'}"
    )
    (tmp_path / "agent.hcl").write_text('provider "x" {\n')
    broken = preview(str(tmp_path))
    assert broken.returncode == 2 and broken.stderr.startswith("error: ")
    assert "agent.hcl" in broken.stderr.splitlines()[0]


def test_no_provider_started_exits_1_and_says_why_first(tmp_path: Path) -> None:
    """Issue 22 item 5: an agent.hcl whose providers cannot start (a typo in a source)
    exits non-zero, and stderr opens with why."""
    (tmp_path / "agent.hcl").write_text(
        "required_providers {\n"
        '  repo_conventions = { source = "github.com/context-providers/context-providers/'
        'repo-conventionz", version = "~> 0.1" }\n'
        "}\n"
    )
    result = preview(str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == "error: no provider could start:"
    assert "repo-conventionz" in result.stderr.splitlines()[1]
    assert "turn 1" not in result.stdout


def test_later_turns_show_only_what_changed_and_the_table_fits(tmp_path: Path) -> None:
    """Issue 22 item 4: after turn 1 a section whose text did not change is named, not
    repeated; the table fits the terminal's width; sample_repo's note says its broken
    files are there on purpose; no "warnings: (none)" after problems."""
    result = subprocess.run(
        [sys.executable, "-m", "providers", "preview", "--scratch", str(SAMPLE_REPO)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "are there on purpose" in out.split("turn 1")[0]
    later = out.split("turn 2")[1]
    assert '<context provider="repo_conventions"' not in later
    assert "(unchanged since turn 1: repo_conventions: AGENTS.md" in later
    lines = out.splitlines()
    tables = [i for i, line in enumerate(lines) if line.startswith("provider  ")]
    assert len(tables) == 3
    for start in tables:
        end = lines.index("", start) if "" in lines[start:] else len(lines)
        rows = [line for line in lines[start:end] if not line.startswith("! ")]
        assert max(len(row) for row in rows) <= 80, rows
    problems = sum(line.startswith("! ") for line in lines)
    closing = out.split("warnings:")[-1].splitlines()[0]
    if problems:
        assert closing.startswith(f" {problems} shown under their turns"), closing
    else:
        assert closing == " none", closing


def test_kernel_compat_preview_prints_the_same_full_prompt() -> None:
    """Issue 11: with ``--kernel-compat`` the reference host answers CountTokens
    UNIMPLEMENTED like the upstream kernel; each provider falls back to counting itself
    (wire-contract.md: ceil(utf8_bytes / 4), what such a kernel computes), so every
    section is still there, with the same text and the same counts."""

    def preview(*flags: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "providers", "preview", "--scratch", str(SAMPLE_REPO), *flags],
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
        [sys.executable, "-m", "providers", "preview", "--scratch", str(SAMPLE_REPO), "--render"],
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
