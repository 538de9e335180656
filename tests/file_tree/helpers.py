"""Helpers for the file tree tests: real git, generated trees, requests, fed watchers."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, Contribution, ModelTarget
from providers.file_tree.miner import HistoryMiner
from providers.repository.gitexec import GitRunner, Running


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """The real git (test environment), raw stdout; fails the test on error."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"git {args} failed: {done.stderr.decode(errors='replace')}")
    return done.stdout


def init_repo(path: Path, *, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if commit:
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    return path


def git_listing(repo: Path) -> set[str]:
    """What ``git ls-files -co --exclude-standard`` shows, minus deleted tracked files."""
    listed = set(os.fsdecode(git(repo, "ls-files", "-z", "-co", "--exclude-standard")).split("\0"))
    deleted = set(os.fsdecode(git(repo, "ls-files", "-z", "--deleted")).split("\0"))
    return (listed - deleted) - {""}


def request(
    working_directory: Path, budget: int = 1000, touched: Sequence[str] = ()
) -> ContextRequest:
    return ContextRequest(
        token_budget=budget,
        working_directory=str(working_directory),
        model_target=ModelTarget("test-model"),
        files_touched=tuple(touched),
    )


def text_of(contribution: Contribution) -> str:
    assert len(contribution.sections) == 1, contribution
    return contribution.sections[0].text


def collect(provider: Any, wd: Path, budget: int = 1000, touched: Sequence[str] = ()) -> str:
    return text_of(contribute(provider, request(wd, budget, touched), FallbackCounter()))


class CountingRunner(GitRunner):
    """The real git runner, counting the commands it runs."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def start(self, cwd: Path, args: Sequence[str], **kwargs: Any) -> Running:
        self.calls.append(" ".join(args))
        return super().start(cwd, args, **kwargs)


def mined(miner: HistoryMiner, commits: int = 1, timeout: float = 20.0) -> None:
    """Until the history holds ``commits`` commits or more (mining runs in a thread of its
    own: a first part with the first listing, the rest once an answer was sent)."""
    deadline = time.monotonic() + timeout
    while miner.history is None or len(miner.history.commits) < commits:
        assert time.monotonic() < deadline, "the history was never mined"
        time.sleep(0.02)


def add_commits(repo: Path, count: int, path: str = "src/f{}.py", *, files: int = 7) -> None:
    """``count`` commits on the current branch, the i-th changing ``path.format(i % files)``
    (through ``git fast-import``: hundreds of commits in a blink); the work tree follows."""
    import_commits(repo, [[path.format(i % files)] for i in range(count)])


def import_commits(repo: Path, commits: Sequence[Sequence[str]]) -> None:
    """One commit per item on the current branch, changing the paths it lists (through
    ``git fast-import``); the work tree follows."""
    branch = git(repo, "symbolic-ref", "HEAD").decode().strip()
    parent = git(repo, "rev-parse", "HEAD").decode().strip()
    stream = []
    for i, paths in enumerate(commits):
        content = f"change {i}\n"
        stream.append(
            f"commit {branch}\ncommitter t <t@t> {1_700_000_000 + i} +0000\ndata 2\nc\n"
            + (f"from {parent}\n" if i == 0 else "")
            + "".join(f"M 100644 inline {p}\ndata {len(content)}\n{content}\n" for p in paths)
        )
    git(repo, "fast-import", "--quiet", stdin="".join(stream).encode())
    git(repo, "reset", "-q", "--hard")


def history_runs(calls: Sequence[str]) -> list[str]:
    """The git runs that mine history (``log``, ``merge-base``)."""
    return [c for c in calls if c.split()[0] in ("log", "merge-base")]


def listing_runs(calls: Sequence[str]) -> list[str]:
    """The git runs other than the history's (which run in their own thread)."""
    return [c for c in calls if c.split()[0] not in ("log", "merge-base")]


def full_listings(runner: CountingRunner, *, in_git: bool = True) -> int:
    """Full listings run, as git sees them: in a repository only they walk the work tree
    for untracked files (``ls-files --others``); elsewhere each walk asks git once where
    its global excludes file is (``config``), and nothing else runs git."""
    if in_git:
        return sum(c.startswith("ls-files -z --others") for c in runner.calls)
    return sum(c.split()[0] == "config" for c in runner.calls)


def shown_paths(text: str) -> set[str]:
    """The entries a section's text shows, as paths (directories end with ``/``); a folded
    chain (``a/b/c.py``) shows each of its directories too."""
    stack: list[str] = []
    shown: set[str] = set()
    for line in text.splitlines()[1:-1]:
        depth = (len(line) - len(line.lstrip(" "))) // 2
        entry = line.strip()
        if entry.startswith("... "):
            continue
        name = entry.split(" (")[0]
        del stack[depth - 1 :]
        base = "".join(stack)
        parts = name.rstrip("/").split("/")
        for i in range(1, len(parts)):
            shown.add(base + "/".join(parts[:i]) + "/")
        path = base + name
        shown.add(path)
        if name.endswith("/"):
            stack.append(name)
    return shown
