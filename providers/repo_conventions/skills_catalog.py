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
is read again only when its key (or its ``agents/openai.yaml``'s) changed
(:class:`~providers.rules.skill_folders.SkillFolders`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from providers.core.budget import TokenCounter
from providers.core.types import Contribution, Section, Stability
from providers.repository.sources import FileKey
from providers.rules.conventions import cwd_chain
from providers.rules.skill_folders import SkillFolders
from providers.rules.skill_listing import fit_listing
from providers.rules.skills import Skill, SkillProblem, distinct

LABEL = "skills"


@dataclass(frozen=True)
class Found:
    """The skills to list, the ones that could not be read, and what proves them current."""

    skills: tuple[Skill, ...]
    problems: tuple[SkillProblem, ...]
    keys: tuple[FileKey | None, ...]


class SkillsCatalog:
    """The unconditional skills of one repository, re-checked by ``stat`` each turn."""

    def __init__(self) -> None:
        self._folders: SkillFolders | None = None

    def found(self, root: Path, working_directory: Path) -> Found:
        """The skills for a turn in ``working_directory``; unchanged folders cost a stat each."""
        if self._folders is None or self._folders.root != root:
            self._folders = SkillFolders(root)
        each = [self._folders.of(folder) for folder in ("", *cwd_chain(root, working_directory))]
        skills = distinct(s for f in each for s in f.skills if s.globs is None)
        problems = tuple(p for f in each for p in f.problems)
        return Found(tuple(skills), problems, tuple(k for f in each for k in f.keys))


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
