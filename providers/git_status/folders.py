"""How many files each untracked folder holds (``gen/ (1,500 files)``): a bounded walk.

In the default ``normal`` mode git collapses an untracked folder to ``gen/``
(it stops looking inside at the first file). Its files are counted by a walk
that applies git's ignore rules (:mod:`providers.repository.walk`; the rules
are checked against git's own verdicts): it stops at
:data:`~providers.git_status.sizes.FOLDER_CAP` files (the line then says
``5,000+``), and once :data:`TOTAL_CAP` files were counted over every folder,
later folders get no count. So it is bounded whatever a folder holds, and
starts no git process beyond one ``git config`` per session for the global
excludes file. A folder that is a repository of its own (git shows it the
same way) gets no count, and neither does one that cannot be read.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from providers.git_status.porcelain import EntryKind, Status
from providers.git_status.sizes import FOLDER_CAP
from providers.repository.ignore import IgnoreRules
from providers.repository.layout import is_nested_repository
from providers.repository.walk import walk

log = logging.getLogger(__name__)

TOTAL_CAP = 20_000
"""Files counted over every folder of one snapshot."""


def untracked_folders(status: Status) -> list[str]:
    """The untracked entries that are folders (``gen/``), in path order."""
    return sorted(
        entry.path
        for entry in status.entries
        if entry.kind is EntryKind.UNTRACKED and entry.path.endswith("/")
    )


def count_files(
    toplevel: Path,
    folders: Iterable[str],
    rules: IgnoreRules,
    *,
    cap: int = FOLDER_CAP,
    total: int = TOTAL_CAP,
) -> tuple[tuple[str, int], ...]:
    """``(folder/, files)`` for each folder counted, up to ``cap + 1`` (more than ``cap``);
    no more folders once ``total`` files were counted."""
    found: list[tuple[str, int]] = []
    left = total
    for folder in folders:
        if left <= 0:
            break
        limit = min(cap + 1, left)
        if is_nested_repository(os.path.join(toplevel, folder)):
            continue
        try:
            walked = walk(toplevel, rules, start=folder.rstrip("/"), max_files=limit)
        except OSError as exc:
            log.debug("cannot count the files in %s: %s", folder, exc)
            continue
        count = len(walked.paths) + len(walked.repos)
        if len(walked.paths) >= limit and limit <= cap:
            break  # stopped by the total, not the folder's cap: its count is unknown
        left -= count
        if count:
            found.append((folder, count))
    return tuple(found)
