"""Recent commits from ``git log -z --format=%H%x00%h%x00%s``: pure parsing.

With ``-z`` every field and every record ends in NUL, so subjects holding
anything (git re-encodes them to UTF-8) split cleanly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Commit:
    """One commit: full sha (to match HEAD), git's own short sha, subject line."""

    oid: str
    short: str
    subject: str


def parse_log(output: bytes) -> tuple[Commit, ...]:
    """Commits newest first; a truncated trailing record is dropped, not guessed."""
    fields = output.decode("utf-8", "replace").split("\0")
    commits = []
    for i in range(0, len(fields) - 2, 3):
        oid, short, subject = fields[i : i + 3]
        if oid:
            commits.append(Commit(oid.strip(), short.strip(), subject))
    return tuple(commits)
