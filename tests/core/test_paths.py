"""Repo root, confinement and files_touched normalisation (one copy of each rule)."""

from __future__ import annotations

from pathlib import Path

from providers.core.paths import RepoRoots, confine, find_repo_root, normalise_touched


def test_repo_root_is_nearest_git_upwards_else_the_directory(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "pkg").mkdir(parents=True)
    assert find_repo_root(tmp_path / "repo" / "src" / "pkg") == (tmp_path / "repo").resolve()
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's .git file
    assert find_repo_root(tmp_path / "wt") == (tmp_path / "wt").resolve()
    (tmp_path / "plain").mkdir()
    assert find_repo_root(tmp_path / "plain") in {
        (tmp_path / "plain").resolve(),
        *(p for p in (tmp_path / "plain").resolve().parents if (p / ".git").exists()),
    }


def test_confine_follows_symlinks_before_deciding(tmp_path: Path) -> None:
    root = (tmp_path / "root").resolve()
    root.mkdir()
    (tmp_path / "out.txt").write_text("x")
    (root / "in.txt").write_text("x")
    (root / "escape").symlink_to(tmp_path / "out.txt")
    assert confine(root, Path("in.txt")) == root / "in.txt"
    assert confine(root, Path("escape")) is None
    assert confine(root, Path("../out.txt")) is None
    assert confine(root, Path("../out.txt"), allowed=(tmp_path.resolve(),)) is not None


def test_files_touched_normalised_and_outside_ignored(tmp_path: Path) -> None:
    root = (tmp_path / "repo").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("")
    touched = normalise_touched(
        root,
        root / "src",
        [
            "a.py",
            str(root / "src" / "a.py"),
            "../README.md",
            "new/file.py",
            "/etc/passwd",
            "../../x",
            "",
        ],
    )
    assert touched.inside == ("src/a.py", "README.md", "src/new/file.py")
    assert set(touched.outside) == {"/etc/passwd", "../../x", ""}


def test_repo_roots_memo_notices_a_new_or_removed_git_dir(tmp_path: Path) -> None:
    roots = RepoRoots()
    work = tmp_path / "work"
    work.mkdir()
    first = roots.root(work)
    assert roots.root(work) == first
    (work / ".git").mkdir()
    assert roots.root(work) == work.resolve()
    (work / ".git").rmdir()
    assert roots.root(work) == find_repo_root(work)
