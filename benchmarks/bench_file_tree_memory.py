"""Why the file tree packs its paths and tunes the allocator: RSS of the ways it could hold them.

In one run, on one generated repository, each variant lists it four times in
a fresh child process (as a re-list does: the previous listing is dropped
first) and reports the memory held above the child's own start-up, after the
first listing and after the fourth:

- ``packed + tuned``: what the provider does (``PackedPaths`` blocks, glibc's
  mmap threshold fixed for large blocks, the heap trimmed after a listing);
- ``packed, untuned``: the same without the allocator settings;
- ``list of str + tuned``: the paths kept as a sorted ``list[str]``.

The floor is the listing's own size (``git ls-files -z`` bytes). Results are
kept in ``benchmarks/results/file_tree_memory.md``.

    python benchmarks/bench_file_tree_memory.py [--files 300000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.floor import rss_kib
from benchmarks.repos import GIT_ENV, generate

VARIANTS = ("packed + tuned", "packed, untuned", "list of str + tuned")
LISTINGS = 4


def child(variant: str, repo: Path) -> dict[str, int]:
    """Runs in the child process: list ``repo`` ``LISTINGS`` times the ``variant`` way."""
    import os

    from providers.file_tree import git_tree, memory
    from providers.file_tree.listing import ListingOptions, list_tree
    from providers.repository.gitexec import GitRunner
    from providers.repository.listing import ListingRun

    tuned = variant != "packed, untuned"
    if not tuned:
        git_tree.expect_large_blocks = lambda: None  # type: ignore[assignment]
    runner = GitRunner()
    start = rss_kib(os.getpid())
    held: object = None
    after: list[int] = []
    for _ in range(LISTINGS):
        held = None
        if variant == "list of str + tuned":
            run = ListingRun(runner, repo, on_output=git_tree.expect_large)
            listed = run.take_listing()
            held = sorted(set(listed.paths) - run.missing())
        else:
            held = list_tree(repo, ListingOptions(), runner)
        if tuned:
            memory.return_free_memory()
        after.append(rss_kib(os.getpid()) - start)
    del held
    return {"first": after[0], "last": after[-1]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300_000)
    parser.add_argument("--child", nargs=2, metavar=("VARIANT", "REPO"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]))))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as scratch:
        repo = generate(Path(scratch) / "repo", args.files)
        listing = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z", "-co", "--exclude-standard"],
            capture_output=True,
            check=True,
            env=GIT_ENV,
        ).stdout
        floor_kib = len(listing) / 1024
        print(f"{args.files:,} files; the listing itself: {floor_kib / 1024:.1f} MiB")
        print(f"{'variant':<22} {'after 1 listing':>18} {'after 4 listings':>18}")
        results: dict[str, dict[str, int]] = {}
        for variant in VARIANTS:
            out = subprocess.run(
                [sys.executable, __file__, "--child", variant, str(repo)],
                capture_output=True,
                check=True,
                text=True,
            ).stdout
            results[variant] = json.loads(out.strip().splitlines()[-1])
        for variant, held in results.items():
            cells = [f"{held[k] / 1024:6.1f} MiB ({held[k] / floor_kib:4.2f}x)" for k in held]
            print(f"{variant:<22} {cells[0]:>18} {cells[1]:>18}")
        print("(memory held above the child's start, and its ratio to the listing's own size)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
