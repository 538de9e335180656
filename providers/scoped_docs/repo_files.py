"""The repository's file list, taken once, to tell authors which rule patterns match nothing.

A glob with a typo never fires and nobody notices; checking it needs every
path in the repository. Inside a git work tree ``git ls-files -co
--exclude-standard`` gives them (tracked plus untracked, minus ignored) far
faster than a walk; elsewhere a bounded walk does. This runs at discovery
and when a rule changes, never on the per-turn path.
"""

from __future__ import annotations

import bisect
import logging
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

import pathspec

from providers.scoped_docs.globs import specificity

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 10.0
MAX_WALK_FILES = 100_000
"""A walk stops here; the check then only says "matches nothing among the first N"."""

MAX_CHECKS = 100_000
"""Path tests per check run; past it the remaining patterns are not judged."""

_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__"})


def list_repo_files(root: Path) -> tuple[str, ...]:
    """Sorted repo-relative POSIX paths of the files in ``root`` (git's view when it can)."""
    if (root / ".git").exists():
        files = _git_files(root)
        if files is not None:
            return files
    return _walk_files(root)


def _git_files(root: Path) -> tuple[str, ...] | None:
    # Repo config is untrusted: core.fsmonitor would run a command of its choosing.
    command = [
        "git",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.quotepath=off",
        "ls-files",
        "-co",
        "--exclude-standard",
        "-z",
    ]
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("git ls-files failed in %s: %s", root, exc)
        return None
    if done.returncode != 0:
        log.debug("git ls-files failed in %s: %s", root, done.stderr.decode(errors="replace"))
        return None
    names = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    return tuple(sorted(n for n in names if n))


def _walk_files(root: Path) -> tuple[str, ...]:
    found: list[str] = []
    for current, subdirs, filenames in os.walk(root, followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS)
        base = Path(current).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        found.extend(prefix + name for name in filenames)
        if len(found) >= MAX_WALK_FILES:
            log.debug("stopped listing %s after %d files", root, len(found))
            break
    return tuple(sorted(found))


def unmatched(
    patterns: Iterable[str], files: Sequence[str], extra: Iterable[str] = ()
) -> tuple[list[str], bool]:
    """The ``patterns`` (expanded, inclusions only) that match none of ``files`` or ``extra``.

    ``files`` must be sorted: an anchored pattern with a literal leading
    directory only looks at that directory's slice. Returns the unmatched
    patterns and whether the work cap cut the check short.
    """
    budget = MAX_CHECKS
    extra_paths = tuple(extra)
    missing: list[str] = []
    for pattern in patterns:
        matcher = pathspec.GitIgnoreSpec.from_lines([pattern])
        candidates = [*_slice(pattern, files), *extra_paths]
        hit = False
        for path in candidates:
            budget -= 1
            if matcher.match_file(path):
                hit = True
                break
            if budget <= 0:
                return missing, True
        if not hit:
            missing.append(pattern)
    return missing, False


def _slice(pattern: str, files: Sequence[str]) -> Sequence[str]:
    literal_dirs, _, _ = specificity(pattern)
    if literal_dirs == 0:
        return files
    segments = pattern.lstrip("/").split("/")[:literal_dirs]
    prefix = "/".join(segments)
    # The pattern may name the file itself (a/b.py) or a directory above it.
    lo = bisect.bisect_left(files, prefix)
    hi = bisect.bisect_left(files, prefix + "0")  # "0" sorts right after "/"
    return files[lo:hi]
