"""Generated repositories for the benchmarks: N tracked files in a realistic spread of
directories, committed once, plus helpers to time git itself (the floor)."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@localhost",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        [
            "git",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "gc.auto=0",  # no background gc under the timings
            "-C",
            str(repo),
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
        env=GIT_ENV,
    ).stdout


def generate(root: Path, files: int, *, per_dir: int = 20, fanout: int = 8) -> Path:
    """``files`` small files, ``per_dir`` per directory, directories nested ``fanout`` wide."""
    root.mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    made = 0
    directory = 0
    while made < files:
        parts = []
        n = directory
        while True:
            parts.append(f"d{n % fanout}")
            n //= fanout
            if n == 0:
                break
        folder = root.joinpath("src", *reversed(parts))
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(min(per_dir, files - made)):
            (folder / f"f{i}.py").write_text(f"# file {made}\n")
            made += 1
        directory += 1
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")
    return root


def add_history(root: Path, commits: int, *, seed: int = 0) -> None:
    """``commits`` commits on top of HEAD, each changing 1 to 3 of the files ``generate``
    made (through ``git fast-import``: no index is written per commit), newest last; the
    work tree follows."""
    rng = random.Random(seed)
    files = git(root, "ls-files", "src").split("\n")[:-1]
    parent = git(root, "rev-parse", "HEAD").strip()
    stream = []
    for i in range(commits):
        changed = rng.sample(files, rng.randint(1, 3))
        stream.append(
            f"commit refs/heads/main\ncommitter bench <bench@localhost> {1_700_000_000 + i} "
            "+0000\ndata 6\nchange\n"
            + (f"from {parent}\n" if i == 0 else "")
            + "".join(f"M 100644 inline {path}\ndata 9\n# edit {i % 10}\n\n" for path in changed)
        )
    subprocess.run(
        ["git", "-C", str(root), "fast-import", "--quiet"],
        input="".join(stream).encode(),
        check=True,
        env=GIT_ENV,
    )
    git(root, "reset", "-q", "--hard")


def time_command(repo: Path, args: list[str], repeat: int = 5) -> float:
    """Median wall time of a git command in ``repo`` (seconds), after one untimed run
    (the first after a repository is written pays for cold caches)."""
    samples = []
    for run in range(repeat + 1):
        started = time.perf_counter()
        subprocess.run(
            ["git", "-C", str(repo), *args], check=True, stdout=subprocess.DEVNULL, env=GIT_ENV
        )
        if run:
            samples.append(time.perf_counter() - started)
    samples.sort()
    return samples[len(samples) // 2]
