"""Issue 32: a folder outside git never ends in a traceback.

A folder in no repository (or one asked for with ``--scratch``) is previewed
in a scratch git copy (``providers/cli/scratch.py``). The shapes a new user
makes by hand, built here with real git: a nested repository with commits,
one without, one several levels deep, and names git refuses to add on Linux
(``.git`` in another case as a path component, the NTFS short name ``git~1``,
a ``.gitmodules`` symlink; a name with a newline git adds, so it is committed).
Every standalone command and ``context-providers preview`` (real processes,
real git) exits 0 on each, names what the commit lacks as git lists it (a
nested repository is one entry, ``inner/``; one with commits is committed as
the gitlink git makes of it), and writes no traceback. A copy git cannot make
at all ends with one classified line (context-conformance.md, "Error
taxonomy": ``source_unavailable``), exit 2.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git, script
from tests.support.files import write

COMMANDS = (
    "context-repo-conventions",
    "context-git-status",
    "context-file-tree",
    "context-scoped-docs",
)


def repository(root: Path, *, commit: bool) -> None:
    """A git repository at ``root`` holding ``b.txt``, committed when ``commit``."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    write(root, "b.txt", "b\n")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-qm", "inner")


def nested_with_commits(root: Path) -> None:
    write(root, "a.txt")
    repository(root / "inner", commit=True)


def nested_without_commits(root: Path) -> None:
    write(root, "a.txt")
    repository(root / "inner", commit=False)


def nested_deep(root: Path) -> None:
    write(root, "a.txt")
    repository(root / "x" / "y" / "z" / "inner", commit=False)


def refused_names(root: Path) -> None:
    write(root, "a.txt")
    write(root, ".GIT/config")  # ".git" in another case: refused on every platform
    write(root, "sub/.Git")
    write(root, "sub/ok.txt")
    write(root, "git~1")  # the NTFS short name of .git (core.protectNTFS, on by default)
    os.symlink("elsewhere", root / ".gitmodules")  # git refuses a symlinked .gitmodules
    write(root, "new\nline")  # git adds this one


@dataclass(frozen=True)
class Shape:
    make: Callable[[Path], None]
    left_out: str | None
    """The line naming what the commit lacks (None: the note says everything)."""
    tree: tuple[str, ...]
    """Lines the file tree shows for it (as listed in the scratch copy)."""
    status: tuple[str, ...]
    """Lines git status shows for it."""


SHAPES = {
    "nested-with-commits": Shape(
        nested_with_commits, None, ("  inner\n", "  a.txt\n"), ("Working tree clean",)
    ),
    "nested-without-commits": Shape(
        nested_without_commits,
        "(left out of the scratch commit: inner/ (a git repository without commits, untracked))",
        ("  inner/ (repository)\n",),
        ("Untracked:\n  inner/\n",),
    ),
    "nested-deep": Shape(
        nested_deep,
        "(left out of the scratch commit: x/y/z/inner/ (a git repository without commits, "
        "untracked))",
        ("  x/y/z/inner/ (repository)\n",),
        ("Untracked:\n  x/",),
    ),
    "refused-names": Shape(
        refused_names,
        "(left out of the scratch commit: .GIT/config (a name git refuses, untracked), "
        ".gitmodules (a name git refuses, untracked), git~1 (a name git refuses, untracked), "
        "sub/.Git (a name git refuses, untracked))",
        ("  .GIT/config\n", "  git~1\n", "  .gitmodules -> elsewhere\n", '  "new\\nline"\n'),
        ("Untracked:\n  .GIT/", "  .gitmodules\n", "  git~1\n"),
    ),
}


def run(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)


def note(folder: Path, shape: Shape, why: str) -> str:
    """The lines that open the answer: which repository, and what the commit lacks."""
    what = "everything git can add" if shape.left_out else "everything"
    first = f"(repository: {folder}, as a scratch git copy with {what} committed{why})\n"
    return first + (f"{shape.left_out}\n" if shape.left_out else "")


@pytest.fixture(params=["outside-git", "scratch"])
def placed(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, list[str], str]:
    """Where the folder is (in no repository; or inside one, asked for with --scratch),
    the flags that ask for it, and the reason its note gives."""
    if request.param == "outside-git":
        return tmp_path / "folder", [], ": it is in no git repository"
    outer = tmp_path / "outer"
    write(outer, "README.md", "# outer\n")
    git(outer, "init", "-q")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "outer")
    return outer / "folder", ["--scratch"], " (--scratch)"


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("command", COMMANDS)
def test_each_standalone_command_previews_each_shape(
    command: str, name: str, placed: tuple[Path, list[str], str]
) -> None:
    """Issue 32: exit 0, no traceback, the note names what git left out of the commit;
    the file tree and git status name it as git lists it."""
    folder, flags, why = placed
    shape = SHAPES[name]
    shape.make(folder)
    result = run(script(command), "--repo", str(folder), *flags)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith(note(folder, shape, why)), result.stdout
    expected = {"context-file-tree": shape.tree, "context-git-status": shape.status}
    for line in expected.get(command, ()):
        assert line in result.stdout, (line, result.stdout)
    assert not (folder / ".git").exists()  # the folder itself is never written to


@pytest.mark.parametrize("name", SHAPES)
def test_preview_runs_a_session_on_each_shape(
    name: str, placed: tuple[Path, list[str], str]
) -> None:
    """Issue 32: ``context-providers preview DIR`` (and ``--scratch``) runs its session on
    each shape: the note first, the providers' sections, no traceback."""
    folder, flags, why = placed
    shape = SHAPES[name]
    shape.make(folder)
    result = run(script("context-providers"), "preview", *flags, str(folder))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith(note(folder, shape, why)), result.stdout
    assert '<context provider="file_tree" label="file tree">' in result.stdout
    for line in (*shape.tree, *shape.status):
        assert line in result.stdout, (line, result.stdout)


def test_more_left_out_than_the_note_names_are_counted(tmp_path: Path) -> None:
    """The note names the first five entries the commit lacks and counts the rest."""
    folder = tmp_path / "folder"
    for n in range(7):
        write(folder, f".GIT/f{n}")
    result = run(script("context-file-tree"), "--repo", str(folder))
    assert result.returncode == 0, result.stderr
    named = ", ".join(f".GIT/f{n} (a name git refuses, untracked)" for n in range(5))
    assert f"(left out of the scratch commit: {named}, 2 more)\n" in result.stdout


def test_an_empty_folder_and_a_named_pipe(tmp_path: Path) -> None:
    """An empty folder is a scratch copy with an empty commit; a named pipe is not copied
    (it would block whoever reads it) and the note says so."""
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run(script("context-git-status"), "--repo", str(empty))
    assert result.returncode == 0, result.stderr
    assert "Working tree clean" in result.stdout
    piped = tmp_path / "piped"
    write(piped, "a.txt")
    os.mkfifo(piped / "pipe")
    for argv in (
        [script("context-file-tree"), "--repo", str(piped)],
        [script("context-providers"), "preview", str(piped)],
    ):
        result = run(*argv)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        assert "(left out of the scratch commit: pipe (not copied: a named pipe))\n" in (
            result.stdout
        )


@pytest.mark.parametrize(
    "argv", [[c, "--repo"] for c in COMMANDS] + [["context-providers", "preview"]]
)
def test_a_copy_git_cannot_make_is_one_classified_line(argv: list[str], tmp_path: Path) -> None:
    """context-conformance.md, "Error taxonomy": no git on PATH, so no scratch copy; the
    command says so in one line naming the category (source_unavailable), exit 2."""
    folder = tmp_path / "folder"
    nested_without_commits(folder)
    no_git = tmp_path / "bin"
    no_git.mkdir()
    result = run(script(argv[0]), *argv[1:], str(folder), env={**os.environ, "PATH": str(no_git)})
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    line = f"error: source_unavailable: cannot make a scratch git copy of {folder}: "
    assert result.stderr.startswith(line), result.stderr
    assert result.stderr.count("\n") == 1
