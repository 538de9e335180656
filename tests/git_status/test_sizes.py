"""How big each change is: untracked folders' files (issue 24 item 7) and line counts
(item 8), on real repositories, with git's own answers as the reference.

Item 7: "Untracked directories carry counts in the default `normal` mode (`gen/ (1,500
files)`) ... cheaply and boundedly ... cap the count and say `(5,000+ files)` past a cap".
Item 8: "Line counts for changed files when they fit (`modified: src/api/routes.py (+40
-3)`), from `git diff --numstat` for the index (`--cached`) and the work tree, bounded
..., never for binary files, never running a configured diff program ... Line counts
drop before entries do when the budget is tight."
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from providers.git_status.folders import count_files
from providers.git_status.git import Git
from providers.git_status.numstat import MAX_FILE_BYTES, MAX_FILES, LineCounts, parse_numstat
from providers.git_status.porcelain import Branch, Entry, EntryKind, Status, parse
from providers.git_status.provider import GitStatusProvider
from providers.git_status.sizes import FOLDER_CAP
from providers.repository.ignore import IgnoreRules
from tests.git_status.repos import (
    collect,
    commit_file,
    counting_git,
    git,
    git_bytes,
    porcelain,
    runs,
    text_of,
    write_script,
)

Make = Callable[..., GitStatusProvider]
NO_WATCH = {"watch": False}


def files(folder: Path, count: int, suffix: str = ".py") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"f{i}{suffix}").write_text(f"{i}\n")


def git_count(repo: Path, folder: str) -> int:
    """What git itself lists in ``folder`` (the reference for our walk)."""
    listed = git_bytes(repo, "ls-files", "--others", "--exclude-standard", "-z", "--", folder)
    return len([p for p in listed.split(b"\0") if p])


def test_untracked_folders_carry_their_file_count(make_provider: Make, repo: Path) -> None:
    """Item 7: `gen/ (1,500 files)` in `normal` mode, ignored files not counted (as git)."""
    files(repo / "gen", 1500)
    files(repo / "gen" / "cache", 30, ".log")
    files(repo / "gen" / "deep" / "er", 12)
    (repo / "gen" / ".gitignore").write_text("*.log\n")
    (repo / ".gitignore").write_text("/build/\n")
    files(repo / "docs", 1, ".md")
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert git_count(repo, "gen/") == 1513  # 1,500 + 12 + its .gitignore
    assert "  gen/ (1,513 files)\n" in body
    assert "  docs/ (1 file)\n" in body
    assert "  .gitignore\n" in body  # a file: no count


def test_a_folder_past_the_cap_says_so(make_provider: Make, repo: Path) -> None:
    """Item 7: the walk stops past the cap, and the line says `(5,000+ files)`."""
    files(repo / "node_stuff", FOLDER_CAP + 1)
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert f"  node_stuff/ ({FOLDER_CAP:,}+ files)\n" in body


def test_counting_stops_after_the_total(repo: Path) -> None:
    """Item 7, bounded: once the total is spent, later folders get no count rather than
    a wrong one; a repository inside gets none (git shows it as a folder too)."""
    for name, count in (("a", 3), ("b", 4), ("c", 5), ("d", 1)):
        files(repo / name, count)
    git(repo / "d", "init", "-q")
    rules = IgnoreRules(repo)
    assert count_files(repo, ["a/", "b/", "c/", "d/"], rules, total=10) == (("a/", 3), ("b/", 4))
    assert count_files(repo, ["a/", "b/", "c/", "d/"], rules, cap=3) == (
        ("a/", 3),
        ("b/", 4),  # more than the cap of 3: shown as "3+"
        ("c/", 4),
    )


def test_all_mode_lists_files_and_counts_no_folder(make_provider: Make, repo: Path) -> None:
    """Item 7 concerns `normal` mode: in `all`, each file is its own line."""
    files(repo / "gen", 3)
    body = text_of(collect(make_provider({**NO_WATCH, "untracked": "all"}), repo))
    assert "  gen/f0.py\n" in body and "files)" not in body


def lines(count: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(count))


def git_numstat(repo: Path, *args: str) -> dict[str, str]:
    out = git_bytes(repo, "diff", "--numstat", "-z", "--no-ext-diff", "--no-textconv", *args)
    return {path: f"+{a} -{d}" for path, a, d in parse_numstat(out)}


def test_line_counts_for_the_index_and_the_work_tree(make_provider: Make, repo: Path) -> None:
    """Item 8: `modified: src/api/routes.py (+40 -3)`; the index and the work tree apart;
    a rename's counts on its new name; a zero side left out; a binary file without."""
    commit_file(repo, "src/api/routes.py", lines(20))
    commit_file(repo, "src/api/models.py", lines(5))
    commit_file(repo, "old name.py", lines(30))
    commit_file(repo, "gone.txt", lines(7))
    commit_file(repo, "logo.png", "\0\1\2")
    routes = repo / "src/api/routes.py"
    routes.write_text(lines(17) + lines(40, "new"))  # 3 of the last lines go, 40 come
    (repo / "src/api/models.py").write_text(lines(6))
    git(repo, "add", "src/api/models.py")
    (repo / "src/api/models.py").write_text(lines(6) + "more\n")
    git(repo, "mv", "old name.py", "ünï name.py")
    (repo / "ünï name.py").write_text(lines(30) + "x\n")
    git(repo, "add", "ünï name.py")
    (repo / "gone.txt").unlink()
    (repo / "logo.png").write_bytes(b"\0\3\4")
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert "  modified: src/api/routes.py (+40 -3)\n" in body
    assert git_numstat(repo)["src/api/routes.py"] == "+40 -3"
    assert "Staged:\n  modified: src/api/models.py (+1)\n" in body
    assert "  modified: src/api/models.py (+1)\n  modified: src/api/routes.py" in body
    assert "  renamed: old name.py -> ünï name.py (+1)\n" in body
    assert "  deleted: gone.txt (-7)\n" in body
    assert "  modified: logo.png\n" in body  # binary: git says "-\t-"


def test_early_or_late_the_counts_are_the_same(repo: Path) -> None:
    """Item 9 without cost to item 8: measured alongside status (every file, then what
    status names kept), the counts are exactly those of runs limited to those files."""
    commit_file(repo, "a.py", lines(10))
    commit_file(repo, "b.py", lines(40))
    commit_file(repo, "big.txt", "x\n")
    commit_file(repo, "huge.txt", "x\n")
    (repo / "a.py").write_text(lines(12))
    git(repo, "mv", "b.py", "c.py")
    (repo / "c.py").write_text(lines(39))
    (repo / "huge.txt").write_text("y\n" * (MAX_FILE_BYTES // 2 + 1))  # past the cap
    git(repo, "add", "-A")
    (repo / "a.py").write_text(lines(3))
    (repo / "big.txt").write_text("y\n" * (MAX_FILE_BYTES // 2 + 1))
    status = parse(porcelain(repo))
    found = []
    for early in (True, False):
        counting = LineCounts(
            Git("git"), repo, index=early, work_tree=() if early else None, lfs_off=False
        )
        deadline = time.monotonic() + 10
        while counting.running() and time.monotonic() < deadline:  # as if status took long
            time.sleep(0.01)
        counting.status_is(status, lfs_off=False)
        found.append(counting.result())
    assert (
        found[0]
        == found[1]
        == (
            (("a.py", 2, 0), ("c.py", 0, 1)),
            (("a.py", 0, 9),),
        )
    )


def test_counts_are_kept_while_nothing_changes(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    """Item 9: a turn runs `git diff` only for what changed since the last one: the index's
    counts while the index file is as it was, a file's while it is (a stat tells)."""
    commit_file(repo, "a.py", lines(10))
    commit_file(repo, "b.py", lines(10))
    (repo / "b.py").write_text(lines(12))
    git(repo, "add", "b.py")
    (repo / "a.py").write_text(lines(11))
    hour_ago = time.time() - 3600  # older than any clock's tick: the stat can be trusted
    os.utime(repo / "a.py", (hour_ago, hour_ago))
    wrapper, log = counting_git(tmp_path)
    provider = make_provider({**NO_WATCH, "git": str(wrapper)})
    first = text_of(collect(provider, repo))
    assert "  modified: a.py (+1)\n" in first and "  modified: b.py (+2)\n" in first
    before = len(runs(log))
    assert text_of(collect(provider, repo)) == first
    assert not [run for run in runs(log)[before:] if is_diff(run)]  # status alone

    (repo / "a.py").write_text(lines(14))
    os.utime(repo / "a.py", (hour_ago + 1, hour_ago + 1))
    before = len(runs(log))
    assert "  modified: a.py (+4)\n" in text_of(collect(provider, repo))
    # Only a.py is counted again (alongside status, or after it if that was slower).
    assert {run.split(" -- ")[-1] for run in runs(log)[before:] if is_diff(run)} == {"a.py"}


def test_a_failed_count_costs_only_that_turns_counts(
    make_provider: Make, tmp_path: Path, repo: Path
) -> None:
    """Item 8: a `git diff` that fails leaves its lines without counts, the section intact,
    and is not remembered: the next turn counts again."""
    commit_file(repo, "a.py", lines(10))
    (repo / "a.py").write_text(lines(11))
    hour_ago = time.time() - 3600
    os.utime(repo / "a.py", (hour_ago, hour_ago))
    broken = tmp_path / "broken"
    broken.touch()
    real = git(tmp_path, "--exec-path").strip() + "/git"
    wrapper = write_script(
        tmp_path / "flaky-git",
        f'case " $* " in *" diff-files "*) [ -e "{broken}" ] && exit 128;; esac\n'
        f'exec "{real}" "$@"\n',
    )
    provider = make_provider({**NO_WATCH, "git": str(wrapper)})
    assert "  modified: a.py\n" in text_of(collect(provider, repo))
    broken.unlink()
    assert "  modified: a.py (+1)\n" in text_of(collect(provider, repo))


def test_no_configured_diff_program_runs(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    """Item 8: `--no-ext-diff --no-textconv`: the repository's diff.external and textconv
    programs never run, and the counts are of the files as they are."""
    marker = tmp_path / "ran"
    program = write_script(tmp_path / "program", f'touch "{marker}"\necho fake\n')
    git(repo, "config", "diff.external", str(program))
    git(repo, "config", "diff.fake.textconv", str(program))
    (repo / ".gitattributes").write_text("*.txt diff=fake\n")
    commit_file(repo, "notes.txt", lines(3))
    (repo / "notes.txt").write_text(lines(5))
    git(repo, "add", "notes.txt")
    (repo / "notes.txt").write_text(lines(6))
    body = text_of(collect(make_provider(NO_WATCH), repo))
    assert "Staged:\n  modified: notes.txt (+2)\n" in body
    assert "Unstaged:\n  modified: notes.txt (+1)\n" in body
    assert not marker.exists()
    git(repo, "diff")  # the trap is real: a plain `git diff` runs the program
    assert marker.exists()


def is_diff(run: str) -> bool:
    return re.search(r" diff(-files)? ", f" {run} ") is not None


def test_line_counts_never_write_the_index(repo: Path) -> None:
    """Item 8 (and "never writes to the repository"): files whose stat changed but not their
    content (as when one is edited back between status and the counts) make `git diff`
    rewrite the index, `--no-optional-locks` or not; the work tree's counts come from
    `git diff-files`, which never does."""
    for name in ("a", "b", "c"):
        commit_file(repo, name, f"{name}\n")
    index = repo / ".git" / "index"
    for name in ("a", "b"):
        os.utime(repo / name, (1_000_000, 1_000_000))  # its stat, not its content, changed
    (repo / "c").write_text("changed\n")
    before = index.stat().st_mtime_ns
    unstaged = tuple(Entry(EntryKind.ORDINARY, name, ".", "M") for name in ("a", "b", "c"))
    status = Status(Branch(), 0, unstaged)
    counting = LineCounts(Git("git"), repo, index=False, work_tree=None, lfs_off=False)
    counting.status_is(status, lfs_off=False)
    assert counting.result() == ((), (("c", 1, 1),))
    assert index.stat().st_mtime_ns == before
    git(repo, "--no-optional-locks", "diff", "--numstat", "--", "a", "b", "c")
    assert index.stat().st_mtime_ns != before  # what `git diff` would have done


def test_line_counts_are_bounded(make_provider: Make, tmp_path: Path, repo: Path) -> None:
    """Item 8: a file past the size cap gets no count (the others do); past the file cap,
    the index's early run is stopped, none runs for those files, and the next snapshot
    does not start one early."""
    commit_file(repo, "big.txt", "x\n")
    commit_file(repo, "small.txt", "x\n")
    (repo / "big.txt").write_text("y\n" * (MAX_FILE_BYTES // 2 + 1))
    (repo / "small.txt").write_text("y\n")
    wrapper, log = counting_git(tmp_path)
    body = text_of(collect(make_provider({**NO_WATCH, "git": str(wrapper)}), repo))
    assert "  modified: big.txt\n" in body
    assert "  modified: small.txt (+1 -1)\n" in body
    work_tree = [run for run in runs(log) if " diff-files " in run]
    assert len(work_tree) == 1 and "big.txt" not in work_tree[0]

    for i in range(MAX_FILES + 1):
        (repo / f"many{i}.txt").write_text("x\n")
    git(repo, "add", "-A")
    before = len(runs(log))
    provider = make_provider({**NO_WATCH, "git": str(wrapper), "max_entries": 1000})
    body = text_of(collect(provider, repo, 20_000))
    assert "  added: many0.txt\n" in body and "  modified: small.txt\n" in body  # no counts
    assert not [run for run in runs(log)[before:] if is_diff(run) and "many0.txt" in run]
    before = len(runs(log))
    collect(provider, repo, 20_000)
    assert not [run for run in runs(log)[before:] if " --cached " in run]


def test_line_counts_drop_before_entries_do(make_provider: Make, repo: Path) -> None:
    """Item 8: at every budget, counts show only when every list is shown in full; and
    somewhere the entries are all there without them."""
    for i in range(12):
        commit_file(repo, f"src/m{i}.py", lines(10))
        (repo / f"src/m{i}.py").write_text(lines(11 + i))
    provider = make_provider(NO_WATCH)
    without = 0
    for budget in range(40, 400, 4):
        body = text_of(collect(provider, repo, budget))
        counted = re.search(r"\(\+\d+", body) is not None
        full = body.count("  modified: src/m") == 12
        if counted:
            assert full and "(by directory)" not in body and "only counted" not in body
        elif full:
            without += 1
            assert "line counts left out" in body
    assert without
