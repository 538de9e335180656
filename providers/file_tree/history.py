"""What the repository's history says about where the agent goes next. Pure: git's output in.

Two signals, both from ``git log --name-only`` over the last commits (bounded):

- **co-change**: files that changed together with a given file. A commit's
  weight is shared among its files (a 40-file refactor says little about any
  pair, a 2-file commit a lot), and recent commits count more;
- **activity**: how often and how recently each file changed, summed up the
  tree, so the map opens busy directories before quiet ones.

Commits touching more than :data:`MAX_COMMIT_FILES` files (vendoring, mass
renames, formatting sweeps) count for activity but not for co-change.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

LOG_ARGS = ("log", "-z", "--name-only", "--no-renames", "--format=%x1e%ct", "HEAD", "--")
"""Newest first: a record separator and the commit time, then the changed paths."""

MAX_COMMITS = 2000
MAX_COMMIT_FILES = 40
HALF_LIFE_COMMITS = 300
"""For co-change: a commit this many commits back counts half as much as the newest."""
HOT_HALF_LIFE_COMMITS = 100
"""For activity: what changed in the last few dozen commits is where work goes on
(measured: the next commit's files are best predicted with 20-50)."""


@dataclass(frozen=True)
class History:
    """Recent commits as path-id tuples, newest first, with the indexes the ranking asks."""

    paths: tuple[str, ...] = ()
    commits: tuple[tuple[int, ...], ...] = ()
    _by_path: Mapping[str, int] = field(default_factory=dict)
    _touching: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    activity: Mapping[str, float] = field(default_factory=dict)
    """Per file: the sum of the recency weights of the commits that changed it."""
    dir_activity: Mapping[str, float] = field(default_factory=dict)
    """Longer-lived activity (co-change's half-life) summed into every ancestor directory
    ("" is the root: all of it): which parts of the tree matter, beyond this week."""

    def __bool__(self) -> bool:
        return bool(self.commits)

    def partners(self, path: str, limit: int = 30) -> list[tuple[str, float]]:
        """Files that changed with ``path``, most telling first: (path, score)."""
        found = self._by_path.get(path)
        if found is None:
            return []
        scores: defaultdict[int, float] = defaultdict(float)
        for index in self._touching.get(found, ()):
            files = self.commits[index]
            if len(files) > MAX_COMMIT_FILES:
                continue
            weight = _recency(index) / (len(files) - 1 or 1)
            for other in files:
                if other != found:
                    scores[other] += weight
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        return [(self.paths[i], score) for i, score in best]


def _recency(index: int) -> float:
    return math.pow(0.5, index / HALF_LIFE_COMMITS)


def parse_log(output: bytes) -> History:
    """A :class:`History` from ``git <LOG_ARGS>`` output (newest commit first)."""
    return build(parse_commits(output))


def parse_commits(output: bytes, *, complete: bool = True) -> list[tuple[str, ...]]:
    """Each commit's changed paths, newest first; ``complete`` False drops the last
    record (the output was cut short)."""
    records = output.split(b"\x1e")[1:]
    if not complete and records:
        records.pop()
    commits: list[tuple[str, ...]] = []
    for record in records:
        names = (os.fsdecode(name.lstrip(b"\n")) for name in record.split(b"\0")[1:])
        commits.append(tuple(name for name in names if name))
    return commits


def build(commits: Iterable[Sequence[str]]) -> History:
    """A :class:`History` from commits given newest first, each as its changed paths."""
    ids: dict[str, int] = {}
    encoded: list[tuple[int, ...]] = []
    touching: defaultdict[int, list[int]] = defaultdict(list)
    activity: defaultdict[str, float] = defaultdict(float)
    lasting: defaultdict[str, float] = defaultdict(float)
    for index, files in enumerate(commits):
        if index >= MAX_COMMITS:
            break
        unique = list(dict.fromkeys(files))
        weight = math.pow(0.5, index / HOT_HALF_LIFE_COMMITS) / math.sqrt(len(unique) or 1)
        row: list[int] = []
        for path in unique:
            found = ids.setdefault(path, len(ids))
            row.append(found)
            touching[found].append(index)
            activity[path] += weight
            lasting[path] += _recency(index)
        encoded.append(tuple(row))
    totals: defaultdict[str, float] = defaultdict(float)
    for path, score in lasting.items():
        directory = path
        while directory:
            directory = directory.rpartition("/")[0]
            totals[directory] += score
    return History(
        paths=tuple(ids),
        commits=tuple(encoded),
        _by_path=ids,
        _touching={k: tuple(v) for k, v in touching.items()},
        activity=dict(activity),
        dir_activity=dict(totals),
    )
