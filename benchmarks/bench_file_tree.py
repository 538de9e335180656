"""Issue 4's numbers: the file tree provider on generated repos of 1k to 300k files.

In one run, per size: the floors (`git ls-files -co --exclude-standard` and a bare
gRPC round trip), cold Contribute (first on a fresh process) with no history kept (it
mines the newest commits first) and with the history an earlier session kept, a turn
shortly after the first answer (while the rest of the history is mined), warm (nothing
changed), one file added, staged and committed (each edits the listing in place: issue
33 item 1), and the plugin's RSS against the bare plugin plus the listing's own size.
Each repository has HISTORY commits of 1 to 3 files on top of the one that added every
file.

    python benchmarks/bench_file_tree.py [--sizes 1000 10000 100000 300000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.floor import BarePlugin, median_seconds, row, rss_kib
from benchmarks.provider_process import TimedProvider, cold_contribute
from benchmarks.repos import GIT_ENV, add_history, generate, time_command

WATCH_SETTLE_S = 0.3
LS_FILES = ["ls-files", "-co", "--exclude-standard"]
HISTORY = 600
"""Commits after the first: more than a first answer mines without a kept history."""
AFTER_FIRST_S = 0.1
"""How long after the first answer the next turn comes (issue 24 item 3: background
work started by the first answer, such as history mining, must not hold it up)."""


def turn_after_first_answer(
    repo: Path,
    budget: int,
    scratch: Path,
    *,
    watch: bool = True,
    kept: Path | None = None,
    launches: int = 3,
) -> float:
    """Median time of the turn ``AFTER_FIRST_S`` after a fresh process's first answer, with
    another file touched (so it is computed, not the cached answer). Each process has an
    empty history cache of its own (the history is mined after the first answer), or
    ``kept``, a cache holding it (nothing is mined). ``watch`` False leaves out the
    watcher's set-up, so what remains is the history and the deleted-file search."""
    samples = []
    for _ in range(launches):
        cache = kept if kept is not None else Path(tempfile.mkdtemp(dir=scratch))
        provider = TimedProvider("file-tree", {"watch": watch}, env={"XDG_CACHE_HOME": str(cache)})
        try:
            provider.contribute(provider.request(repo, budget, ["src/d0/f0.py"]))
            time.sleep(AFTER_FIRST_S)
            took, _ = provider.contribute(provider.request(repo, budget, ["src/d0/f1.py"]))
        finally:
            provider.close()
        samples.append(took)
    return statistics.median(samples)


def kept_history(repo: Path, cache: Path, limit: float = 120.0) -> None:
    """A session that answers once and stays until its history is kept in ``cache``."""
    provider = TimedProvider("file-tree", env={"XDG_CACHE_HOME": str(cache)})
    try:
        provider.contribute(provider.request(repo, 2000))
        started = time.perf_counter()
        while not list(cache.glob("context-providers/file-tree-history/*.hist")):
            if time.perf_counter() - started > limit:
                raise SystemExit("the history was never kept")
            time.sleep(0.1)
    finally:
        provider.close()


def bench_size(files: int, bare: BarePlugin, scratch: Path, turns: int) -> None:
    repo = generate(scratch / f"repo{files}", files)
    add_history(repo, HISTORY)
    ls_floor = time_command(repo, LS_FILES)
    listing_bytes = len(
        subprocess.run(
            ["git", "-C", str(repo), *LS_FILES, "-z"], capture_output=True, check=True, env=GIT_ENV
        ).stdout
    )
    rt = median_seconds(bare.round_trip, 200)
    bare.round_trip()
    bare_rss = rss_kib(bare.process.pid)
    fresh = iter(range(1000))

    def empty_cache() -> dict[str, str]:
        return {"XDG_CACHE_HOME": str(scratch / f"empty-{next(fresh)}")}

    def ls_and_rt() -> float:
        return time_command(repo, LS_FILES, repeat=3) + rt

    cold, cold_floor = cold_contribute("file-tree", repo, 2000, ls_and_rt, env=empty_cache)
    kept = scratch / f"kept-{files}"
    kept_history(repo, kept)
    cold_kept, kept_floor = cold_contribute(
        "file-tree", repo, 2000, ls_and_rt, env=lambda: {"XDG_CACHE_HOME": str(kept)}
    )
    after_first = turn_after_first_answer(repo, 2000, scratch)
    after_first_unwatched = turn_after_first_answer(repo, 2000, scratch, watch=False)
    after_first_kept = turn_after_first_answer(repo, 2000, scratch, watch=False, kept=kept)
    provider = TimedProvider("file-tree", env=empty_cache())
    try:
        request = provider.request(repo, 2000, ["src/d0/f0.py"])
        provider.contribute(request)
        ready = provider.settle(request, rt)
        warm = median_seconds(lambda: provider.contribute(request), turns)
        # Another file touched each turn: computed, not the cached answer; the floor of
        # the turn right after the first answer.
        others = [provider.request(repo, 2000, [f"src/d0/f{i}.py"]) for i in (1, 0)]
        computed = statistics.median(provider.contribute(others[i % 2])[0] for i in range(20))
        added_samples = []
        for i in range(5):
            (repo / "src" / "d0" / f"added{i}.py").write_text("# new\n")
            time.sleep(WATCH_SETTLE_S)
            took, reply = provider.contribute(request)
            added_samples.append(took)
            assert f"added{i}.py" in reply.sections[-1].content[0].text.text
        added = statistics.median(added_samples)
        ours_rss = rss_kib(provider.plugin.process.pid)
        staged_samples = []
        for i in range(3):  # the index changes (the agent stages a file): edited in place
            subprocess.run(
                ["git", "-C", str(repo), "add", f"src/d0/added{i}.py"], check=True, env=GIT_ENV
            )
            time.sleep(WATCH_SETTLE_S)
            staged_samples.append(provider.contribute(request)[0])
        staged = statistics.median(staged_samples)
        committed_samples = []
        for i in range(3):  # a commit: the index changes, the tracked files do not
            (repo / "src" / "d0" / f"added{i}.py").write_text(f"# edited {i}\n")
            subprocess.run(
                ["git", "-C", str(repo), "commit", "-qam", f"c{i}"], check=True, env=GIT_ENV
            )
            time.sleep(WATCH_SETTLE_S)
            committed_samples.append(provider.contribute(request)[0])
        committed = statistics.median(committed_samples)
        relisted_rss = rss_kib(provider.plugin.process.pid)
    finally:
        provider.close()
    ms = 1000.0
    print(f"-- {files:,} files (listing {listing_bytes / 1024:.0f} KiB)")
    print(row("git ls-files -co --exclude-standard", ls_floor * ms, ls_floor * ms))
    print(row("cold Contribute vs ls-files + round trip", cold * ms, cold_floor * ms, 1.5))
    print(row("same, history kept vs ls-files + round trip", cold_kept * ms, kept_floor * ms, 1.5))
    print(row("another file touched (settled) vs round trip", computed * ms, rt * ms))
    print(row(f"same, {AFTER_FIRST_S:g} s after the first answer", after_first * ms, computed * ms))
    print(row("same, watch = false", after_first_unwatched * ms, computed * ms))
    print(row("same, watch = false, history kept", after_first_kept * ms, computed * ms))
    print(f"{'turns recompute until the watcher is in place':<42} {ready:9.1f} s")
    print(row("warm Contribute (nothing changed) vs round trip", warm * ms, rt * ms, 2.0))
    print(row("one file added vs cold Contribute", added * ms, cold * ms, 0.1))
    print(row("new file staged (in place) vs cold", staged * ms, cold * ms, 0.1))
    print(row("commit (one read of the index) vs cold", committed * ms, cold * ms, 0.1))
    floor_kib = bare_rss + listing_bytes / 1024
    for name, rss in (
        ("RSS vs bare plugin + listing size", ours_rss),
        ("RSS after 3 re-lists and 3 commits", relisted_rss),
    ):
        verdict = "ok" if rss <= 1.5 * floor_kib else "OVER 1.5x"
        print(
            f"{name:<42} {rss / 1024:9.1f} MiB  floor "
            f"{floor_kib / 1024:9.1f} MiB  {rss / floor_kib:5.2f}x  {verdict}"
        )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000, 300_000])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-tree-"))
    bare = BarePlugin()
    try:
        for files in args.sizes:
            bench_size(files, bare, scratch, args.turns)
            shutil.rmtree(scratch / f"repo{files}", ignore_errors=True)
    finally:
        bare.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
