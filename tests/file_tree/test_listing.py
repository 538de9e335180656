"""The listing is git's, file for file: in a repository and, by a walk, outside one."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from providers.file_tree.listing import ListingOptions, list_tree
from providers.repository.gitexec import GitRunner
from tests.file_tree.helpers import git, git_listing, init_repo
from tests.support.trees import generate_tree, random_patterns

SEEDS = range(10)


def listed(root: Path, options: ListingOptions | None = None) -> set[str]:
    return set(list_tree(root, options or ListingOptions(), GitRunner()).tree.paths())


def add_global_excludes(config: Path, excludes: Path) -> None:
    with config.open("a") as handle:
        handle.write(f"[core]\n\texcludesFile = {excludes}\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_repository_listing_is_ls_files(tmp_path: Path, git_env: Path, seed: int) -> None:
    """Nested .gitignore files, negations, info/exclude and the global excludes file."""
    repo = tmp_path / "repo"
    generate_tree(repo, seed)
    init_repo(repo, commit=False)
    (repo / ".git" / "info" / "exclude").write_text(random_patterns(seed, 3))
    excludes = tmp_path / "global-ignore"
    excludes.write_text(random_patterns(seed + 100, 3))
    add_global_excludes(git_env, excludes)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "some", "--allow-empty")
    result = list_tree(repo, ListingOptions(), GitRunner())
    assert result.in_git
    assert set(result.tree.paths()) == git_listing(repo)


@pytest.mark.parametrize("untracked", [3, 40])
def test_untracked_files_join_the_tracked_ones(tmp_path: Path, untracked: int) -> None:
    """A few untracked files are added to the packed tracked ones one by one; many make
    it pack everything again. Either way the listing is git's, nested repositories too."""
    repo = tmp_path / "repo"
    for i in range(30):
        (repo / "src" / f"d{i % 4}").mkdir(parents=True, exist_ok=True)
        (repo / "src" / f"d{i % 4}" / f"tracked{i}.py").write_text("x\n")
    (repo / ".gitignore").write_text("*.log\n")
    init_repo(repo)
    for i in range(untracked):
        (repo / "src" / f"d{i % 5}").mkdir(parents=True, exist_ok=True)
        (repo / "src" / f"d{i % 5}" / f"new{i}.py").write_text("y\n")
        (repo / "src" / f"d{i % 5}" / f"new{i}.log").write_text("ignored\n")
    init_repo(repo / "vendor" / "nested")
    assert listed(repo) == git_listing(repo)


@pytest.mark.parametrize("seed", SEEDS)
def test_walk_lists_what_git_would_after_init(tmp_path: Path, git_env: Path, seed: int) -> None:
    """Differential: the same generated tree, walked, then listed by git after ``git init``."""
    root = tmp_path / "plain"
    generate_tree(root, seed)
    excludes = tmp_path / "global-ignore"
    excludes.write_text(random_patterns(seed + 200, 2))
    add_global_excludes(git_env, excludes)
    result = list_tree(root, ListingOptions(), GitRunner())
    assert not result.in_git
    walked = set(result.tree.paths())
    init_repo(root, commit=False)
    assert walked == git_listing(root)


def test_walk_uses_the_xdg_global_excludes_when_none_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "git").mkdir(parents=True)
    (xdg / "git" / "ignore").write_text("*.secret\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    root = tmp_path / "plain"
    for name in ("a.secret", "b.txt"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("x")
    assert listed(root) == {"b.txt"}
    init_repo(root, commit=False)
    assert git_listing(root) == {"b.txt"}


def test_symlinks_nested_repositories_and_fifos_as_git_lists_them(tmp_path: Path) -> None:
    """Symlinks are entries (never followed, even to directories or out of the tree)."""
    root = tmp_path / "plain"
    outside = tmp_path / "outside"
    (outside / "secret").mkdir(parents=True)
    (outside / "secret" / "key").write_text("k")
    (root / "dir").mkdir(parents=True)
    (root / "dir" / "f.txt").write_text("f")
    (root / "to-outside").symlink_to(outside / "secret")
    (root / "dangling").symlink_to(root / "missing")
    (root / "dir" / "loop").symlink_to(root)  # a loop, if it were followed
    (root / "to-dir").symlink_to(root / "dir")
    os.mkfifo(root / "pipe")
    init_repo(root / "nested", commit=True)
    (root / "fake").mkdir()
    (root / "fake" / ".git").mkdir()  # not a repository: git looks inside
    (root / "fake" / "y").write_text("y")
    expected = {"dir/f.txt", "to-outside", "dangling", "dir/loop", "to-dir", "nested/", "fake/y"}
    assert listed(root) == expected
    init_repo(root, commit=False)
    assert git_listing(root) == expected
    assert listed(root) == expected


def test_deleted_tracked_files_are_not_listed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("keep.txt", "gone.txt", "d/also-gone.txt"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    init_repo(repo)
    (repo / "gone.txt").unlink()
    shutil.rmtree(repo / "d")
    tree = list_tree(repo, ListingOptions(), GitRunner()).tree
    assert set(tree.paths()) == {"keep.txt"}
    assert tree.find_dir("d") is None


def test_repository_without_commits(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "main.py").write_text("print()")
    (repo / ".gitignore").write_text("*.tmp\n")
    (repo / "x.tmp").write_text("")
    init_repo(repo, commit=False)
    result = list_tree(repo, ListingOptions(), GitRunner())
    assert result.in_git
    assert set(result.tree.paths()) == {".gitignore", "src/main.py"}


def test_submodule_is_one_entry(tmp_path: Path) -> None:
    library = init_repo(tmp_path / "library", commit=False)
    (library / "lib.c").write_text("int x;")
    git(library, "add", "-A")
    git(library, "commit", "-qm", "lib")
    repo = tmp_path / "repo"
    (repo / "main.c").parent.mkdir(parents=True)
    (repo / "main.c").write_text("int main;")
    init_repo(repo)
    allow = ("-c", "protocol.file.allow=always")
    git(repo, *allow, "submodule", "add", "-q", str(library), "vendor/lib")
    paths = listed(repo)
    assert paths == {".gitmodules", "main.c", "vendor/lib/"}


def test_own_excludes_hide_tracked_files_too(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("vendor/a.js", "vendor/b/c.js", "src/x.py", "src/x.gen.py", "docs/keep.md"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    (repo / ".contextignore").write_text("docs/\n")
    init_repo(repo)
    options = ListingOptions(exclude=("vendor/", "*.gen.py"))
    assert listed(repo, options) == {"src/x.py", ".contextignore"}
    # The same patterns apply to a walk.
    shutil.rmtree(repo / ".git")
    assert listed(repo, options) == {"src/x.py", ".contextignore"}


def test_excluded_directory_cannot_be_reincluded_by_own_patterns(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for name in ("build/keep.txt", "build/other.txt", "x.txt"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    init_repo(repo)
    options = ListingOptions(exclude=("build/", "!build/keep.txt"), ignore_file="")
    assert listed(repo, options) == {"x.txt"}


def test_ignore_file_outside_the_root_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "a.txt").write_text("a")
    (tmp_path / "evil").write_text("*\n")
    assert listed(root, ListingOptions(ignore_file="../evil")) == {"a.txt"}


def test_odd_names(tmp_path: Path) -> None:
    """Spaces, newlines, quotes, unicode, a leading dash and undecodable bytes survive as is."""
    root = tmp_path / "plain"
    root.mkdir()
    names = ["with space.txt", "new\nline.txt", 'quo"te', "ünïcødé", "-dash", "tab\tname"]
    for name in names:
        (root / name).write_text("x")
    raw = os.fsencode(root) + b"/bad-\xff-byte"
    with open(raw, "w") as handle:
        handle.write("x")
    expected = {*names, os.fsdecode(b"bad-\xff-byte")}
    assert listed(root) == expected
    init_repo(root, commit=True)
    assert listed(root) == expected
    assert git_listing(root) == expected


def test_deep_nesting(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    deep = root.joinpath(*["d"] * 300)
    deep.mkdir(parents=True)
    (deep / "leaf.txt").write_text("x")
    rel = "/".join(["d"] * 300) + "/leaf.txt"
    assert listed(root) == {rel}
    init_repo(root)
    assert listed(root) == {rel}


def test_sparse_checkout_lists_only_what_is_checked_out(tmp_path: Path) -> None:
    """Entries outside a sparse checkout (``S``) are not in the work tree: not listed."""
    repo = tmp_path / "repo"
    for name in ("in/a.txt", "out/b.txt", "top.txt", "kept.cfg"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    init_repo(repo)
    git(repo, "sparse-checkout", "set", "in")
    git(repo, "update-index", "--no-skip-worktree", "kept.cfg")
    git(repo, "checkout", "-q", "--", "kept.cfg")
    # A skip-worktree file that does exist (a local override) is listed.
    git(repo, "update-index", "--skip-worktree", "kept.cfg")
    assert not (repo / "out" / "b.txt").exists()
    assert listed(repo) == {"in/a.txt", "top.txt", "kept.cfg"}
