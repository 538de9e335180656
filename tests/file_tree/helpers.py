"""Helpers for the file tree tests: real git, generated trees, requests, fed watchers."""

from __future__ import annotations

import os
import random
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


def write(root: Path, rel: str, text: str = "x\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


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


def mined(miner: HistoryMiner, timeout: float = 10.0) -> None:
    """Until the first mining has finished: its ``version`` moves on once the history is in
    place (mining runs in a thread of its own, after an answer was sent)."""
    deadline = time.monotonic() + timeout
    while miner.version == 0:
        assert time.monotonic() < deadline, "the history was never mined"
        time.sleep(0.02)


def full_listings(runner: CountingRunner, *, in_git: bool = True) -> int:
    """Full listings run, as git sees them: in a repository only they walk the work tree
    for untracked files (``ls-files --others``); elsewhere each walk asks git once where
    its global excludes file is (``config``), and nothing else runs git."""
    if in_git:
        return sum(c.startswith("ls-files -z --others") for c in runner.calls)
    return sum(c.split()[0] == "config" for c in runner.calls)


# Generated trees -----------------------------------------------------------------

NAMES = (
    "a", "b", "build", "gen", "doc", "sub", "tmp", "z", "x.py", "y.log", "keep.log",
    "a.o", "important.o", "root_only.txt", "a.txt", "d.md", "#hash", "name ", "sp ace.txt",
    "ünï.txt", "c.txt", "deep", "[x]", "node_modules", "out",
)  # fmt: skip
PATTERNS = (
    "*.log", "!keep.log", "build/", "/root_only.txt", "tmp", "**/gen/*.py", "a/**/z", "*.o",
    "!important.o", "doc/*.md", "[abc].txt", "\\#hash", "name\\ ", "sub/", "!sub/", "deep/*",
    "!deep/x.py", "node_modules", "out/", "!out/keep.log", "*.txt", "!ünï.txt", "/a", "z/",
    "# comment", "", "\\[x\\]", "**/b", "x.py  ", "!*.py", "sub/**", "!sub/**/a.txt",
    "**/z/**", "?.o", "[!a].txt", "*/", "!*/", "/*", "!/b", "gen/", "!gen/*.py", "*.t?t",
    "doc/**/*.md", "\\!x", "a/b/", "**/tmp/", "z/*/", "[a-c]", "**",
)  # fmt: skip


def generate_tree(root: Path, seed: int, *, gitignores: bool = True) -> None:
    """A random tree of files and directories with ``.gitignore`` files sprinkled in."""
    rng = random.Random(seed)

    def fill(directory: Path, depth: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        if gitignores and rng.random() < 0.6:
            lines = rng.sample(PATTERNS, rng.randint(1, 5))
            (directory / ".gitignore").write_text("\n".join(lines) + "\n")
        for name in rng.sample(NAMES, rng.randint(3, 9)):
            if depth < 4 and rng.random() < 0.5 and "." not in name:
                fill(directory / name, depth + 1)
            elif not (directory / name).exists():
                (directory / name).write_text(name)

    fill(root, 0)


def random_patterns(seed: int, count: int) -> str:
    rng = random.Random(seed * 7919 + 1)
    return "\n".join(rng.sample(PATTERNS, count)) + "\n"
