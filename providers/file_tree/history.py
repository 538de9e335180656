"""What the repository's history says about where the agent goes next. Pure: git's output in.

Two signals, both from ``git log --name-only`` over the last commits (bounded):

- **co-change**: files that changed together with a given file. A commit's
  weight is shared among its files (a 40-file refactor says little about any
  pair, a 2-file commit a lot), and recent commits count more;
- **activity**: how often and how recently each file changed, summed up the
  tree, so the map opens busy directories before quiet ones.

Commits touching more than :data:`MAX_COMMIT_FILES` files (vendoring, mass
renames, formatting sweeps) count for activity but not for co-change.

Building is a loop over every path each commit changed (a repository
imported in one commit of 100,000 files has 100,000 of them), so it runs in
the background and calls ``pause`` every :data:`PAUSE_EVERY` paths: the
miner lets a turn go first there. A built :class:`History` is kept between
sessions as its columns (``history_cache.py``); :meth:`History.of` makes it
again from them with C-level calls only, and co-change partners are looked
up when first asked for, so loading one costs little before a first answer.
"""

from __future__ import annotations

import heapq
import math
import os
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice, repeat

from providers.file_tree.history_columns import Activity, PathColumn, in_git_order

LOG_ARGS = ("log", "-z", "--name-only", "--no-renames", "--format=%x1e%ct", "HEAD", "--")
"""Newest first: a record separator and the commit time, then the changed paths."""

MAX_COMMITS = 2000
MAX_COMMIT_FILES = 40
HALF_LIFE_COMMITS = 300
"""For co-change: a commit this many commits back counts half as much as the newest."""
HOT_HALF_LIFE_COMMITS = 100
"""For activity: what changed in the last few dozen commits is where work goes on
(measured: the next commit's files are best predicted with 20-50)."""
HOTTEST = 200
"""The busiest files kept in order (:attr:`History.hottest`), so no turn sorts them all."""
PAUSE_EVERY = 512
"""Paths (or commits) handled between two calls of ``pause``: about 0.2 ms of work."""
PIECE_BYTES = 256 * 1024
"""A record longer than this is decoded a piece at a time, with a pause between."""

_ID = "I"
"""The ``array`` type of a large commit's path ids."""

Pause = Callable[[], None]
"""Called between slices of work: the background miner waits there while a turn runs."""


def _go_on() -> None:
    """The default ``pause``: none (work done while an answer waits for it)."""


@dataclass(frozen=True, eq=False)
class History:
    """Recent commits as path-id tuples, newest first, with the indexes the ranking asks."""

    paths: PathColumn = field(default_factory=lambda: PathColumn(b"", 0))
    commits: tuple[Sequence[int], ...] = ()
    """Each commit's path ids: a tuple, or an ``array`` for one of more than
    :data:`MAX_COMMIT_FILES` (an import of 100,000 files: 4 bytes an id, not 36)."""
    activity: Mapping[str, float] = field(default_factory=dict)
    """(An :class:`Activity` once built.)"""
    """Per file: the sum of the recency weights of the commits that changed it."""
    dir_activity: Mapping[str, float] = field(default_factory=dict)
    """Longer-lived activity (co-change's half-life) summed into every ancestor directory
    ("" is the root: all of it): which parts of the tree matter, beyond this week."""
    hottest: tuple[str, ...] = ()
    """Up to :data:`HOTTEST` files, the most active first (ties: the most recent first),
    among those a commit of at most :data:`MAX_COMMIT_FILES` files changed: a file only
    an import or a sweep changed is not where work goes on (in a repository of one
    commit, every file would tie, and the first alphabetically would lead the map)."""
    _by_path: Mapping[str, int] = field(default_factory=dict, repr=False)
    """The ids of the paths some co-change commit changed (the others have no partners)."""
    _touching: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)
    """Per path id, the co-change commits that changed it: filled when first asked."""

    @classmethod
    def of(
        cls,
        paths: PathColumn | Sequence[str],
        commits: Iterable[Sequence[int]],
        activity: Iterable[float],
        dir_activity: Mapping[str, float],
    ) -> History:
        """A history from its columns (``activity`` in the order of ``paths``; a large
        commit's ids in git's order, :func:`~history_columns.in_git_order`).

        Memory is most of the cost at 100,000 paths (one import commit), so the paths
        and activities are columns (:mod:`history_columns`), large commits arrays, and
        only the paths of co-change commits get a ``str`` and a dict entry.
        """
        column = paths if isinstance(paths, PathColumn) else PathColumn.of(paths)
        values = array("d", activity)
        if len(values) != len(column):
            raise ValueError(f"{len(values)} activities for {len(column)} paths")
        kept = tuple(map(_compact, commits))
        small = sorted(set(chain.from_iterable(c for c in kept if len(c) <= MAX_COMMIT_FILES)))
        candidates = [column[i] for i in small]
        by_path = dict(zip(candidates, small, strict=True))
        large = (c for c in kept if len(c) > MAX_COMMIT_FILES)
        return cls(
            paths=column,
            commits=kept,
            activity=Activity(column, values, by_path, large),
            dir_activity=dir_activity,
            hottest=tuple(heapq.nlargest(HOTTEST, candidates, key=lambda p: values[by_path[p]])),
            _by_path=by_path,
        )

    def __bool__(self) -> bool:
        return bool(self.commits)

    def changed(self) -> list[tuple[str, ...]]:
        """Each commit's changed paths, newest first (what :func:`build` was given)."""
        paths = list(self.paths)  # decoded at once, not a call per path
        return [tuple(map(paths.__getitem__, files)) for files in self.commits]

    def partners(self, path: str, limit: int = 30) -> list[tuple[str, float]]:
        """Files that changed with ``path``, most telling first: (path, score)."""
        found = self._by_path.get(path)
        if found is None:
            return []
        touching = self._touching.get(found)
        if touching is None:
            touching = tuple(
                index
                for index, files in enumerate(self.commits)
                if len(files) <= MAX_COMMIT_FILES and found in files
            )
            self._touching[found] = touching
        scores: defaultdict[int, float] = defaultdict(float)
        for index in touching:
            files = self.commits[index]
            weight = _recency(index) / (len(files) - 1 or 1)
            for other in files:
                if other != found:
                    scores[other] += weight
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        return [(self.paths[i], score) for i, score in best]


def _compact(ids: Sequence[int]) -> Sequence[int]:
    """A commit's ids as kept: a tuple when few, else an array."""
    if len(ids) <= MAX_COMMIT_FILES:
        return tuple(ids)
    return ids if isinstance(ids, array) and ids.typecode == _ID else array(_ID, ids)


def _recency(index: int) -> float:
    return math.pow(0.5, index / HALF_LIFE_COMMITS)


def parse_log(output: bytes) -> History:
    """A :class:`History` from ``git <LOG_ARGS>`` output (newest commit first)."""
    return build(parse_commits(output))


def parse_commits(
    output: bytes, *, limit: int | None = None, pause: Pause = _go_on
) -> list[tuple[str, ...]]:
    """Each commit's changed paths, newest first, from the first ``limit`` bytes of
    ``output`` (the record cut there is left out). A record is decoded in pieces of
    :data:`PIECE_BYTES`, with a pause between (an import commit lists every file)."""
    end = len(output) if limit is None else min(limit, len(output))
    commits: list[tuple[str, ...]] = []
    start = output.find(b"\x1e", 0, end)
    while start >= 0:
        following = output.find(b"\x1e", start + 1, end)
        if following < 0 and end < len(output):
            break  # cut short: this record may lack paths
        stop = following if following >= 0 else end
        # "<time>\0\n<path>\0<path>\0...": the newline only before the first path.
        first = output.find(b"\0", start + 1, stop) + 1 or stop
        if output.startswith(b"\n", first, stop):
            first += 1
        commits.append(_names(output, first, stop, pause))
        if len(commits) % PAUSE_EVERY == 0:
            pause()
        start = following
    return commits


def _names(output: bytes, start: int, stop: int, pause: Pause) -> tuple[str, ...]:
    """The NUL-separated names in ``output[start:stop]``."""
    if stop - start <= PIECE_BYTES:
        return tuple(filter(None, os.fsdecode(output[start:stop]).split("\0")))
    names: list[str] = []
    while start < stop:
        cut = output.find(b"\0", min(start + PIECE_BYTES, stop), stop)
        cut = stop if cut < 0 else cut
        names.extend(filter(None, os.fsdecode(output[start:cut]).split("\0")))
        start = cut + 1
        pause()
    return tuple(names)


def build(commits: Iterable[Sequence[str]], pause: Pause = _go_on) -> History:
    """A :class:`History` from commits given newest first, each as its changed paths."""
    ids: dict[str, int] = {}
    encoded: list[Sequence[int]] = []
    activity: list[float] = []
    lasting: list[float] = []
    since_pause = 0
    for index, files in enumerate(islice(commits, MAX_COMMITS)):
        unique = list(dict.fromkeys(files))
        weight = math.pow(0.5, index / HOT_HALF_LIFE_COMMITS) / math.sqrt(len(unique) or 1)
        recency = _recency(index)
        row: list[int] = []
        for start in range(0, len(unique), PAUSE_EVERY):
            known = len(ids)
            part = [ids.setdefault(path, len(ids)) for path in unique[start : start + PAUSE_EVERY]]
            activity.extend(repeat(0.0, len(ids) - known))
            lasting.extend(repeat(0.0, len(ids) - known))
            for found in part:
                activity[found] += weight
                lasting[found] += recency
            row.extend(part)
            since_pause += len(part)
            if since_pause >= PAUSE_EVERY:
                since_pause = 0
                pause()
        encoded.append(_compact(row if len(row) <= MAX_COMMIT_FILES else in_git_order(row, unique)))
        since_pause += 1
    paths = tuple(ids)
    ids.clear()
    return History.of(paths, encoded, activity, _dir_totals(paths, lasting, pause))


def _dir_totals(paths: Sequence[str], scores: Sequence[float], pause: Pause) -> dict[str, float]:
    """Each path's score summed into every ancestor directory ("" the root)."""
    per_dir: defaultdict[str, float] = defaultdict(float)
    for count, (path, score) in enumerate(zip(paths, scores, strict=True), 1):
        per_dir[path.rpartition("/")[0]] += score
        if count % PAUSE_EVERY == 0:
            pause()
    totals: defaultdict[str, float] = defaultdict(float)
    for count, (directory, score) in enumerate(per_dir.items(), 1):
        while True:
            totals[directory] += score
            if not directory:
                break
            directory = directory.rpartition("/")[0]
        if count % PAUSE_EVERY == 0:
            pause()
    return dict(totals)
