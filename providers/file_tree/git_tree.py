"""git's listing as a :class:`Tree`: packed while git still walks, as the memory tuning wants.

The tracked files come first (the index is quick to read) and are packed
while git walks the work tree for untracked ones; submodules, which git lists
as plain entries, are shown as the repositories they are.
"""

from __future__ import annotations

from providers.file_tree.memory import LARGE_BLOCK, expect_large_blocks
from providers.file_tree.packed import PackedPaths
from providers.file_tree.tracked import TrackedBlocks
from providers.file_tree.tree import Tree, parent_dirs
from providers.repository.listing import ListingRun


def _one_by_one(untracked: int, tracked: int) -> bool:
    """Whether adding the untracked files to the packed tracked ones one at a time
    (each moves one block) beats packing everything again (about 1,000 adds' worth)."""
    return untracked <= 16 + tracked // 1000


def tree_of(run: ListingRun) -> tuple[Tree, int, TrackedBlocks | None]:
    """The tree of what ``run`` lists, how many directories git could not read, and the
    hashes of the tracked files' listing (None when a path is not UTF-8).

    The tracked files come first (the index is quick to read): they are
    packed while git still walks the work tree for untracked ones, which
    then join them, so little is left to do once the walk ends.
    """
    tracked = run.take_tracked()
    parents = parent_dirs(tracked)
    hashed: list[TrackedBlocks] = []
    files = PackedPaths.of(tracked, lambda joined: hashed.append(TrackedBlocks.of(joined)))
    untracked = run.take_untracked()
    repos = {r.rstrip("/") for r in untracked.repos}
    parents.update(parent_dirs(untracked.paths), parent_dirs(repos))
    if _one_by_one(len(untracked.paths) + len(repos), len(files)):
        for path in (*untracked.paths, *repos):
            files.add(path)
    else:
        files = PackedPaths.of([*files, *untracked.paths, *repos])
    tree = Tree.assemble(files, repos, parents)
    return tree, untracked.unreadable, hashed[0] if hashed else None


def expect_large(size: int) -> None:
    """A listing of a megabyte or more: keep its copies returnable (see :mod:`memory`)."""
    if size >= LARGE_BLOCK:
        expect_large_blocks()


def submodules_as_repositories(tree: Tree, paths: set[str]) -> None:
    """git lists a submodule as a plain entry; show it as the repository it is (``name/``)."""
    for path in paths:
        if tree.contains(path) and tree.find_dir(path) is None:
            tree.remove(path)
            tree.add(path + "/")
