"""The provider end to end on real repositories: contract, repository shapes, faults."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.types import Stability
from providers.git_status.provider import GitStatusProvider
from tests.git_status.repos import (
    clone_via_origin,
    collect,
    commit_file,
    counting_git,
    git,
    runs,
    text_of,
    write_script,
)

Make = Callable[..., GitStatusProvider]
NO_WATCH = {"watch": False}


def test_identity_and_capabilities() -> None:
    """'`stability` declaration MUST' and '`default_token_budget` declaration MUST'."""
    provider = GitStatusProvider()
    assert provider.identity().name == "git-status"
    caps = provider.capabilities()
    assert caps.stability is Stability.DYNAMIC
    assert caps.default_token_budget == 800
    names = {attr.name for attr in caps.config_schema}
    assert names == {
        "token_budget",
        "provider_name",
        "recent_commits",
        "untracked",
        "max_entries",
        "git",
        "timeout_ms",
        "watch",
    }


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({"git": "/nonexistent/git"}, "/nonexistent/git"),
        ({"untracked": "some"}, "untracked"),
        ({"timeout_ms": -5}, "timeout_ms"),
        ({"recent_commits": -1}, "recent_commits"),
        ({"max_entries": 1.5}, "max_entries"),
        ({"colour": True}, "colour"),
    ],
)
def test_bad_config_is_invalid_request(config: dict[str, object], says: str) -> None:
    with pytest.raises(ProviderError) as caught:
        GitStatusProvider().configure(config)
    assert caught.value.category is ErrorCategory.INVALID_REQUEST
    assert says in caught.value.message


def test_section_contract(make_provider: Make, repo: Path) -> None:
    """'Section `label` MUST'; 'stability declaration MUST'; tokens by the kernel's counter."""
    (repo / "README").write_text("changed\n")
    (section,) = collect(make_provider(NO_WATCH), repo).sections
    assert section.label == "git status"
    assert section.stability is Stability.DYNAMIC
    assert section.tokens == FallbackCounter().count(section.text) <= 800
    assert not section.truncated
    assert section.text == (
        "On branch main\n\n"
        "Changes: 1 unstaged\n\n"
        "Unstaged:\n  modified: README (+1 -1)\n\n"
        f"Recent commits:\n  {git(repo, 'rev-parse', '--short', 'HEAD').strip()} initial\n"
    )


def test_not_a_repository_contributes_nothing(make_provider: Make, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert collect(make_provider(), plain).sections == ()


def test_inside_the_git_dir_contributes_nothing(make_provider: Make, repo: Path) -> None:
    assert collect(make_provider(NO_WATCH), repo / ".git").sections == ()


def test_budget_zero_runs_no_git(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    wrapper, log = counting_git(tmp_path)
    assert collect(make_provider({"git": str(wrapper)}), repo, budget=0).sections == ()
    assert runs(log) == []


def test_tiny_budgets_never_oversized(make_provider: Make, repo: Path) -> None:
    """'Self-truncation/summarization to fit `token_budget`: MUST'."""
    provider = make_provider(NO_WATCH)
    assert collect(provider, repo, budget=3).sections == ()
    for budget in range(1, 80):
        for section in collect(provider, repo, budget=budget).sections:
            assert section.tokens <= budget


def test_subdirectory_paths_are_repo_relative(make_provider: Make, repo: Path) -> None:
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / "src" / "pkg" / "mod.py").write_text("x\n")
    body = text_of(
        collect(
            make_provider(
                NO_WATCH,
            ),
            repo / "src" / "pkg",
        )
    )
    assert "  src/ (1 file)\n" in body  # untracked directory, relative to the root, not src/pkg
    body = text_of(collect(make_provider({"watch": False, "untracked": "all"}), repo / "src"))
    assert "  src/pkg/mod.py\n" in body


def test_detached_unborn_and_no_untracked(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    short = git(repo, "rev-parse", "--short", "HEAD").strip()
    assert text_of(collect(make_provider(NO_WATCH), repo)).startswith(f"HEAD detached at {short}")
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    (empty / "file").write_text("x\n")
    body = text_of(collect(make_provider({"watch": False, "untracked": "no"}), empty))
    assert body.startswith("On branch main (no commits yet)\n")
    assert "Working tree clean (untracked files not checked)" in body
    assert "Recent commits" not in body


def test_upstream_default_branch_and_stash(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    origin, clone = clone_via_origin(tmp_path, repo)
    commit_file(repo, "upstream.txt", "u\n")
    git(repo, "push", "-q", str(origin), "main")
    commit_file(clone, "mine.txt", "m\n")
    commit_file(clone, "mine2.txt", "m\n")
    git(clone, "fetch", "-q")
    (clone / "README").write_text("stashed\n")
    git(clone, "stash", "-q")
    body = text_of(collect(make_provider(NO_WATCH), clone))
    assert body.startswith(
        "On branch main, 2 commits ahead of origin/main, 1 behind\n\nWorking tree clean; 1 stash\n"
    )


def test_merge_conflict_end_to_end(make_provider: Make, repo: Path) -> None:
    commit_file(repo, "f.txt", "base\n")
    git(repo, "checkout", "-q", "-b", "topic")
    commit_file(repo, "f.txt", "topic\n")
    git(repo, "checkout", "-q", "main")
    commit_file(repo, "f.txt", "main\n")
    git(repo, "merge", "-q", "topic", check=False)
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert "Merge in progress\n" in body
    assert "Changes: 1 conflicted\n" in body
    assert "Conflicted:\n  both modified: f.txt\n" in body


def test_linked_worktree(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(worktree))
    (worktree / "README").write_text("in the worktree\n")
    body = text_of(collect(make_provider(NO_WATCH), worktree))
    assert body.startswith("On branch feature, no upstream; even with main\nDefault branch: main\n")
    assert "modified: README" in body
    assert "modified" not in text_of(collect(make_provider(NO_WATCH), repo))


def test_submodule(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    library = tmp_path / "library"
    git(tmp_path, "init", "-q", str(library))
    commit_file(library, "lib.py", "v1\n")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    git(repo, "commit", "-qm", "add submodule")
    (repo / "lib" / "lib.py").write_text("v2\n")
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert "  modified (submodule: modified content): lib\n" in body
    inner = text_of(collect(make_provider(NO_WATCH), repo / "lib"))
    assert "  modified: lib.py (+1 -1)\n" in inner


def test_bare_repository_says_so(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    body = text_of(collect(make_provider(NO_WATCH), bare))
    assert body.startswith("Bare repository (no working tree); HEAD is main\n")
    assert " initial\n" in body
    empty = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", str(empty))
    assert text_of(collect(make_provider(NO_WATCH), empty)).startswith("Bare repository")


def test_awkward_paths_stay_on_one_line(make_provider: Make, repo: Path) -> None:
    (repo / "new\nline.txt").write_text("x\n")
    (repo / "ünï cödé.txt").write_text("x\n")
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert '  "new\\nline.txt"\n' in body
    assert "  ünï cödé.txt\n" in body


def test_safe_directory_refusal(make_provider: Make, repo: Path) -> None:
    """'source_unavailable: Declared file/glob/source unreadable at call time'."""
    environ = {**os.environ, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"}
    provider = make_provider(NO_WATCH, environ=environ)
    with pytest.raises(ProviderError) as caught:
        collect(provider, repo)
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert "safe.directory" in caught.value.message


def test_timeout_is_retried_next_turn(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    """A git that hangs: source_unavailable (retryable) now, a fresh attempt next turn."""
    hang = tmp_path / "hang"
    hang.touch()
    real = shutil.which("git")
    slow = write_script(
        tmp_path / "slow-git",
        f'case "$*" in *" status "*) [ -e "{hang}" ] && exec sleep 30;; esac\nexec "{real}" "$@"\n',
    )
    provider = make_provider({"git": str(slow), "timeout_ms": 300, "watch": False})
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            collect(provider, repo)
        assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
        assert caught.value.retryable
        assert "timed out after 300 ms" in caught.value.message
    hang.unlink()
    assert text_of(collect(provider, repo)).startswith("On branch main")


def test_corrupt_repository_then_repaired(make_provider: Make, repo: Path) -> None:
    index = repo / ".git" / "index"
    good = index.read_bytes()
    provider = make_provider(NO_WATCH)
    collect(provider, repo)
    index.write_bytes(b"DIRC not really an index")
    with pytest.raises(ProviderError) as caught:
        collect(provider, repo)
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    index.write_bytes(good)
    assert text_of(collect(provider, repo)).startswith("On branch main")


def test_repository_deleted_mid_session(make_provider: Make, repo: Path) -> None:
    provider = make_provider(NO_WATCH)
    assert collect(provider, repo).sections
    shutil.rmtree(repo / ".git")
    assert collect(provider, repo).sections == ()


def test_deterministic_across_providers(make_provider: Make, repo: Path) -> None:
    for i in range(30):
        (repo / f"d{i % 4}").mkdir(exist_ok=True)
        (repo / f"d{i % 4}" / f"f{i}.txt").write_text("x\n")
    config = {"watch": False, "untracked": "all"}
    for budget in (40, 90, 200, 800):
        first = text_of(collect(make_provider(config), repo, budget))
        second = text_of(collect(make_provider(config), repo, budget))
        assert first.encode() == second.encode()


def test_collect_never_writes_the_repository(make_provider: Make, repo: Path) -> None:
    """A touched-but-unchanged file makes a plain `git status` rewrite .git/index; ours must not."""
    index = repo / ".git" / "index"
    stamp = index.stat().st_mtime_ns + 2_000_000_000
    os.utime(repo / "README", ns=(stamp, stamp))  # stat differs from the index, content does not
    (repo / "new.txt").write_text("x\n")
    before = sorted((p.relative_to(repo), p.stat().st_mtime_ns) for p in repo.rglob("*"))
    index_bytes = index.read_bytes()
    provider = make_provider(NO_WATCH)
    for budget in (800, 50):
        collect(provider, repo, budget)
    after = sorted((p.relative_to(repo), p.stat().st_mtime_ns) for p in repo.rglob("*"))
    assert after == before
    assert index.read_bytes() == index_bytes
    git(repo, "status", "--porcelain")  # the control: plain git does rewrite it
    assert index.read_bytes() != index_bytes
