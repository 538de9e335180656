"""The skills catalog, repo conventions' last section: static, like the convention files.

Which skills: those in the skills folders (:data:`providers.rules.skills.SKILL_ROOTS`) of
the repository root and of each folder down to the working directory (Codex looks
from the project root down to its working directory, Claude Code from there up), but
not those with ``paths:``, which wait until a touched file matches (scoped docs).

Its budget is part of the provider's ``token_budget``: the catalog may take up to
``skills_share`` percent first, the convention files get the rest, and what they
leave goes back to the catalog. It comes last in the prompt, after the files that
always apply.

Each turn re-lists the skills folders (a ``stat`` per folder and file); a ``SKILL.md``
is read again only when its key (or its ``agents/openai.yaml``'s) changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from providers.core.budget import TokenCounter
from providers.core.types import Contribution, Section, Stability
from providers.repository.sources import FileKey, file_key, file_keys
from providers.rules.conventions import cwd_chain
from providers.rules.skill_listing import fit_listing
from providers.rules.skills import (
    CODEX_METADATA,
    Skill,
    SkillProblem,
    distinct,
    find_skill_files,
    load_skill,
    roots_present,
)

LABEL = "skills"


@dataclass(frozen=True)
class Found:
    """The skills to list, the ones that could not be read, and what proves them current."""

    skills: tuple[Skill, ...]
    problems: tuple[SkillProblem, ...]
    keys: tuple[FileKey | None, ...]


_Loaded = Skill | SkillProblem | None


class SkillsCatalog:
    """The unconditional skills of one repository, re-checked by ``stat`` each turn."""

    def __init__(self) -> None:
        self._root: Path | None = None
        self._folders: tuple[str, ...] = ()
        self._seen: tuple[str, ...] = ()
        self._found = Found((), (), ())
        self._loaded: dict[str, tuple[tuple[FileKey | None, ...], _Loaded]] = {}

    def found(self, root: Path, working_directory: Path) -> Found:
        """The skills for a turn in ``working_directory``; unchanged folders cost a stat each."""
        folders = ("", *cwd_chain(root, working_directory))
        if root != self._root:
            self._root, self._loaded = root, {}
        elif folders == self._folders and file_keys(self._seen) == self._found.keys:
            return self._found
        located: list[tuple[str, str]] = []
        seen: list[str] = []
        present: list[str] = []
        for folder in folders:
            found, watched = roots_present(root, folder)
            present.extend(found)
            seen.extend(watched)
        for skills_root in present:
            files, looked = find_skill_files(root, skills_root)
            located.extend((rel, skills_root) for rel in files)
            seen.extend(looked)
        keys = file_keys(seen)  # before reading: a file changed meanwhile is read next turn
        loaded = {rel: self._load(root, rel, skills_root) for rel, skills_root in located}
        self._loaded = {rel: self._loaded[rel] for rel in loaded}
        skills = [s for s in loaded.values() if isinstance(s, Skill) and s.globs is None]
        problems = [p for p in loaded.values() if isinstance(p, SkillProblem)]
        self._folders, self._seen = folders, tuple(seen)
        self._found = Found(tuple(distinct(skills)), tuple(problems), keys)
        return self._found

    def _load(self, root: Path, rel: str, skills_root: str) -> _Loaded:
        base = os.path.join(root, rel)
        keys = (file_key(base), file_key(os.path.join(os.path.dirname(base), CODEX_METADATA)))
        known = self._loaded.get(rel)
        if known is not None and known[0] == keys:
            return known[1]
        loaded = load_skill(root, rel, skills_root)
        self._loaded[rel] = (keys, loaded)
        return loaded


def with_catalog(
    found: Found | None,
    budget: int,
    share: int,
    counter: TokenCounter,
    conventions: Callable[[int], Contribution],
) -> Contribution:
    """``conventions(tokens)`` (the convention files fitted to ``tokens``) followed by the
    skills catalog: the catalog fitted to ``share`` percent of ``budget`` first, the files
    to what is left, then the catalog again to all the files left unused."""
    if found is None or not (found.skills or found.problems):
        return conventions(budget)
    listing = fit_listing(found.skills, found.problems, budget * share // 100, counter)
    reserved = listing.tokens if listing is not None else 0
    files = conventions(budget - reserved)
    spare = budget - sum(s.tokens for s in files.sections)
    if (listing is None or listing.truncated) and spare > reserved:
        listing = fit_listing(found.skills, found.problems, spare, counter) or listing
    if listing is None:
        return files
    section = Section(LABEL, listing.text, listing.tokens, Stability.STATIC, listing.truncated)
    return Contribution((*files.sections, section))
