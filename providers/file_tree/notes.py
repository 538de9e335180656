"""What a leaf says after its name, read from the file system for the entries shown only.

A symlink shows its target (``CLAUDE.md -> AGENTS.md``: the agent reads one
file, not two); a repository says whether it is a submodule and whether it
is checked out (an empty submodule directory holds nothing to open).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from providers.file_tree.tree_text import Annotate, display


def annotator(root: Path, submodules: Collection[str]) -> Annotate:
    """The :data:`~providers.file_tree.tree_text.Annotate` for ``root``'s listing."""
    base = os.fspath(root)

    def annotate(rel: str) -> str | None:
        full = os.path.join(base, rel.rstrip("/"))
        if rel.endswith("/"):
            kind = "submodule" if rel.rstrip("/") in submodules else "repository"
            return kind if _has_entries(full) else f"{kind}, not checked out"
        try:
            target = os.readlink(full)
        except (OSError, ValueError):
            return None
        return "-> " + _shown_target(base, full, target)

    return annotate


def _has_entries(directory: str) -> bool:
    try:
        with os.scandir(directory) as entries:
            return any(entry.name != ".git" for entry in entries)
    except OSError:
        return False


def _shown_target(base: str, link: str, target: str) -> str:
    """A relative target as written; an absolute one relative to the link when it stays in
    the repository, else only that it leaves it (no machine path in the prompt)."""
    if not os.path.isabs(target):
        return display(target)
    real = os.path.normpath(target)
    if real == base or real.startswith(base.rstrip("/") + "/"):
        return display(os.path.relpath(real, os.path.dirname(link)))
    return "(outside the repository)"
