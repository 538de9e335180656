"""The section's first lines: where we are, and how many changes of each kind.

Pure. These are the units every budget keeps first; they must stay short.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from providers.git_status.entries import Category, Change
from providers.git_status.operation import Operation, OperationKind
from providers.git_status.snapshot import Snapshot


def header_lines(snapshot: Snapshot) -> list[str]:
    """Where we are: branch or detached HEAD, upstream, default branch, operations."""
    status = snapshot.status
    if status is None:
        where = f"; HEAD is {snapshot.bare_head}" if snapshot.bare_head else ""
        lines = [f"Bare repository (no working tree){where}"]
        current = snapshot.bare_head
    else:
        branch = status.branch
        if branch.head is None:
            short = _short(snapshot, branch.oid)
            line = f"HEAD detached at {short}" if short else "HEAD detached"
        elif branch.oid is None:
            line = f"On branch {branch.head} (no commits yet)"
        else:
            line = f"On branch {branch.head}"
        if branch.upstream is not None:
            if branch.ahead is None or branch.behind is None:
                line += f", upstream {branch.upstream} (gone)"
            else:
                line += ", " + distance_text(branch.ahead, branch.behind, branch.upstream)
        elif snapshot.default_distance is not None and snapshot.default_branch is not None:
            ahead, behind = snapshot.default_distance
            default = snapshot.default_branch
            even = f"even with {default}"
            line += ", no upstream; " + (
                distance_text(ahead, behind, default) if ahead or behind else even
            )
        lines = [line]
        current = branch.head
    if snapshot.default_branch is not None and snapshot.default_branch != current:
        lines.append(f"Default branch: {snapshot.default_branch}")
    lines.extend(operation_line(op) for op in snapshot.operations)
    lines.extend(f"Note: {note}" for note in snapshot.notes)
    return lines


def distance_text(ahead: int, behind: int, other: str) -> str:
    """``3 commits ahead of main, 1 behind``; a zero side is left out."""
    if ahead == behind == 0:
        return f"up to date with {other}"

    def commits(n: int) -> str:
        return f"{n} commit{'s' if n != 1 else ''}"

    if not behind:
        return f"{commits(ahead)} ahead of {other}"
    if not ahead:
        return f"{commits(behind)} behind {other}"
    return f"{commits(ahead)} ahead of {other}, {behind} behind"


def counts_line(
    stash: int, changes: Mapping[Category, Sequence[Change]], *, untracked_shown: bool
) -> str:
    """How many entries of each kind, and stashes: what survives every collapse."""
    parts = [f"{len(changes[c])} {c.value}" for c in Category if changes.get(c)]
    text = "Changes: " + ", ".join(parts) if parts else "Working tree clean"
    if not untracked_shown:
        text += " (untracked files not checked)"
    if stash:
        text += f"; {stash} stash{'es' if stash != 1 else ''}"
    return text


def operation_line(op: Operation) -> str:
    name = {
        OperationKind.MERGE: "Merge",
        OperationKind.REBASE: "Rebase",
        OperationKind.AM: "git am",
        OperationKind.CHERRY_PICK: "Cherry-pick",
        OperationKind.REVERT: "Revert",
        OperationKind.BISECT: "Bisect",
    }[op.kind]
    details = []
    if op.step is not None and op.total is not None:
        details.append(f"step {op.step}/{op.total}")
    if op.kind is OperationKind.REBASE and (op.branch or op.onto):
        what = f"rebasing {op.branch}" if op.branch else "rebasing"
        details.append(f"{what} onto {op.onto[:7]}" if op.onto else what)
    return f"{name} in progress" + (": " + ", ".join(details) if details else "")


def _short(snapshot: Snapshot, oid: str | None) -> str:
    """git's own abbreviation when the log has it, else 7 hex digits."""
    if oid is None:
        return ""
    return next((c.short for c in snapshot.commits if c.oid == oid), oid[:7])
