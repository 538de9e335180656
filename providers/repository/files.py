"""Every file a repository holds, as one sorted tuple: git's listing, or the walk without git.

For callers that need the whole list once (the scoped docs' check of rule
patterns that match nothing), not a model kept current turn by turn (the
file tree's). Inside a work tree ``git ls-files`` gives tracked plus
untracked files minus ignored ones, far faster than a walk; elsewhere (or
when git fails) a bounded walk applies the same ignore rules.
"""

from __future__ import annotations

import logging
from pathlib import Path

from providers.repository.excludes import global_excludes
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.ignore import IgnoreRules
from providers.repository.layout import git_dir, info_exclude
from providers.repository.listing import ListingRun
from providers.repository.walk import walk

log = logging.getLogger(__name__)

GIT_TIMEOUT_S = 10.0
MAX_WALK_FILES = 100_000
"""A walk stops here; callers then know only the first N files."""


def list_repo_files(root: Path, runner: GitRunner | None = None) -> tuple[str, ...]:
    """Sorted repo-relative POSIX paths of the files in ``root`` (git's view when it can).

    A nested repository is one entry ``name/``; tracked files deleted from
    the work tree are not listed.
    """
    if runner is None:
        runner = GitRunner(timeout=GIT_TIMEOUT_S)
    gitdir = git_dir(root)
    if gitdir is None:
        return _walk_files(root, runner, None)
    files = _git_files(root, runner)
    return files if files is not None else _walk_files(root, runner, info_exclude(gitdir))


def _git_files(root: Path, runner: GitRunner) -> tuple[str, ...] | None:
    run: ListingRun | None = None
    try:
        run = ListingRun(runner, root)
        listed = run.take_listing()
        missing = run.missing()
    except GitError as exc:
        log.debug("git cannot list %s: %s", root, exc)
        if run is not None:
            run.cancel()
        return None
    found = {*listed.paths, *(repo + "/" for repo in listed.repos)}
    return tuple(sorted(found - missing))


def _walk_files(root: Path, runner: GitRunner, exclude: Path | None) -> tuple[str, ...]:
    rules = IgnoreRules(root, info_exclude=exclude, global_excludes=global_excludes(runner, root))
    try:
        walked = walk(root, rules, max_files=MAX_WALK_FILES)
    except OSError as exc:
        log.debug("cannot list %s: %s", root, exc)
        return ()
    if len(walked.paths) >= MAX_WALK_FILES:
        log.debug("stopped listing %s after %d files", root, len(walked.paths))
    return tuple(sorted(walked.entries()))
