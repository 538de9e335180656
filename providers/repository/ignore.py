"""Gitignore semantics for directories git does not list for us: the one copy of the rules.

Inside a repository providers ask git (``git ls-files``, ``git check-ignore``):
it is exact and fast. Elsewhere :class:`IgnoreRules` applies the same rules
with :mod:`providers.repository.wildmatch` (each line exactly as git reads it): each
``.gitignore`` re-rooted at its own directory, ``$GIT_COMMON_DIR/info/exclude``,
the global excludes file, and the default excludes (``.git``), which never
appear anywhere. :class:`PatternSet` holds our own patterns (config ``exclude``,
``.contextignore``), applied on top of git's.

Precedence (gitignore(5)): a deeper ``.gitignore`` beats a shallower one, any
``.gitignore`` beats ``info/exclude``, which beats the global file; within one
file the last matching pattern wins, and a negation decides too. Nothing
inside an excluded directory can be re-included: a walk never enters one, and
the ``*_path`` methods check every ancestor for callers holding one path.

Paths are repo-relative POSIX strings, matched as their bytes on disk; a
``build/`` pattern matches directories only, and a symlink to a directory is
a file, as in git.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from providers.repository.paths import ancestors
from providers.repository.wildmatch import Rule, compile_rules, path_bytes

log = logging.getLogger(__name__)

DEFAULT_EXCLUDES: frozenset[str] = frozenset({".git"})
"""Names never listed at any depth: git's own directory (or worktree file)."""

GITIGNORE = ".gitignore"
MAX_PATTERN_FILE_BYTES = 4 * 1024 * 1024
"""An ignore file larger than this is not a real ignore file; it is skipped (logged)."""

_BOM = "\ufeff"


def parse_patterns(data: bytes) -> list[str]:
    """Split an ignore file as git does: ``\\n`` lines, one trailing ``\\r`` dropped, no BOM.

    Not ``str.splitlines``: it also splits on characters that are legal in
    file names. Undecodable bytes survive as surrogates, as in ``os.fsdecode``
    of the paths they are matched against.
    """
    text = os.fsdecode(data).removeprefix(_BOM)
    return [line.removesuffix("\r") for line in text.split("\n")]


def read_patterns(path: Path, *, follow: bool = False) -> list[str]:
    """The lines of an ignore file; none when it is missing, unreadable, not a file or too big.

    git (since 2.32) does not follow a symlinked in-tree ``.gitignore``, which
    also keeps the read inside the tree: so by default a symlink gives
    nothing. git does follow ``info/exclude`` and the global excludes file
    (``follow``), which live outside the tree anyway.
    """
    nofollow = 0 if follow else getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_RDONLY | nofollow | os.O_NONBLOCK)
    except OSError:
        return []
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return []
        if st.st_size > MAX_PATTERN_FILE_BYTES:
            log.warning("ignore file %s is too large (%d bytes); skipped", path, st.st_size)
            return []
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(MAX_PATTERN_FILE_BYTES + 1)
    except OSError as exc:
        log.warning("ignore file %s unreadable (%s); skipped", path, exc)
        return []
    finally:
        os.close(fd)
    return parse_patterns(data)


class Patterns:
    """One file's patterns, matched the way git matches them: against the path itself.

    git never matches a pattern against an ancestor: it just does not
    descend into an excluded directory. So a match through an ancestor is
    not a match here (:meth:`~providers.repository.wildmatch.Rule.hits`); otherwise
    ``!sub/`` in a deeper ``.gitignore`` would wrongly re-include
    ``sub/a.txt`` ignored by ``*.txt`` higher up.
    """

    __slots__ = ("_rules",)

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._rules = tuple(reversed(rules))  # last matching pattern wins

    def decide(self, rel: bytes, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a negation; None: no pattern matches ``rel``.

        ``rel`` is the path's bytes (:func:`~providers.repository.wildmatch.path_bytes`),
        encoded once for all the files a walk consults about it.
        """
        for rule in self._rules:
            if rule.hits(rel, is_dir):
                return rule.include
        return None


def compile_patterns(lines: Iterable[str]) -> Patterns | None:
    """The patterns in ``lines``, or ``None`` when there are none (comments, blanks).

    Every line git accepts compiles; one git would never match (``foo\\``, an
    unclosed ``[``) matches nothing here too.
    """
    rules = compile_rules(lines)
    return Patterns(rules) if rules else None


def default_global_excludes(environ: Mapping[str, str]) -> Path | None:
    """Where git looks when ``core.excludesFile`` is unset: ``$XDG_CONFIG_HOME/git/ignore``.

    ``environ`` is passed in (the core reads no environment); ``HOME`` gives
    ``~/.config/git/ignore`` when ``XDG_CONFIG_HOME`` is unset or empty.
    """
    xdg = environ.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg) / "git" / "ignore"
    home = environ.get("HOME")
    if home:
        return Path(home) / ".config" / "git" / "ignore"
    return None


class PatternSet:
    """Gitignore-style patterns rooted at the repository root, applied on top of git's rules.

    Several files of patterns (config ``exclude``, ``.contextignore``, each AI
    tool's ignore file) are separate groups: a path is excluded when any group
    excludes it, so one tool's ``!negation`` never re-includes what another
    file hides.
    """

    def __init__(self, lines: Sequence[str], *groups: Sequence[str]) -> None:
        compiled = (compile_patterns(group) for group in (lines, *groups))
        self._specs = tuple(spec for spec in compiled if spec is not None)

    def __bool__(self) -> bool:
        return bool(self._specs)

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True: a group excludes ``rel``; False: a negation keeps it; None: no match."""
        encoded = path_bytes(rel)
        decisions = [spec.decide(encoded, is_dir) for spec in self._specs]
        if True in decisions:
            return True
        return False if False in decisions else None

    def excluded(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` matches (assuming no ancestor does)."""
        return self.decide(rel, is_dir) is True

    def excluded_path(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` or any of its ancestor directories matches."""
        if not self._specs:
            return False
        return any(self.excluded(a, True) for a in reversed(ancestors(rel))) or self.excluded(
            rel, is_dir
        )


class DirMatcher:
    """The rules in force inside one directory, deepest first, ready for its entries.

    Each rule file sees the path from its own directory: ``cut`` bytes of the
    repo-relative path go (``len`` of the directory's bytes plus the ``/``).
    """

    __slots__ = ("_chain", "_prefix")

    def __init__(self, prefix: str, chain: Sequence[tuple[int, Patterns]]) -> None:
        self._prefix = path_bytes(prefix)
        self._chain = chain

    def decide(self, name: str, is_dir: bool) -> bool | None:
        """True: the entry ``name`` is ignored; False: a negation keeps it; None: no rule decides.

        What ``git check-ignore -v`` tells apart; a walk only needs :meth:`excluded`.
        """
        if name in DEFAULT_EXCLUDES:
            return True
        if not self._chain:
            return None
        rel = self._prefix + path_bytes(name)
        for cut, spec in self._chain:
            decision = spec.decide(rel[cut:], is_dir)
            if decision is not None:
                return decision
        return None

    def excluded(self, name: str, is_dir: bool) -> bool:
        """Whether the entry ``name`` of this directory is ignored."""
        return self.decide(name, is_dir) is True


class IgnoreRules:
    """git's ignore rules for the tree under ``root``, with ``.gitignore`` files read on demand.

    Each directory's ``.gitignore`` is read once and cached; build a new
    instance when one changes.
    """

    def __init__(
        self,
        root: Path,
        *,
        info_exclude: Path | None = None,
        global_excludes: Path | None = None,
    ) -> None:
        self._root = root
        self._dir_specs: dict[str, Patterns | None] = {}
        self._matchers: dict[str, DirMatcher] = {}
        self._dirs_out: dict[str, bool] = {}  # directory -> excluded, itself or an ancestor
        # Lowest precedence last; matched against the repo-relative path (cut 0).
        self._base: list[tuple[int, Patterns]] = []
        for path in (info_exclude, global_excludes):
            lines = read_patterns(path, follow=True) if path is not None else []
            spec = compile_patterns(lines)
            if spec is not None:
                self._base.append((0, spec))

    def _dir_spec(self, rel_dir: str) -> Patterns | None:
        if rel_dir not in self._dir_specs:
            directory = self._root / rel_dir if rel_dir else self._root
            self._dir_specs[rel_dir] = compile_patterns(read_patterns(directory / GITIGNORE))
        return self._dir_specs[rel_dir]

    def matcher(self, rel_dir: str) -> DirMatcher:
        """Rules for the entries of ``rel_dir`` ("" for the root); its ancestors must be in."""
        found = self._matchers.get(rel_dir)
        if found is None:
            found = self._matchers[rel_dir] = self._matcher(rel_dir)
        return found

    def _matcher(self, rel_dir: str) -> DirMatcher:
        chain: list[tuple[int, Patterns]] = []
        dirs = [*reversed(ancestors(rel_dir)), rel_dir] if rel_dir else []
        for directory in reversed(["", *dirs]):
            spec = self._dir_spec(directory)
            if spec is not None:
                chain.append((len(path_bytes(directory)) + 1 if directory else 0, spec))
        chain.extend(self._base)
        return DirMatcher(rel_dir + "/" if rel_dir else "", chain)

    def excluded(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is ignored, assuming none of its ancestor directories is."""
        parent, _, name = rel.rpartition("/")
        return self.matcher(parent).excluded(name, is_dir)

    def excluded_path(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is ignored, itself or through an ignored ancestor directory."""
        parent = rel.rpartition("/")[0]
        return self._directory_out(parent) or self.excluded(rel, is_dir)

    def _directory_out(self, rel_dir: str) -> bool:
        """Whether directory ``rel_dir`` or an ancestor is ignored (remembered per directory)."""
        pending: list[str] = []
        directory = rel_dir
        out = False
        while directory:
            known = self._dirs_out.get(directory)
            if known is not None:
                out = known
                break
            pending.append(directory)
            directory = directory.rpartition("/")[0]
        for directory in reversed(pending):
            out = out or self.excluded(directory, True)
            self._dirs_out[directory] = out
        return out
