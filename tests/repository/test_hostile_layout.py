"""Issue 20 item 2: the repository is where the working directory is. A ``.git`` that leads
to another directory's git dir, a ``commondir`` borrowing another repository, or a
``core.worktree`` elsewhere never makes the providers show another directory's files
or history as this one's; the layouts git makes itself (linked worktrees, submodules,
``--separate-git-dir``) keep working.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from providers.repository.gitexec import GitRefused, GitRunner
from tests.conftest import isolate_git
from tests.repository.hostile import (
    Answers,
    assert_answers_right,
    base_repo,
    four_answers,
    project_files,
    run_git,
)
from tests.repository.test_hostile_includes import witnessed

SECRET = "secret-plan.md"


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_git(tmp_path_factory, monkeypatch, '[protocol "file"]\n\tallow = always\n')


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """Someone else's repository on the same machine, with a file and a commit of its own."""
    path = base_repo(tmp_path / "secret")
    (path / SECRET).write_text("the plan\n")
    run_git(path, "add", SECRET)
    run_git(path, "commit", "-q", "-m", "secret history")
    return path


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """The directory the agent opened: its own files, and a ``.git`` each test makes."""
    path = tmp_path / "here"
    path.mkdir()
    return project_files(path)


def assert_only_ours(answers: Answers) -> None:
    everything = "\n".join(vars(answers).values())
    assert SECRET not in everything and "secret history" not in everything
    assert "elsewhere.txt" not in everything


def assert_refused(answers: Answers, here: Path, why: str) -> None:
    assert_answers_right(answers, status=False)
    assert_only_ours(answers)
    assert answers.status.startswith("Note: git is not run in"), answers.status
    assert why in answers.status
    with pytest.raises(GitRefused, match=why):
        GitRunner().run(here, ["ls-files"])


def test_a_git_file_pointing_at_another_repository_is_refused(here: Path, secret: Path) -> None:
    """Issue 20 item 2: ``gitdir: /elsewhere/.git``; plain git lists the other repository's
    files as this one's (its index) and shows its history."""
    (here / ".git").write_text(f"gitdir: {secret / '.git'}\n")
    assert SECRET in run_git(here, "ls-files").stdout.decode()
    assert_refused(four_answers(here), here, "another checkout's .git")


def test_a_git_symlink_to_another_repository_is_refused(here: Path, secret: Path) -> None:
    """Issue 20 item 2: the same through a symlinked ``.git``."""
    (here / ".git").symlink_to(secret / ".git")
    assert SECRET in run_git(here, "ls-files").stdout.decode()
    assert_refused(four_answers(here), here, "another checkout's .git")


def test_a_git_file_pointing_at_a_bare_repository_is_refused(
    here: Path, secret: Path, tmp_path: Path
) -> None:
    """Issue 20 item 2: a bare repository's history is not this directory's either."""
    bare = tmp_path / "secret.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(secret), str(bare))
    (here / ".git").write_text(f"gitdir: {bare}\n")
    assert "secret history" in run_git(here, "log", "-1").stdout.decode()
    assert_refused(four_answers(here), here, "a bare repository")


def test_a_core_worktree_elsewhere_is_refused(here: Path, tmp_path: Path) -> None:
    """Issue 20 item 2: ``core.worktree`` makes git list another directory."""
    run_git(here, "init", "-q", "-b", "main")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "elsewhere.txt").write_text("not ours\n")
    run_git(here, "config", "core.worktree", str(elsewhere))
    assert "elsewhere.txt" in run_git(here, "ls-files", "-o").stdout.decode()
    assert_refused(four_answers(here), here, "core.worktree")


def test_a_commondir_borrowing_another_repository_is_refused(here: Path, secret: Path) -> None:
    """Issue 20 item 2: a ``.git`` of our own whose ``commondir`` is another repository's
    (its refs, objects and config): plain git shows that repository's history as ours."""
    run_git(here, "init", "-q", "-b", "main")
    (here / ".git" / "commondir").write_text(f"{secret / '.git'}\n")
    assert "secret history" in run_git(here, "log", "-1").stdout.decode()
    assert_refused(four_answers(here), here, "commondir")


def test_a_git_file_into_another_repositorys_worktree_is_refused(
    here: Path, secret: Path, tmp_path: Path
) -> None:
    """Issue 20 item 2: a ``.git`` file naming another checkout's linked-worktree git dir:
    that git dir names its own checkout back, not this directory."""
    run_git(secret, "worktree", "add", "-q", str(tmp_path / "secret-wt"))
    (here / ".git").write_text(f"gitdir: {secret / '.git' / 'worktrees' / 'secret-wt'}\n")
    assert_refused(four_answers(here), here, "gitdir file does not name this one")


def test_git_cannot_climb_past_the_repository_we_vetted(tmp_path: Path) -> None:
    """Issue 20 item 2: a ``.git`` that is no repository stops us; git may not climb past
    it to the repository above (whose config we did not vet; here it includes a file
    outside, which git would open)."""
    outer = base_repo(tmp_path / "outer")
    inner = outer / "inner"
    inner.mkdir()
    (inner / ".git").mkdir()  # not a repository: plain git climbs to outer
    with witnessed(tmp_path / "outside.cfg") as witness:
        run_git(outer, "config", "include.path", str(witness.fifo))
        run_git(inner, "status", check=False)
        assert witness.opened
        witness.opened = 0
        answers = four_answers(inner, touched=())
        code, _, err = GitRunner().run(inner, ["status"], ok_codes=None)
    assert witness.opened == 0
    assert code != 0 and b"not a git repository" in err
    assert answers.status == ""


# What git makes itself keeps working -------------------------------------------------


@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
def test_a_linked_worktree_works(tmp_path: Path, relative: bool) -> None:
    """Issue 20 item 2: ``git worktree add``: the ``.git`` file leads into the main
    repository's ``.git/worktrees/``, whose ``gitdir`` names this checkout back (with
    relative paths too, as ``worktree.useRelativePaths`` writes them in newer git)."""
    main = base_repo(tmp_path / "main")
    linked = tmp_path / "linked"
    run_git(main, "worktree", "add", "-q", "-b", "topic", str(linked))
    if relative:
        git_dir = main / ".git" / "worktrees" / "linked"
        (linked / ".git").write_text(f"gitdir: {os.path.relpath(git_dir, linked)}\n")
        (git_dir / "gitdir").write_text(os.path.relpath(linked / ".git", git_dir) + "\n")
    (linked / "new.txt").write_text("new\n")
    answers = four_answers(linked)
    assert_answers_right(answers, status=False)
    assert answers.status.startswith("On branch topic")
    assert "new.txt" in answers.status and "new.txt" in answers.tree


def test_a_submodule_works_from_inside(tmp_path: Path) -> None:
    """Issue 20 item 2: a submodule's ``.git`` file leads to ``.git/modules/<name>`` of its
    superproject, whose ``core.worktree`` names the submodule's directory back."""
    origin = base_repo(tmp_path / "origin")
    superproject = base_repo(tmp_path / "super")
    run_git(superproject, "submodule", "add", "-q", str(origin), "s")
    sub = superproject / "s"
    (sub / "new.txt").write_text("new\n")
    answers = four_answers(sub)
    assert_answers_right(answers, status=False)
    assert answers.status.startswith("HEAD detached at") or answers.status.startswith("On branch")
    assert "new.txt" in answers.status and "new.txt" in answers.tree


def test_a_separate_git_dir_works(tmp_path: Path) -> None:
    """Issue 20 item 2: ``git init --separate-git-dir`` sets ``core.worktree`` back to the
    checkout."""
    checkout = project_files(tmp_path / "checkout")
    run_git(checkout, "init", "-q", "-b", "main", f"--separate-git-dir={tmp_path / 'store.git'}")
    run_git(checkout, "add", "-A")
    run_git(checkout, "commit", "-q", "-m", "initial")
    assert os.path.isfile(checkout / ".git")
    (checkout / "new.txt").write_text("new\n")
    answers = four_answers(checkout)
    assert_answers_right(answers)
    assert "new.txt" in answers.status and "new.txt" in answers.tree
