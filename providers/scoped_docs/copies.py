"""What repo conventions already sends, so scoped docs does not send it a second time.

Repo conventions sends the root's convention files and those between the
root and the working directory (:mod:`providers.rules.conventions`, its
defaults). A doc that is one of those files under another path (langfuse:
the root ``AGENTS.md`` is a symlink to ``.agents/AGENTS.md``, which is also a
nested doc for everything under ``.agents/``) or says the same after
stripping and imports is a copy: showing it again would spend the budget on
text the prompt already holds.

Each turn costs one ``stat`` per candidate file; files are read again only
when a key changed.
"""

from __future__ import annotations

import os
from pathlib import Path

from providers.repository.sources import FileKey, Unavailable, file_key, stat_key
from providers.rules.conventions import ROOT_CONVENTION_FILES, cwd_convention_paths
from providers.rules.expand import ImportPolicy, load_expanded
from providers.rules.load import Rule


class ConventionCopies:
    """The files and texts repo conventions sends for one root and working directory."""

    def __init__(self, imports: ImportPolicy | None = None) -> None:
        self._imports = imports or ImportPolicy()
        """How the files' ``@imports`` are read: as scoped docs reads nested docs'."""
        self._keys: tuple[FileKey | None, ...] | None = None
        self._paths: tuple[str, ...] = ()
        self._files: frozenset[tuple[int, int]] = frozenset()
        self._texts: frozenset[str] = frozenset()
        self.version = 0
        """Bumped whenever what is sent changes: part of the provider's cache key."""

    def update(self, root: Path, working_directory: Path) -> None:
        """Re-check by ``stat``; ``version`` moves on when what repo conventions sends changed."""
        paths = (*ROOT_CONVENTION_FILES, *cwd_convention_paths(root, working_directory))
        base = os.fspath(root)
        keys = tuple(file_key(os.path.join(base, path)) for path in paths)  # the cheap check
        if paths == self._paths and keys == self._keys:
            return
        files: set[tuple[int, int]] = set()
        texts: set[str] = set()
        for path in paths:
            key = stat_key(root, root / path)  # confined: a link out of the repository is not ours
            if key is None:
                continue
            files.add((key.device, key.inode))
            loaded = load_expanded(root, path, self._imports)
            if not isinstance(loaded, Unavailable) and loaded.text.strip():
                texts.add(loaded.text)
        changed = frozenset(files) != self._files or frozenset(texts) != self._texts
        self._paths, self._keys = paths, keys
        self._files, self._texts = frozenset(files), frozenset(texts)
        if changed:
            self.version += 1

    def holds(self, rule: Rule) -> bool:
        """Whether ``rule`` is one of those files, or says what one of them says."""
        return (rule.key.device, rule.key.inode) in self._files or rule.text in self._texts
