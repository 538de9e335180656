"""One repository state, gathered with as few git processes as possible.

Steps: ``git status`` (always, one process; the index's line counts run
alongside) -> sizes (the work tree's line counts, only for the files status
named, while a bounded walk counts the untracked folders' files; see
:mod:`providers.git_status.measure`) -> operation markers (file reads) ->
default branch (file reads, only when the ref files changed) -> recent commits
(``git log``, only when HEAD moved). So a turn after an edit costs two
processes, three when files changed in the work tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from providers.core.errors import ErrorCategory, ProviderError
from providers.git_status.git import BlockedByFifo, Git, GitRun, RepoLayout
from providers.git_status.history import Commit, parse_log
from providers.git_status.measure import Measure, Measuring
from providers.git_status.operation import Operation, read_operations
from providers.git_status.porcelain import PorcelainError, Status, parse
from providers.git_status.refs import (
    REF_PATTERNS,
    RefsKey,
    default_branch_from_files,
    default_branch_from_listing,
    refs_key,
    uses_reftable,
)
from providers.git_status.sizes import Sizes
from providers.repository.sources import read_prefix

FIFO_NOTE = (
    "Untracked files not checked: git waited on a named pipe where it expected a file "
    "(a .gitignore or info/exclude that is a FIFO)"
)


@dataclass(frozen=True)
class Snapshot:
    """What the section is rendered from; equal snapshots render byte-identically.

    ``status`` is None for a bare repository, whose ``bare_head`` names the
    branch HEAD points at.
    """

    status: Status | None
    operations: tuple[Operation, ...] = ()
    default_branch: str | None = None
    default_distance: tuple[int, int] | None = None
    """(ahead, behind) the default branch, for a branch with no upstream: how far
    it is from where a pull request would go."""
    commits: tuple[Commit, ...] = ()
    bare_head: str | None = None
    notes: tuple[str, ...] = ()
    """One line each: what this snapshot could not see, and why."""
    sizes: Sizes = field(default_factory=Sizes)
    """Line counts and untracked folders' files, where they could be had cheaply."""


LFS_NOTE = (
    "the Git LFS filter is missing or failing (git-lfs on PATH?): files it tracks may "
    "show as modified when they are not"
)


def filter_note(names: tuple[str, ...]) -> str:
    """What a user sees when the repository's own config sets filter commands (never run)."""
    listed = ", ".join(names)
    plural = "s" if len(names) > 1 else ""
    return (
        f"filter{plural} {listed} not run: the repository's own config sets it, and "
        "repository config runs no programs here; files it filters may show as modified"
    )


class Snapshotter:
    """Takes snapshots of one repository, caching what only changes with refs or HEAD."""

    def __init__(
        self, git: Git, layout: RepoLayout, *, untracked: str, recent_commits: int
    ) -> None:
        self._git = git
        self._layout = layout
        self._untracked = untracked
        self._recent = recent_commits
        self._refs_key: RefsKey | None = None
        self._default_branch: str | None = None
        self._log_head: str | None = None
        self._commits: tuple[Commit, ...] = ()
        self._lfs_off = False
        """A required LFS filter failed here once: status runs with it off from then on."""
        self._distance_key: tuple[object, ...] | None = None
        self._distance: tuple[int, int] | None = None
        self._measuring: Measuring | None = None
        self._early_log: GitRun | None = None
        """This snapshot's log, started alongside its ``git status`` (first snapshot only)."""
        """This snapshot's sizes, started alongside its ``git status``."""
        self._measure = Measure(
            git, layout.toplevel or layout.git_dir, layout.git_dir, layout.common_dir
        )

    def take(self) -> Snapshot:
        layout = self._layout
        if layout.toplevel is None:
            return self._bare()
        self._measuring = None
        self._early_log = None
        notes: list[str] = []
        try:
            output = self._status(layout.toplevel, notes)
            dropped = self._git.dropped_filters(layout.toplevel)
            status = parse(output)
        except PorcelainError as exc:
            self._cancel_measuring()
            raise ProviderError(
                ErrorCategory.UNKNOWN, f"unexpected git status output: {exc}"
            ) from exc
        except BaseException:
            self._cancel_measuring()
            raise
        finally:
            commits = _result_or_none(self._early_log)
            self._early_log = None
        if dropped:
            notes.insert(0, filter_note(dropped))
        measuring = self._measure_alongside()
        self._measure.status_is(measuring, status, lfs_off=self._lfs_off)
        head = status.branch.oid
        if commits is not None and head is not None and commits[:1] and commits[0].oid == head:
            self._commits, self._log_head = commits, head
        default = self._default()
        distance = self._distance_from(layout.toplevel, status, default)
        return Snapshot(
            status=status,
            operations=read_operations(layout.git_dir),
            default_branch=default,
            default_distance=distance,
            commits=self._recent_commits(layout.toplevel, head),
            notes=tuple(notes),
            sizes=self._measure.finish(measuring, status),
        )

    def _alongside(self) -> None:
        """What runs while ``git status`` does, started once it runs (status is the
        longest wait, so it goes first): the first snapshot's log, and the sizes."""
        if self._early_log is None:
            self._early_log = self._log_alongside(self._layout.toplevel or self._layout.git_dir)
        self._measure_alongside()

    def _measure_alongside(self) -> Measuring:
        """Start measuring sizes, once per snapshot: right after ``git status`` starts."""
        if self._measuring is None:
            untracked = self._untracked != "no"
            self._measuring = self._measure.start(untracked=untracked, lfs_off=self._lfs_off)
        return self._measuring

    def _cancel_measuring(self) -> None:
        if self._measuring is not None:
            self._measuring.cancel()

    def _status(self, toplevel: Path, notes: list[str]) -> bytes:
        """``git status``; when git blocks on a FIFO (only reading ignore files does that),
        once more without untracked files, which need no ignore rules."""
        try:
            return self._lfs_tolerant_status(toplevel, self._untracked, notes)
        except BlockedByFifo:
            if self._untracked == "no":
                raise
        notes.append(FIFO_NOTE)
        return self._lfs_tolerant_status(toplevel, "no", notes)

    def _lfs_tolerant_status(self, toplevel: Path, untracked: str, notes: list[str]) -> bytes:
        """A required LFS filter that is missing (git-lfs not on our ``PATH``) or broken
        makes ``git status`` exit 128 and would cost the whole section: once more with
        the filter optional, saying what that means."""
        if not self._lfs_off:
            try:
                return self._git.status(toplevel, untracked=untracked, started=self._alongside)
            except BlockedByFifo:
                raise
            except ProviderError as exc:
                if "lfs" not in str(exc).lower():
                    raise
            self._lfs_off = True  # our PATH does not change: later turns go straight there
        notes.append(LFS_NOTE)
        return self._git.status(
            toplevel, untracked=untracked, lfs_optional=True, started=self._alongside
        )

    def _log_alongside(self, cwd: Path) -> GitRun | None:
        """On the first snapshot the log is certainly needed: it runs while ``git status``
        runs. Later snapshots reuse the log until HEAD moves."""
        if self._log_head is not None or self._recent <= 0:
            return None
        try:
            return self._git.start_log(cwd, self._recent)
        except ProviderError:
            return None  # the usual path runs it again, and reports the failure

    def _bare(self) -> Snapshot:
        head = _symbolic_head(self._layout.git_dir)
        oid = self._git.head_oid(self._layout.git_dir)
        commits = self._recent_commits(self._layout.git_dir, oid)
        return Snapshot(None, default_branch=self._default(), commits=commits, bare_head=head)

    def _default(self) -> str | None:
        common = self._layout.common_dir
        key = refs_key(common)
        if key != self._refs_key:
            if uses_reftable(common):
                listing = self._git.for_each_ref(common, *REF_PATTERNS)
                self._default_branch = default_branch_from_listing(listing)
            else:
                self._default_branch = default_branch_from_files(common)
            self._refs_key = key
        return self._default_branch

    def _distance_from(
        self, cwd: Path, status: Status, default: str | None
    ) -> tuple[int, int] | None:
        """How far a branch without an upstream is from the default branch (its remote
        copy when there is one): one ``rev-list`` when HEAD or the refs moved."""
        branch = status.branch
        if default is None or branch.upstream is not None or branch.oid is None:
            return None
        if branch.head in (None, default):
            return None
        key = (branch.oid, self._refs_key, default)
        if key != self._distance_key:
            self._distance = self._git.distance(
                cwd, f"refs/remotes/origin/{default}"
            ) or self._git.distance(cwd, f"refs/heads/{default}")
            self._distance_key = key
        return self._distance

    def _recent_commits(self, cwd: Path, head: str | None) -> tuple[Commit, ...]:
        if head is None or self._recent <= 0:
            return ()
        if head != self._log_head:
            self._commits = parse_log(self._git.log(cwd, self._recent))
            self._log_head = head
        return self._commits


def _result_or_none(run: GitRun | None) -> tuple[Commit, ...] | None:
    """The early log, or None when it failed (the usual path then runs it again)."""
    if run is None:
        return None
    try:
        return parse_log(run.output())
    except Exception:
        return None


def _symbolic_head(git_dir: Path) -> str | None:
    """The branch a bare repository's HEAD names (``ref: refs/heads/x``), if any."""
    data = read_prefix(git_dir / "HEAD", 4096)
    if data is None:
        return None
    text = data.decode("utf-8", "replace").strip()
    if not text.startswith("ref:"):
        return None
    return text.removeprefix("ref:").strip().removeprefix("refs/heads/")
