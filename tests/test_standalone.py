"""The standalone command: python -m providers.repo_conventions previews, exit 0;
bad input exits non-zero naming the error category; the answer names its repository."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from providers.cli.scratch import COPY_LIMIT
from tests.conftest import REPO_ROOT, copy_sample, git, script


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "providers.repo_conventions", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_preview_lists_sections_with_tokens(sample: Path) -> None:
    result = run("--repo", str(sample), "--budget", "400")
    assert result.returncode == 0, result.stderr
    assert "=== AGENTS.md (" in result.stdout and "tokens, static" in result.stdout
    assert "/400 tokens" in result.stdout


def test_json_is_a_context_contribution(sample: Path) -> None:
    result = run("--repo", str(sample), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    labels = [s["label"] for s in data["sections"]]
    assert labels[0] == "AGENTS.md"
    assert all(s["stability"] == "STABILITY_STATIC" for s in data["sections"])
    assert all(s["provider"] == "repo-conventions" for s in data["sections"])


def test_bad_input_names_the_category(sample: Path, tmp_path: Path) -> None:
    for args in (
        ["--repo", str(sample), "--budget", "-5"],
        ["--repo", str(sample), "--config", '{"paths": ["NOPE.md"]}'],
        ["--repo", str(sample), "--config", "[1]"],
        ["--repo", str(sample), "--config", '{"bogus": 1}'],
    ):
        result = run(*args)
        assert result.returncode == 2, args
        assert "invalid_request" in result.stderr, (args, result.stderr)
    gone = run("--repo", str(tmp_path / "missing"))
    assert gone.returncode == 2
    assert gone.stderr == f"error: invalid_request: --repo {tmp_path / 'missing'} does not exist\n"


def command(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=60, cwd=cwd
    )


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    """A project repository (its own AGENTS.md) with sample_repo inside it as plain files,
    like this checkout; returns the project."""
    outer = tmp_path / "project"
    outer.mkdir()
    (outer / "AGENTS.md").write_text("# The outer project\n\nNot the sample.\n")
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "outer")
    copy_sample(outer)
    return outer


def test_a_folder_asked_for_as_a_project_of_its_own_is_a_scratch_copy(nested: Path) -> None:
    """Issues 11 item 9 and 22 item 2: ``--repo sample_repo --scratch`` from the checkout
    shows sample_repo (its conventions, rules, tree, a repository of its own), and says
    which repository on its first line."""
    sample = nested / "sample_repo"
    note = f"(repository: {sample}, as a scratch git copy with everything committed (--scratch))"
    conventions = command(
        "providers.repo_conventions", "--repo", "sample_repo", "--scratch", cwd=nested
    )
    assert conventions.returncode == 0, conventions.stderr
    assert conventions.stdout.splitlines()[0] == note
    assert "# tasklane" in conventions.stdout and "outer project" not in conventions.stdout
    rules = command(
        "providers.scoped_docs",
        "--repo",
        "sample_repo",
        "--files-touched",
        "src/tasklane/auth/login.py",
        "--scratch",
        cwd=nested,
    )
    assert rules.stdout.splitlines()[0] == note
    assert "=== src/tasklane/auth/AGENTS.md (applies to src/tasklane/auth/login.py" in rules.stdout
    tree = command("providers.file_tree", "--repo", "sample_repo", "--scratch", cwd=nested)
    assert tree.stdout.splitlines()[0] == note
    assert "  src/" in tree.stdout and "sample_repo/\n  .claude/" in tree.stdout
    status = command("providers.git_status", "--repo", "sample_repo", "--scratch", cwd=nested)
    assert status.stdout.splitlines()[0] == note
    assert "On branch main" in status.stdout and "Initial commit" in status.stdout
    assert "outer" not in status.stdout.split("\n", 1)[1]
    assert not (sample / ".git").exists()  # the copy is a scratch one


def test_the_repository_around_is_named_when_it_is_the_one_used(nested: Path) -> None:
    """Issue 22 item 2: ``--repo DIR`` (or no ``--repo``: the working directory) means
    what the kernel would send: inside a repository, that repository with the working
    directory there; the first line names it. A folder in no repository is a scratch
    copy, and says so."""
    sample = nested / "sample_repo"
    around = f"(repository: {nested}, working directory {sample})"
    for args, cwd in ((["--repo", "sample_repo"], nested), ([], sample)):
        result = command("providers.repo_conventions", *args, cwd=cwd)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[0] == around
        assert "outer project" in result.stdout
    top = command("providers.repo_conventions", "--repo", ".", cwd=nested)
    assert top.stdout.splitlines()[0] == f"(repository: {nested})"
    alone = command("providers.git_status", "--repo", str(sample.parent.parent), cwd=nested)
    assert alone.stdout.splitlines()[0] == (
        f"(repository: {sample.parent.parent}, as a scratch git copy with everything "
        "committed: it is in no git repository)"
    )
    assert "On branch main" in alone.stdout


def test_a_directory_inside_a_dirty_repository_means_that_repository(tmp_path: Path) -> None:
    """Issue 22 item 2: ``--repo src`` inside a real, dirty repository on a feature branch
    answers for that repository (its branch, its changes, its root AGENTS.md, its ignore
    rules), exactly as the kernel would send it, never a scratch copy."""
    repo = tmp_path / "myrepo"
    (repo / "src" / "__pycache__").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("# My repository\n\nRoot conventions.\n")
    (repo / ".gitignore").write_text("__pycache__/\n")
    (repo / "src" / "app.py").write_text("x = 1\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    git(repo, "checkout", "-qb", "feature/limits")
    (repo / "src" / "app.py").write_text("x = 2\n")
    (repo / "src" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\0")
    src = repo / "src"
    first = f"(repository: {repo}, working directory {src})"
    status = command("providers.git_status", "--repo", "src", cwd=repo)
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines()[0] == first
    assert "On branch feature/limits" in status.stdout
    assert "modified: src/app.py" in status.stdout and "Initial commit" not in status.stdout
    tree = command("providers.file_tree", "--repo", "src", cwd=repo)
    assert tree.stdout.splitlines()[0] == first
    assert "app.py" in tree.stdout and "__pycache__" not in tree.stdout
    conventions = command("providers.repo_conventions", "--repo", "src", cwd=repo)
    assert "=== AGENTS.md (" in conventions.stdout and "Root conventions." in conventions.stdout
    assert git(repo, "status", "--porcelain") == " M src/app.py\n"  # nothing written


def test_no_convention_file_says_so(tmp_path: Path) -> None:
    """Issue 22 item 8: a repository with no convention file says that, not "nothing to
    contribute ... at budget 4000"."""
    git(tmp_path, "init", "-q")
    result = command("providers.repo_conventions", "--repo", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == (
        "(repo-conventions: nothing to contribute: no convention file in this repository)"
    )


def test_a_directory_too_big_to_copy_is_not_copied(nested: Path) -> None:
    big = nested / "big"
    big.mkdir()
    for number in range(COPY_LIMIT + 1):
        (big / f"f{number}.txt").touch()
    result = command("providers.repo_conventions", "--repo", "big", "--scratch", cwd=nested)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        f"(repository: {nested}; {big} has over {COPY_LIMIT:,} files, too many for a "
        "scratch git copy, so it is shown as it is)"
    )
    assert "outer project" in result.stdout


def test_json_keeps_stdout_json_and_names_the_repository_on_stderr(nested: Path) -> None:
    result = command(
        "providers.repo_conventions", "--repo", "sample_repo", "--scratch", "--json", cwd=nested
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sections"][0]["label"] == "AGENTS.md"
    assert result.stderr.startswith(f"(repository: {nested / 'sample_repo'}, as a scratch")


DOCS_CHECKOUT = "/home/me/context-providers"
"""Where docs/standalone.md's examples say the checkout is."""


def documented_examples() -> list[tuple[str, str]]:
    """(command, output) for each console block of docs/standalone.md."""
    text = (REPO_ROOT / "docs" / "standalone.md").read_text(encoding="utf-8")
    examples = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        first, _, output = block.partition("\n")
        assert first.startswith("$ "), block
        examples.append((first[2:], output))
    return examples


def test_documented_standalone_examples_are_real_output_on_sample_repo(tmp_path: Path) -> None:
    """Issue 11 item 9: docs/standalone.md's examples, run from a checkout (a repository
    holding sample_repo as plain files), print what the page shows: sample_repo's conventions,
    rules and tree, the first line naming it."""
    examples = documented_examples()
    assert len(examples) >= 3
    checkout = tmp_path / "context-providers"
    checkout.mkdir()
    (checkout / "AGENTS.md").write_text("# The checkout\n")
    git(checkout, "init", "-q")
    git(checkout, "add", "-A")
    git(checkout, "commit", "-qm", "checkout")
    copy_sample(checkout)
    for line, shown in examples:
        program, *args = shlex.split(line)
        executable = [sys.executable] if program == "python" else [script(program)]
        result = subprocess.run(
            [*executable, *args], capture_output=True, text=True, timeout=60, cwd=checkout
        )
        assert result.returncode == 0, result.stderr
        real = result.stdout.replace(str(checkout), DOCS_CHECKOUT)
        scratch = re.compile(r"\S*/preview-[^/\s]+/")
        assert scratch.sub("SCRATCH/", real) == scratch.sub("SCRATCH/", shown), line
        assert real.startswith(f"(repository: {DOCS_CHECKOUT}/sample_repo, as a scratch")


def test_a_scratch_copy_never_commits_into_the_repository_the_environment_names(
    nested: Path,
) -> None:
    """Run from a git hook, GIT_DIR and GIT_WORK_TREE name the user's repository; the
    scratch copy's init, add and commit must not land there (scratch.py drops them)."""
    before = git(nested, "rev-parse", "HEAD")
    env = {
        **os.environ,
        "GIT_DIR": str(nested / ".git"),
        "GIT_WORK_TREE": str(nested),
        "GIT_INDEX_FILE": str(nested / ".git" / "index"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "providers.git_status", "--repo", "sample_repo", "--scratch"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=nested,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert git(nested, "rev-parse", "HEAD") == before
    assert git(nested, "status", "--porcelain") == "?? sample_repo/\n"
    assert "Initial commit" in result.stdout
