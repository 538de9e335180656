"""Step 1, listing: the files git would show, as a :class:`Tree`, minus our own excludes.

In a repository one ``git ls-files`` answers; elsewhere (or when git cannot
run there) a walk applies the same rules (``repository.ignore``). Our own patterns
(config ``exclude`` and the ignore file, ``.contextignore`` by default) then
remove more, tracked files included.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from providers.file_tree.git_tree import expect_large, submodules_as_repositories, tree_of
from providers.file_tree.tracked import TrackedBlocks
from providers.file_tree.tree import Tree
from providers.repository.excludes import global_excludes
from providers.repository.gitexec import GitError, GitRunner
from providers.repository.ignore import IgnoreRules, PatternSet, read_patterns
from providers.repository.layout import git_dir, info_exclude
from providers.repository.listing import ListingRun, submodule_paths
from providers.repository.paths import confine
from providers.repository.walk import walk

log = logging.getLogger(__name__)

DEFAULT_IGNORE_FILE = ".contextignore"
AI_IGNORE_FILES: tuple[str, ...] = (
    ".cursorignore",
    ".geminiignore",
    ".aiderignore",
    ".clineignore",
    ".continueignore",
    ".codeiumignore",
    ".aiignore",
    ".kiroignore",
)
"""The ignore files users already write for other agents (gitignore syntax, at the root):
what they hide from one tool they mean to hide from all. ``.aiignore`` is JetBrains AI
Assistant's and Junie's, ``.kiroignore`` Kiro's."""


@dataclass(frozen=True)
class ListingOptions:
    """What the user configured about the listing."""

    exclude: tuple[str, ...] = ()
    ignore_file: str = DEFAULT_IGNORE_FILE
    ai_ignore_files: tuple[str, ...] = AI_IGNORE_FILES


@dataclass(kw_only=True)
class Listing:
    """A full listing and what is needed to keep it current incrementally.

    ``key_files`` are the files whose change invalidates the rules themselves
    (git's index and excludes, our ignore file): any change means a full
    re-list. ``rules`` judges new paths (inside a repository it is made on
    first use, see :func:`rules_for`); ``known`` holds paths listed whatever
    the rules say: tracked files missing from the work tree, and files removed
    since the listing (re-created, git would list them again).
    """

    root: Path
    tree: Tree
    in_git: bool
    unreadable: int
    own: PatternSet
    rules: IgnoreRules | None
    key_files: tuple[Path, ...]
    ignore_files: tuple[Path, ...]
    """Our own pattern files (``.contextignore``, the AI tools' files): any may appear."""
    info_exclude: Path | None = None
    known: set[str] = field(default_factory=set)
    digest: bytes = b""
    """Of git's output: a listing that would come out the same is not built again."""
    index: Path | None = None
    """git's index, one of ``key_files``: its change alone is applied in place (``tracked``)."""
    tracked: TrackedBlocks | None = None
    """The tracked files' listing as hashes: what a change of the index changed
    (:mod:`tracked`); None outside git, or when a path is not UTF-8."""
    own_lines: tuple[tuple[str, ...], ...] = ()
    submodules: frozenset[str] = frozenset()
    """Paths ``.gitmodules`` names (listed as repositories ``name/``)."""
    missing: frozenset[str] = frozenset()
    partial: str | None = None
    """Why the walk stopped before it saw everything (``repository.walk``), if it did."""
    built: int = 0
    """The tree's version when listed: it has not been edited since while it is the same."""
    pending: ListingRun | None = None
    """The run that finds deleted tracked files (started by :meth:`ListingRun.start_missing`
    once the first answer is out); :func:`settle_missing` takes them out."""

    def reusable(self, digest: bytes, own_lines: tuple[tuple[str, ...], ...]) -> bool:
        return (
            self.in_git
            and self.digest == digest
            and self.own_lines == own_lines
            and self.tree.version == self.built
        )


def own_ignore_files(root: Path, options: ListingOptions) -> tuple[Path, ...]:
    """Our pattern files, configured and inside ``root`` (never read from outside); they
    count whether they exist yet or not (one may be created)."""
    found: list[Path] = []
    for name in (options.ignore_file, *options.ai_ignore_files):
        if not name:
            continue
        path = confine(root, Path(name))
        if path is None:
            log.warning("ignore file %s is outside %s; not read", name, root)
        elif path not in found:
            found.append(path)
    return tuple(found)


def own_lines(options: ListingOptions, files: Sequence[Path]) -> tuple[tuple[str, ...], ...]:
    """Our own patterns, one group per source: config ``exclude``, then each file's lines."""
    return (tuple(options.exclude), *(tuple(read_patterns(path)) for path in files))


def rules_for(listing: Listing, runner: GitRunner) -> IgnoreRules:
    """The ignore rules for new paths; in a repository made once, on first use.

    Asking our own rules instead of ``git check-ignore`` saves a process per
    turn (git reads the whole index for it); the rules agree with git's
    (tests/repository/test_gitignore_cases.py, test_gitignore_trees.py) except for
    tracked files, which ``known`` covers.
    """
    if listing.rules is None:
        listing.rules = IgnoreRules(
            listing.root,
            info_exclude=listing.info_exclude,
            global_excludes=global_excludes(runner, listing.root),
        )
    return listing.rules


def list_tree(root: Path, options: ListingOptions, runner: GitRunner) -> Listing:
    """List ``root`` completely, deleted tracked files taken out. Raises ``OSError`` when
    ``root`` itself cannot be read."""
    listing = list_again(root, options, runner, None)[0]
    settle_missing(listing)
    return listing


@dataclass(frozen=True)
class _Patterns:
    """The rules a listing applies besides git's own, and the files they are read from."""

    ignore_files: tuple[Path, ...]
    lines: tuple[tuple[str, ...], ...]
    own: PatternSet
    info_exclude: Path | None

    @classmethod
    def read(cls, root: Path, options: ListingOptions, gitdir: Path | None) -> _Patterns:
        ignore_files = own_ignore_files(root, options)
        lines = own_lines(options, ignore_files)
        exclude = info_exclude(gitdir) if gitdir is not None else None
        return cls(ignore_files, lines, PatternSet(*lines), exclude)

    def key_files(self, more: Path | None) -> tuple[Path, ...]:
        """These files and ``more`` (git's index, or the global excludes file), once each."""
        found = [*self.ignore_files, self.info_exclude, more]
        return _unique([path for path in found if path is not None])


def list_again(
    root: Path,
    options: ListingOptions,
    runner: GitRunner,
    previous: Listing | None,
) -> tuple[Listing, bool]:
    """List ``root`` completely; True when nothing changed since ``previous``.

    In a repository git lists it; when git cannot, a walk does. An unchanged
    listing is ``previous`` itself, or a new one sharing its tree, so the
    tree's version (and the answer written from it) carries over. ``previous``
    is dropped before git's tree is built: one listing in memory at a time.
    Raises ``OSError`` when ``root`` itself cannot be read.
    """
    gitdir = git_dir(root)
    patterns = _Patterns.read(root, options, gitdir)
    if gitdir is None:
        return _walked(root, patterns, runner, previous)
    relisting = previous is not None and previous.in_git
    try:
        run = ListingRun(runner, root, on_output=expect_large)
        if previous is not None and relisting:
            run.start_missing()  # needed at once to tell whether anything changed
            reusable = previous.reusable(run.digest(), patterns.lines)
            if reusable and run.missing() == previous.missing:
                return previous, True
        previous = None
        tree, unreadable, tracked = tree_of(run)
        digest = run.digest()
    except GitError as exc:
        log.warning("git cannot list %s (%s); walking it instead", root, exc)
        return _walked(root, patterns, runner, previous)
    listing = _listed_by_git(root, gitdir, patterns, run, tree, unreadable, digest)
    listing.tracked = tracked
    if relisting:
        settle_missing(listing)  # already known: the check above needed them
    return listing, False


def _listed_by_git(
    root: Path,
    gitdir: Path,
    patterns: _Patterns,
    run: ListingRun,
    tree: Tree,
    unreadable: int,
    digest: bytes,
) -> Listing:
    """The listing of git's ``tree``: submodules shown as repositories, our patterns
    applied, and what the next relisting compares against."""
    submodules: set[str] = set()
    if tree.contains(".gitmodules"):
        submodules = submodule_paths(root)
        submodules_as_repositories(tree, submodules)
    if patterns.own:
        tree.filter(patterns.own.excluded)
    return Listing(
        root=root,
        tree=tree,
        in_git=True,
        unreadable=unreadable,
        own=patterns.own,
        rules=None,
        key_files=patterns.key_files(gitdir / "index"),
        ignore_files=patterns.ignore_files,
        info_exclude=patterns.info_exclude,
        submodules=frozenset(submodules),
        digest=digest,
        index=gitdir / "index",
        own_lines=patterns.lines,
        built=tree.version,
        pending=run,
    )


def _walked(
    root: Path, patterns: _Patterns, runner: GitRunner, previous: Listing | None
) -> tuple[Listing, bool]:
    """The listing by a walk applying git's ignore rules; True when it found the same
    tree as ``previous`` (whose tree it then keeps) and as many unreadable directories."""
    excludes = global_excludes(runner, root)
    rules = IgnoreRules(root, info_exclude=patterns.info_exclude, global_excludes=excludes)
    walked = walk(root, rules, own=patterns.own)
    if walked.stopped:
        log.warning("listing %s stopped %s: the map is partial", root, walked.stopped)
    if walked.unreadable:
        log.warning(
            "%d unreadable directories under %s skipped: %s",
            len(walked.unreadable),
            root,
            ", ".join(walked.unreadable[:5]),
        )
    tree = Tree.build(walked.paths, walked.repos)
    same = previous is not None and previous.tree.same(tree)
    if same and previous is not None:
        tree = previous.tree
    listing = Listing(
        root=root,
        tree=tree,
        in_git=False,
        unreadable=len(walked.unreadable),
        own=patterns.own,
        rules=rules,
        key_files=patterns.key_files(excludes),
        ignore_files=patterns.ignore_files,
        info_exclude=patterns.info_exclude,
        own_lines=patterns.lines,
        partial=walked.stopped,
        built=tree.version,
    )
    return listing, same and previous is not None and previous.unreadable == listing.unreadable


def settle_missing(listing: Listing) -> None:
    """Take the deleted tracked files out of a listing that did not wait for them.

    The first listing answers without them: looking for them costs a
    ``stat`` per tracked file, as much as the listing itself. A tracked file
    deleted before the provider started can so show in its first answer, and
    not after. Call before any other edit of the tree.
    """
    run, listing.pending = listing.pending, None
    if run is None:
        return
    try:
        missing = run.missing()
    except GitError as exc:
        log.warning("git cannot list deleted files in %s (%s)", listing.root, exc)
        return
    listing.known.update(missing)
    listing.missing = missing
    unedited = listing.tree.version == listing.built
    listing.tree.discard(set(missing))
    if unedited:
        listing.built = listing.tree.version


def _unique(paths: Sequence[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))
