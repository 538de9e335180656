"""Issue 20 items 5-8: the turn time of hostile inputs at 1%, 10% and 100% of the issue's
sizes (100 times the issue's sizes would be 100 MiB convention files and ten million rule
files: beyond every default limit, so the sizes go down, not up).

Each provider runs as a real plugin launched through the reference host; each figure
is the first Contribute on a fresh process (the issue: "every turn times out, the first
and the later ones"), with, where a turn stops at its deadline, the turns it took to
finish and a later turn. The floor, measured in the same run, is the same provider's
first Contribute on a small repository (process, import and gRPC costs: what any
first turn pays). ``x size`` is the growth of the input's own cost (first turn minus
floor) from the size before: linear is about 10x per 10x, less once a turn stops at
its deadline or a cap.

    python benchmarks/bench_hostile.py [--only 5,6,7,8] [--largest 1.0]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.hostile_inputs import (
    MARKDOWN_SHAPES,
    deep_path,
    empty_repo,
    import_fanout,
    markdown_repo,
    rule_flood,
    touched_paths,
)
from benchmarks.provider_process import TimedProvider
from benchmarks.repos import git

SCALES = (0.01, 0.1, 1.0)
DONE_MARKERS = ("not read yet", "not matched yet", "Not done this turn")
MAX_TURNS = 40


@dataclass
class Row:
    case: str
    scale: float
    size: str
    first_s: float
    floor_s: float
    turns: int = 1
    total_s: float = 0.0
    later_s: float = 0.0


def unfinished(reply: object) -> bool:
    text = "".join(
        block.text.text
        for section in reply.sections  # type: ignore[attr-defined]
        for block in section.content
    )
    return any(marker in text for marker in DONE_MARKERS)


class Floors:
    """Per provider: the median first Contribute of three fresh processes on a small
    repository (an ``AGENTS.md`` and a nested one, touched: markdown is loaded too)."""

    def __init__(self, scratch: Path) -> None:
        self._small = markdown_repo(scratch / "small", "# Conventions\n\nUse tabs.\n")
        (self._small / "AGENTS.md").write_text("# Conventions\n\nUse spaces.\n")
        self._known: dict[str, float] = {}

    def of(self, published: str, config: dict[str, object]) -> float:
        if published not in self._known:
            firsts = []
            for _ in range(3):
                provider = TimedProvider(published, config)
                try:
                    request = provider.request(self._small, 4000, ["src/x.py"])
                    firsts.append(provider.contribute(request)[0])
                finally:
                    provider.close()
            self._known[published] = statistics.median(firsts)
        return self._known[published]


def measure(
    case: str,
    scale: float,
    size: str,
    repo: Path,
    published: str,
    config: dict[str, object],
    touched: list[str],
    floors: Floors,
) -> Row:
    floor_s = floors.of(published, config)
    provider = TimedProvider(published, config)
    try:
        request = provider.request(repo, 4000, touched)
        first, reply = provider.contribute(request)
        turns, total = 1, first
        while unfinished(reply) and turns < MAX_TURNS:
            took, reply = provider.contribute(request)
            turns, total = turns + 1, total + took
        later, _ = provider.contribute(request)
    finally:
        provider.close()
    return Row(case, scale, size, first, floor_s, turns, total, later)


def cases(scratch: Path, only: set[str], largest: float) -> list[Row]:
    rows: list[Row] = []
    floors = Floors(scratch)
    scales = [s for s in SCALES if s <= largest]
    for scale in scales:
        tag = f"{scale:g}"
        if "5" in only:
            for name, make in MARKDOWN_SHAPES.items():
                text = make(scale)
                size = f"{len(text.encode()) / 1024:,.0f} KiB"
                repo = markdown_repo(scratch / f"md-{name[:8]}-{tag}", text)
                rows.append(
                    measure(
                        f"5 {name}: repo conventions",
                        scale,
                        size,
                        repo,
                        "repo-conventions",
                        {},
                        [],
                        floors,
                    )
                )
                nested = markdown_repo(scratch / f"mdn-{name[:8]}-{tag}", text, nested=True)
                rows.append(
                    measure(
                        f"5 {name}: scoped docs",
                        scale,
                        size,
                        nested,
                        "scoped-docs",
                        {"watch": False},
                        ["src/x.py"],
                        floors,
                    )
                )
        if "6" in only:
            depth = {0.01: 3, 0.1: 4, 1.0: 5}[scale]
            repo = import_fanout(scratch / f"fan-{tag}", fan=10, depth=depth)
            rows.append(
                measure(
                    "6 import fan-out 10 wide",
                    scale,
                    f"10^{depth} reads",
                    repo,
                    "repo-conventions",
                    {},
                    [],
                    floors,
                )
            )
        if "7" in only:
            repo = scratch / f"flood-{tag}"
            touched = rule_flood(repo, scale)
            size = f"{int(43_000 * scale):,} files"
            rows.append(
                measure(
                    "7 rule flood: repo conventions",
                    scale,
                    size,
                    repo,
                    "repo-conventions",
                    {},
                    [],
                    floors,
                )
            )
            rows.append(
                measure(
                    "7 rule flood: scoped docs",
                    scale,
                    size,
                    repo,
                    "scoped-docs",
                    {"watch": False},
                    touched,
                    floors,
                )
            )
        if "8" in only:
            repo = scratch / f"touch-{tag}"
            repo.mkdir()
            git(repo, "init", "-q")
            (repo / "README.md").write_text("x\n")
            touched = touched_paths(scale)
            rows.append(
                measure(
                    "8 files touched: file tree",
                    scale,
                    f"{len(touched):,} paths",
                    repo,
                    "file-tree",
                    {"watch": False},
                    touched,
                    floors,
                )
            )
            deep = empty_repo(scratch / f"deep-{tag}")
            path = deep_path(scale)
            rows.append(
                measure(
                    "8 deep path: scoped docs",
                    scale,
                    f"{path.count('/'):,} deep",
                    deep,
                    "scoped-docs",
                    {"watch": False},
                    [path],
                    floors,
                )
            )
    return rows


def report(rows: list[Row]) -> None:
    ms = 1000.0
    print(
        f"{'case':<40} {'scale':>5} {'input':>14} {'first turn':>11} {'floor':>9} "
        f"{'ratio':>7} {'x size':>7}  until done (turns)   later turn"
    )
    previous: dict[str, Row] = {}
    for row in sorted(rows, key=lambda r: (r.case, r.scale)):
        before = previous.get(row.case)
        own, own_before = (
            row.first_s - row.floor_s,
            before.first_s - before.floor_s if before else 0,
        )
        growth = f"{own / own_before:6.1f}x" if before and own_before > 0 else "      -"
        done = f"{row.total_s * ms:9.0f} ms ({row.turns:2})" if row.turns > 1 else " " * 17
        print(
            f"{row.case:<40} {row.scale:5g} {row.size:>14} {row.first_s * ms:8.0f} ms "
            f"{row.floor_s * ms:6.1f} ms {row.first_s / row.floor_s:6.1f}x {growth}  "
            f"{done}   {row.later_s * ms:7.0f} ms"
        )
        previous[row.case] = row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="5,6,7,8", help="items to run, comma-separated")
    parser.add_argument("--largest", type=float, default=1.0, help="largest scale to run")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    try:
        rows = cases(scratch, set(args.only.split(",")), args.largest)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("Scales are of the issue's sizes (1 = as reported); a turn's work budget is 4 s.")
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
