"""Operations in progress (merge, rebase n/m, am, cherry-pick, revert, bisect) from the git dir.

Porcelain v2 does not report these; git's own ``wt-status.c`` finds them by
the marker files below, and so do we: a few stats and tiny reads, no process.
The git dir is the per-worktree one (a linked worktree has its own).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

from providers.repository.sources import read_prefix

_MAX_MARKER_BYTES = 4096


class OperationKind(enum.Enum):
    MERGE = "merge"
    REBASE = "rebase"
    AM = "am"
    CHERRY_PICK = "cherry-pick"
    REVERT = "revert"
    BISECT = "bisect"


@dataclass(frozen=True)
class Operation:
    """One operation in progress; ``step``/``total`` and the rebase details when known."""

    kind: OperationKind
    step: int | None = None
    total: int | None = None
    branch: str | None = None
    onto: str | None = None


def read_operations(git_dir: Path) -> tuple[Operation, ...]:
    """What is in progress, in git's order of precedence (bisect can overlap the others)."""
    found: list[Operation] = []
    rebasing = False
    if os.path.isfile(git_dir / "MERGE_HEAD"):
        found.append(Operation(OperationKind.MERGE))
    elif os.path.isdir(git_dir / "rebase-apply"):
        apply_dir = git_dir / "rebase-apply"
        step, total = _number(apply_dir / "next"), _number(apply_dir / "last")
        if os.path.exists(apply_dir / "applying"):
            found.append(Operation(OperationKind.AM, step, total))
        else:
            rebasing = True
            found.append(_rebase(apply_dir, step, total))
    elif os.path.isdir(git_dir / "rebase-merge"):
        merge_dir = git_dir / "rebase-merge"
        rebasing = True
        found.append(_rebase(merge_dir, _number(merge_dir / "msgnum"), _number(merge_dir / "end")))
    if not rebasing and os.path.isfile(git_dir / "CHERRY_PICK_HEAD"):
        found.append(Operation(OperationKind.CHERRY_PICK))
    if not rebasing and os.path.isfile(git_dir / "REVERT_HEAD"):
        found.append(Operation(OperationKind.REVERT))
    if os.path.isfile(git_dir / "BISECT_START"):
        found.append(Operation(OperationKind.BISECT))
    return tuple(found)


def _rebase(state_dir: Path, step: int | None, total: int | None) -> Operation:
    head_name = _marker(state_dir / "head-name")
    branch = head_name.removeprefix("refs/heads/") if head_name else None
    if branch == "detached HEAD":
        branch = None
    onto = _marker(state_dir / "onto")
    return Operation(OperationKind.REBASE, step, total, branch, onto)


def _marker(path: Path) -> str | None:
    """A small state file's first line, or None when absent or unreadable."""
    data = read_prefix(path, _MAX_MARKER_BYTES)
    if data is None:
        return None
    line = data.decode("utf-8", "replace").split("\n", 1)[0].strip()
    return line or None


def _number(path: Path) -> int | None:
    text = _marker(path)
    return int(text) if text is not None and text.isdigit() else None
