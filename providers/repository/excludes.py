"""git's excludes beyond the work tree's own ``.gitignore`` files: the global excludes file.

Needed where we apply git's rules ourselves (a walk outside a repository,
judging a new path without a process); inside a repository ``ls-files``
applies them for us. Only the user's own config names it: a repository's
``core.excludesFile`` could point anywhere outside it (issue 20), and git
run by us is made to ignore it too (``guard``).
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
    """``core.excludesFile`` from the user's config (``~`` expanded, relative paths from
    ``cwd``, as git takes them); None when unset."""
    value = runner.user_config(cwd).get("core.excludesfile")
    if not value:
        return None
    home = runner.environ.get("HOME")
    if home and (value == "~" or value.startswith("~/")):
        value = home + value[1:]
    path = Path(value)
    return path if path.is_absolute() else cwd / path


def excludes_file_from(code: int, out: bytes, cwd: Path) -> Path | None:
    """What a run of :data:`EXCLUDES_FILE_ARGS` in ``cwd`` said, for a caller that started it
    alongside other runs. gitexec gives every run the user's own ``core.excludesFile`` on
    its command line (a repository's value is never used), so this is the user's too."""
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
