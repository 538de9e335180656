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

from providers.file_tree.memory import LARGE_BLOCK, expect_large_blocks
from providers.file_tree.packed import PackedPaths
from providers.file_tree.tree import Tree, parent_dirs
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
)
"""The ignore files users already write for other agents (gitignore syntax, at the root):
what they hide from one tool they mean to hide from all."""


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
    """git's index, one of ``key_files``; see ``repository.listing.tracked_digest``."""
    tracked_digest: bytes = b""
    """Of the tracked files' listing alone."""
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


def list_again(
    root: Path,
    options: ListingOptions,
    runner: GitRunner,
    previous: Listing | None,
) -> tuple[Listing, bool]:
    """List ``root`` completely; True when nothing changed since ``previous``.

    An unchanged listing is ``previous`` itself, or a new one sharing its
    tree, so the tree's version (and the answer rendered from it) carries
    over. ``previous`` is dropped before a new tree is built: one listing in
    memory at a time. Raises ``OSError`` when ``root`` itself cannot be read.
    """
    ignore_files = own_ignore_files(root, options)
    lines = own_lines(options, ignore_files)
    own = PatternSet(*lines)
    gitdir = git_dir(root)
    exclude = info_exclude(gitdir) if gitdir is not None else None
    keys: list[Path] = [*ignore_files, *([exclude] if exclude is not None else [])]
    if gitdir is not None:
        keys.append(gitdir / "index")
        try:
            run = ListingRun(runner, root, on_output=_expect_large)
            relisting = previous is not None and previous.in_git
            if relisting:
                run.start_missing()  # needed at once to tell whether anything changed
            if (
                relisting  # a walk's listing is never reused: do not wait for the digest
                and previous is not None
                and previous.reusable(run.digest(), lines)
                and run.missing() == previous.missing
            ):
                return previous, True
            previous = None
            tree, unreadable = _model(run)
            digest = run.digest()
        except GitError as exc:
            log.warning("git cannot list %s (%s); walking it instead", root, exc)
        else:
            submodules: set[str] = set()
            if tree.contains(".gitmodules"):
                submodules = submodule_paths(root)
                _submodules_as_repositories(tree, submodules)
            if own:
                tree.filter(own.excluded)
            listing = Listing(
                root=root,
                tree=tree,
                in_git=True,
                unreadable=unreadable,
                own=own,
                rules=None,
                key_files=_unique(keys),
                ignore_files=ignore_files,
                info_exclude=exclude,
                submodules=frozenset(submodules),
                digest=digest,
                index=gitdir / "index",
                tracked_digest=run.tracked_digest(),
                own_lines=lines,
                built=tree.version,
                pending=run,
            )
            if relisting:
                settle_missing(listing)  # already known: the check above needed them
            return listing, False
        keys.pop()
    excludes = global_excludes(runner, root)
    if excludes is not None:
        keys.append(excludes)
    rules = IgnoreRules(root, info_exclude=exclude, global_excludes=excludes)
    walked = walk(root, rules, own=own)
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
        own=own,
        rules=rules,
        key_files=_unique(keys),
        ignore_files=ignore_files,
        info_exclude=exclude,
        own_lines=lines,
        partial=walked.stopped,
        built=tree.version,
    )
    return listing, same and previous is not None and previous.unreadable == listing.unreadable


def _one_by_one(untracked: int, tracked: int) -> bool:
    """Whether adding the untracked files to the packed tracked ones one at a time
    (each moves one block) beats packing everything again (about 1,000 adds' worth)."""
    return untracked <= 16 + tracked // 1000


def _model(run: ListingRun) -> tuple[Tree, int]:
    """The tree of what ``run`` lists, and how many directories git could not read.

    The tracked files come first (the index is quick to read): they are
    packed while git still walks the work tree for untracked ones, which
    then join them, so little is left to do once the walk ends.
    """
    tracked = run.take_tracked()
    parents = parent_dirs(tracked)
    files = PackedPaths.of(tracked)
    untracked = run.take_untracked()
    repos = {r.rstrip("/") for r in untracked.repos}
    parents.update(parent_dirs(untracked.paths), parent_dirs(repos))
    if _one_by_one(len(untracked.paths) + len(repos), len(files)):
        for path in (*untracked.paths, *repos):
            files.add(path)
    else:
        files = PackedPaths.of([*files, *untracked.paths, *repos])
    return Tree.assemble(files, repos, parents), untracked.unreadable


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


def _expect_large(size: int) -> None:
    """A listing of a megabyte or more: keep its copies returnable (see :mod:`memory`)."""
    if size >= LARGE_BLOCK:
        expect_large_blocks()


def _submodules_as_repositories(tree: Tree, paths: set[str]) -> None:
    """git lists a submodule as a plain entry; show it as the repository it is (``name/``)."""
    for path in paths:
        if tree.contains(path) and tree.find_dir(path) is None:
            tree.remove(path)
            tree.add(path + "/")


def _unique(paths: Sequence[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))
