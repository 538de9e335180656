"""git's excludes beyond the work tree's own ``.gitignore`` files: the global excludes file.

Needed where we apply git's rules ourselves (a walk outside a repository,
judging a new path without a process); inside a repository ``ls-files``
applies them for us.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from providers.repository.gitexec import GitError, GitRunner
from providers.repository.ignore import default_global_excludes

log = logging.getLogger(__name__)


EXCLUDES_FILE_ARGS = ("config", "--path", "--get", "core.excludesFile")
"""The git run that says where the global excludes file is (exit 1: not set)."""


def excludes_file(runner: GitRunner, cwd: Path) -> Path | None:
    """``core.excludesFile`` from git's config, ``~`` expanded; None when unset."""
    code, out, _ = runner.run(cwd, EXCLUDES_FILE_ARGS, ok_codes=(0, 1))
    return excludes_file_from(code, out, cwd)


def excludes_file_from(code: int, out: bytes, cwd: Path) -> Path | None:
    """What a run of :data:`EXCLUDES_FILE_ARGS` in ``cwd`` said, for a caller that started it
    alongside other runs."""
    value = os.fsdecode(out).rstrip("\n")
    if code != 0 or not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else cwd / path


def global_excludes(runner: GitRunner, root: Path) -> Path | None:
    """git's global excludes file: ``core.excludesFile``, else the XDG default."""
    try:
        configured = excludes_file(runner, root)
    except GitError as exc:
        log.debug("cannot ask git for core.excludesFile: %s", exc)
        configured = None
    return configured or default_global_excludes(runner.environ)
