"""Step 1, discover: which convention files exist, in precedence order.

Precedence (earlier wins a place in the prompt and in the budget): an
override first, then the cross-tool AGENTS.md, then each tool's own file.
Configured ``paths`` replace the list; globs expand in sorted order. Only
regular files inside the repository count (symlinks are followed only while
they stay inside).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

from providers.repository.paths import confine, repo_relative
from providers.repository.sources import file_key
from providers.rules.conventions import ROOT_CONVENTION_FILES

DEFAULT_PATHS = ROOT_CONVENTION_FILES


def is_glob(pattern: str) -> bool:
    return glob.has_magic(pattern)


def expand(root: Path, pattern: str) -> list[str]:
    """Repo-relative POSIX paths of regular files ``pattern`` names inside ``root``."""
    if is_glob(pattern):
        candidates = sorted(glob.glob(pattern, root_dir=root, recursive=True, include_hidden=True))
    else:
        candidates = [pattern]
    found: list[str] = []
    for candidate in candidates:
        resolved = confine(root, Path(candidate))
        if resolved is None or not os.path.isfile(resolved):
            continue
        found.append(repo_relative(root, Path(os.path.normpath(root / candidate))))
    return found


def discover(root: Path, patterns: Sequence[str]) -> list[str]:
    """Existing convention files for ``patterns``, first occurrence wins, in order."""
    seen: list[str] = []
    for pattern in patterns:
        for path in expand(root, pattern):
            if path not in seen:
                seen.append(path)
    return seen


def unresolved(root: Path, patterns: Sequence[str]) -> list[str]:
    """The patterns that name nothing (for Configure's check of explicit paths)."""
    return [p for p in patterns if not expand(root, p)]


def candidate_keys(root: Path, patterns: Sequence[str]) -> tuple[object, ...]:
    """A cheap fingerprint of what ``discover`` would find: one ``stat`` per plain path
    (a glob is expanded again). Equal fingerprints mean the same files are found."""
    base = os.fspath(root)
    return tuple(
        tuple(expand(root, pattern)) if is_glob(pattern) else file_key(os.path.join(base, pattern))
        for pattern in patterns
    )


def unreachable(root: Path, patterns: Sequence[str]) -> list[str]:
    """Plain paths whose existence cannot be checked (permission denied on the way)."""
    found: list[str] = []
    base = os.fspath(root)
    for pattern in patterns:
        if is_glob(pattern):
            continue
        try:
            os.stat(os.path.join(base, pattern))
        except PermissionError:
            found.append(pattern)
        except (OSError, ValueError):
            continue
    return found
