"""git's excludes beyond the work tree's own ``.gitignore`` files: the global excludes file.

Needed where we apply git's rules ourselves (a walk outside a repository,
judging a new path without a process); inside a repository ``ls-files``
applies them for us. Only the user's own config names it: a repository's
``core.excludesFile`` could point anywhere outside it (issue 20), and git
run by us is made to ignore it too (``guard``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from providers.repository.gitexec import GitError, GitRunner
from providers.repository.ignore import default_global_excludes

log = logging.getLogger(__name__)


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


def global_excludes(runner: GitRunner, root: Path) -> Path | None:
    """git's global excludes file: ``core.excludesFile``, else the XDG default."""
    try:
        configured = excludes_file(runner, root)
    except GitError as exc:
        log.debug("cannot ask git for core.excludesFile: %s", exc)
        configured = None
    return configured or default_global_excludes(runner.environ)
