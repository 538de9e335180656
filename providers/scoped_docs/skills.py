"""Skills that wait for the files they are about: listed once a touched file calls for them.

Two kinds, both as Claude Code lists them, for any agent:

- a skill with ``paths:`` in a skills folder of the root (or of a folder down to the
  working directory): Claude Code stores it as conditional and adds it to its listing
  once a touched file matches (its own gitignore-style matcher, the case ignored);
- a skill in a package's own skills folder (``apps/web/.claude/skills/``): Claude Code
  finds it when a file below ``apps/web/`` is touched, and names it with the folder
  (``apps/web:deploy``). We look in every tool's skills folder there, Claude Code only
  in ``.claude/skills``.

Each is listed once a session, with the file that called for it, in a section of its
own (``skills for files touched``) fitted before the docs to a quarter of the budget at
most (:data:`SKILLS_SHARE`); the docs get the rest. Folders are re-checked by ``stat``
each turn; a ``SKILL.md`` is read again only when its key changed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from providers.core.budget import TokenCounter
from providers.core.types import Section, Stability
from providers.repository.paths import ancestors
from providers.rules.skill_folders import SkillFolders
from providers.rules.skill_listing import fit_listing
from providers.rules.skills import Skill

LABEL = "skills for files touched"
HEADER = "[Skills for the files touched: when a task matches one, read its SKILL.md.]"
SKILLS_SHARE = 4
"""The listing may take 1/SKILLS_SHARE of the budget before the docs."""

MAX_PACKAGE_DEPTH = 64
"""Deepest folder (levels below the root) whose own skills folders are looked for: each
look is a dozen ``stat`` calls whose cost grows with the path, so a path 2,000 folders
deep would cost its depth squared (issue 20 item 8); no real package sits that deep."""


@dataclass
class SessionSkills:
    """The skills one session's touched files called for, in the order they did."""

    listed: dict[str, tuple[Skill, str]] = field(default_factory=dict)
    """SKILL.md path -> (the skill, the package folder its name is prefixed with or "")."""


class ScopedSkills:
    """The conditional and nested skills of one repository root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._folders = SkillFolders(root)

    @property
    def version(self) -> int:
        """Moves on whenever a skill changed on disk: the provider's cache key."""
        return self._folders.version

    def touch(
        self,
        session: SessionSkills,
        paths: Iterable[str],
        chain: Collection[str],
    ) -> bool:
        """List what the touched ``paths`` call for; ``chain`` holds the folders between the
        root and the working directory (their skills without ``paths:`` are repo
        conventions'). True when the session's listing changed."""
        before = len(session.listed)
        checked: dict[str, tuple[Skill, ...]] = {}  # each folder stat'ed once a turn

        def skills_in(directory: str) -> tuple[Skill, ...]:
            if directory not in checked:
                checked[directory] = self._in(directory)
            return checked[directory]

        conditional = [s for d in ("", *chain) for s in skills_in(d) if s.globs is not None]
        for path in paths:
            for skill in conditional:
                if skill.path not in session.listed and skill.globs and skill.globs.match(path):
                    session.listed[skill.path] = (skill, "")
            for directory in ancestors(path):
                if directory in chain or directory.count("/") >= MAX_PACKAGE_DEPTH:
                    continue
                for skill in skills_in(directory):
                    if skill.path in session.listed:
                        continue
                    if skill.globs is None or skill.globs.match(path):
                        session.listed[skill.path] = (skill, directory)
        return len(session.listed) != before

    def refresh(self, session: SessionSkills) -> bool:
        """Bring the session's listed skills up to date with the disk (an edited
        description, a deleted skill); True when any changed."""
        changed = False
        checked: dict[str, dict[str, Skill]] = {}
        for path, (skill, prefix) in list(session.listed.items()):
            folder = skill.root.rsplit("/", 2)[0] if skill.root.count("/") >= 2 else ""
            if folder not in checked:
                checked[folder] = {s.path: s for s in self._in(folder)}
            current = checked[folder].get(path)
            if current is None:
                del session.listed[path]
                changed = True
            elif current != skill:
                session.listed[path] = (current, prefix)
                changed = True
        return changed

    def _in(self, directory: str) -> tuple[Skill, ...]:
        """The skills in ``directory``'s skills folders (``""``: the root), re-checked by
        stat; a changed ``SKILL.md`` is read again."""
        return self._folders.of(directory).skills


def skills_section(session: SessionSkills, budget: int, counter: TokenCounter) -> Section | None:
    """The session's called-for skills within ``budget``; a package's skill is named with
    its folder (``apps/web:deploy``), as Claude Code names it."""
    listed = [
        replace(skill, name=f"{prefix}:{skill.name}") if prefix else skill
        for skill, prefix in session.listed.values()
    ]
    if not listed or budget <= 0:
        return None
    listing = fit_listing(listed, [], budget, counter, header=HEADER)
    if listing is None:
        return None
    return Section(LABEL, listing.text, listing.tokens, Stability.DYNAMIC, listing.truncated)
