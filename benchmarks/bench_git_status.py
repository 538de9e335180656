"""Issue 3's numbers: the git status provider on generated repos of 1k, 10k, 100k files.

In one run, per size: the floors (`git status --porcelain=v2 --branch` itself and a
bare gRPC round trip), a cold Contribute (first on a fresh process), a warm one
(nothing changed) and one after a single file changed, each as a ratio.

The repository is not clean when it is measured: a staged edit, two unstaged
ones and an untracked folder of 300 files, the state an agent's turn usually
sees, so the figures include what a change costs (line counts, the untracked
folder's file count), not only `git status` (issue 24 item 9).

    python benchmarks/bench_git_status.py [--sizes 1000 10000 100000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.floor import BarePlugin, median_seconds, row
from benchmarks.provider_process import TimedProvider, cold_contribute
from benchmarks.repos import generate, git, time_command

WATCH_SETTLE_S = 0.3  # the watcher reports a change within ~50 ms; give it room


UNTRACKED_FILES = 300


def work_in_progress(repo: Path) -> None:
    """Edits staged and not, and an untracked folder: what a turn mid-task sees."""
    edited = sorted((repo / "src").rglob("f1.py"))[:3]
    for number, path in enumerate(edited):
        path.write_text(path.read_text() + "".join(f"line {i}\n" for i in range(10 + number)))
    git(repo, "add", "--", str(edited[0].relative_to(repo)))
    generated = repo / "gen"
    generated.mkdir()
    for i in range(UNTRACKED_FILES):
        (generated / f"g{i}.py").write_text(f"# generated {i}\n")


def bench_size(files: int, bare: BarePlugin, scratch: Path, turns: int) -> None:
    repo = generate(scratch / f"repo{files}", files)
    work_in_progress(repo)
    status = ["status", "--porcelain=v2", "--branch"]
    status_floor = time_command(repo, status)
    rt = median_seconds(bare.round_trip, 200)
    cold, cold_floor = cold_contribute(
        "git-status", repo, 2000, lambda: time_command(repo, status, repeat=3) + rt
    )
    provider = TimedProvider("git-status")
    try:
        request = provider.request(repo, 2000)
        provider.contribute(request)
        ready = provider.settle(request, rt)
        warm = median_seconds(lambda: provider.contribute(request), turns)
        _, reply = provider.contribute(request)
        same_bytes = median_seconds(bare.same_bytes_round_trip(request, reply), turns)
        changed_samples = []
        target = next((repo / "src").rglob("f0.py"))
        for i in range(5):
            target.write_text(f"# edit {i}\n")
            time.sleep(WATCH_SETTLE_S)
            took, reply = provider.contribute(request)
            changed_samples.append(took)
            assert "f0.py" in reply.sections[-1].content[0].text.text
        changed = statistics.median(changed_samples)
    finally:
        provider.close()
    ms = 1000.0
    floor_cold = cold_floor * ms
    print(f"-- {files:,} tracked files (1 staged, 2 unstaged, {UNTRACKED_FILES} untracked in gen/)")
    print(row("git status --porcelain=v2 --branch", status_floor * ms, status_floor * ms))
    print(row("cold Contribute vs git status + round trip", cold * ms, floor_cold, 1.3))
    print(f"{'turns recompute until the watcher is in place':<42} {ready:9.1f} s")
    print(row("warm Contribute (nothing changed) vs round trip", warm * ms, rt * ms, 2.0))
    print(row("same, vs a no-op carrying its bytes", warm * ms, same_bytes * ms))
    print(row("one file changed vs cold Contribute", changed * ms, cold * ms, 1.3))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-git-"))
    bare = BarePlugin()
    try:
        for files in args.sizes:
            bench_size(files, bare, scratch, args.turns)
    finally:
        bare.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
