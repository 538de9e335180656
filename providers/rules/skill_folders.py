"""The skills in one repository's skills folders, folder by folder, kept between turns.

Repo conventions lists the skills of the root and of the folders down to the working
directory; scoped docs lists the conditional ones and those of a touched file's
packages. Both ask a :class:`SkillFolders` (each provider its own instance: providers
share no state): a folder's skills folders are re-listed by ``stat`` each time it is
asked for (:func:`~providers.rules.skills.roots_present`, then
:func:`~providers.rules.skills.find_skill_files`), and a ``SKILL.md`` is read again only
when its key, or its ``agents/openai.yaml``'s, changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from providers.repository.sources import FileKey, file_key, file_keys
from providers.rules.skills import (
    CODEX_METADATA,
    Skill,
    SkillProblem,
    distinct,
    find_skill_files,
    load_skill,
    roots_present,
)

_Loaded = Skill | SkillProblem | None


@dataclass(frozen=True)
class FolderSkills:
    """One folder's skills (distinct, in the order found), the ``SKILL.md`` files that
    could not be read, and the keys that prove them current."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[SkillProblem, ...] = ()
    seen: tuple[str, ...] = ()
    keys: tuple[FileKey | None, ...] = ()
    loaded: tuple[tuple[str, Skill | SkillProblem | None], ...] = ()
    """Every ``SKILL.md`` found, in order, as read (``None``: not for the model), copies
    included: for ``explain``, which says why each is sent or not."""


class SkillFolders:
    """The skills of ``root``'s folders (``""``: the root itself), by folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.version = 0
        """Moves on whenever a folder's skills changed on disk (a cache key)."""
        self._folders: dict[str, FolderSkills] = {}
        self._loaded: dict[str, tuple[tuple[FileKey | None, ...], _Loaded]] = {}

    def of(self, directory: str) -> FolderSkills:
        """``directory``'s skills, re-checked by ``stat``."""
        known = self._folders.get(directory)
        if known is not None and file_keys(known.seen) == known.keys:
            return known
        located: list[tuple[str, str]] = []
        present, seen = roots_present(self.root, directory)
        for skills_root in present:
            files, looked = find_skill_files(self.root, skills_root)
            located.extend((rel, skills_root) for rel in files)
            seen.extend(looked)
        keys = file_keys(seen)  # before reading: a file changed meanwhile is read next time
        loaded = [(rel, self._load(rel, skills_root)) for rel, skills_root in located]
        found = FolderSkills(
            tuple(distinct(s for _, s in loaded if isinstance(s, Skill))),
            tuple(p for _, p in loaded if isinstance(p, SkillProblem)),
            tuple(seen),
            keys,
            tuple(loaded),
        )
        if known is not None and (found.skills, found.problems) != (known.skills, known.problems):
            self.version += 1
        self._folders[directory] = found
        return found

    def _load(self, rel: str, skills_root: str) -> _Loaded:
        base = os.path.join(self.root, rel)
        keys = (file_key(base), file_key(os.path.join(os.path.dirname(base), CODEX_METADATA)))
        known = self._loaded.get(rel)
        if known is not None and known[0] == keys:
            return known[1]
        loaded = load_skill(self.root, rel, skills_root)
        self._loaded[rel] = (keys, loaded)
        return loaded
