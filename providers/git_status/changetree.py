"""One list's changes as a tree of directories, with what each directory holds. Pure.

Built once per rendering from the list's changes (sorted by path); what
:mod:`providers.git_status.grouping` refines line by line.
"""

from __future__ import annotations

from collections.abc import Sequence

from providers.git_status.entries import Change


class Tree:
    """One list's directories, by index: ``paths[i]`` (``""`` the root, else ``src/auth/``),
    in preorder (a directory before its subdirectories; ``0`` is the root).

    A directory with no changed file of its own and one subdirectory is passed
    through: a line there would count the same changes, less precisely. So the
    root is the deepest directory holding every change (``test/``), and each
    directory's ``kids`` are the nearest directories below it that hold files
    of their own or split in two.
    """

    def __init__(self, changes: Sequence[Change]) -> None:
        files, own = _by_directory(changes)
        below: dict[str, set[str]] = {"": set()}
        for directory in files:
            step = directory
            while step:
                parent = step.rpartition("/")[0]
                known = parent in below
                below.setdefault(parent, set()).add(step)
                below.setdefault(step, set())
                if known:
                    break
                step = parent

        def through(directory: str) -> str:
            while directory not in files and len(below[directory]) == 1:
                directory = next(iter(below[directory]))
            return directory

        names: list[str] = []
        kid_names: list[list[str]] = []
        pending = [through("")]
        while pending:
            directory = pending.pop()
            names.append(directory)
            kids = sorted(through(kid) for kid in below[directory])
            kid_names.append(kids)
            pending.extend(reversed(kids))
        index = {name: i for i, name in enumerate(names)}
        self.paths = [name + "/" if name else "" for name in names]
        self.files: list[Sequence[Change]] = [files.get(name, ()) for name in names]
        self.kids: list[tuple[int, ...]] = [tuple(index[k] for k in ks) for ks in kid_names]
        self.own: list[dict[str, int]] = [own.get(name, {}) for name in names]
        """Each directory's own files, by verb."""
        self.verbs: list[dict[str, int]] = [dict(verbs) for verbs in self.own]
        """Every change under each directory, by verb."""
        self.total = [len(found) for found in self.files]
        """How many changes each directory holds, at any depth."""
        self.below = [0] * len(names)
        """How many of them are in its subdirectories."""
        self.lone_kids = [0] * len(names)
        """How many of its subdirectories hold a single change."""
        self.single: list[Change | None] = [None] * len(names)
        """The change, for a directory holding only one."""
        for node in range(len(names) - 1, -1, -1):  # subdirectories first
            verbs = self.verbs[node]
            for kid in self.kids[node]:
                self.below[node] += self.total[kid]
                self.lone_kids[node] += self.total[kid] == 1
                for verb, count in self.verbs[kid].items():
                    verbs[verb] = verbs.get(verb, 0) + count
            self.total[node] += self.below[node]
            if self.total[node] == 1:
                found = self.files[node]
                self.single[node] = found[0] if found else self.single[self.kids[node][0]]


def _by_directory(
    changes: Sequence[Change],
) -> tuple[dict[str, list[Change]], dict[str, dict[str, int]]]:
    """Each directory's changes (``src/auth``, ``""`` for the root) and their verbs.

    One flat loop: it runs over every change on every recompute, and sorted
    paths keep a directory's files together, so most turns of it reuse the last.
    An untracked directory (``build/``) sits in its parent, like a file.
    """
    files: dict[str, list[Change]] = {}
    own: dict[str, dict[str, int]] = {}
    last: str | None = None
    bucket: list[Change] = []
    verbs: dict[str, int] = {}
    for change in changes:
        directory = change.path.rstrip("/").rpartition("/")[0]
        if directory != last:
            if directory not in files:
                files[directory], own[directory] = [], {}
            bucket, verbs, last = files[directory], own[directory], directory
        bucket.append(change)
        verbs[change.verb] = verbs.get(change.verb, 0) + 1
    return files, own


__all__ = ["Tree"]
