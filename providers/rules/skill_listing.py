"""The skills catalog as text, fitted to a token budget the way the best clients fit theirs.

One entry a skill, ``- name: description (path)``, by name (Codex's order within a
scope). Over budget, in this order:

1. descriptions are shortened, all to one length (whole words, then ``…``): the longest
   length at which every entry fits. Short descriptions keep all of theirs, so what they
   do not use goes to the long ones (Codex's ``render_lines_with_description_budget``
   shares the room out the same way; Claude Code instead keeps some whole and drops
   others');
2. only when even names and paths do not all fit are whole entries left out, from the
   end, and a closing note names them by folder (Codex says only how many);
3. a note says the descriptions were shortened, so the model knows the file has more.

Skills that could not be read are named after the entries, one line each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from providers.core.budget import TokenCounter, estimate, fit
from providers.core.types import Unit
from providers.rules.skills import Skill, SkillProblem, cut

HEADER = "[Skills: when a task matches one, read its SKILL.md and follow it.]"
SHORTENED = "[Descriptions shortened to fit; each SKILL.md has the whole.]"
PROBLEMS = "[Skills not listed:]"
NAMED_PER_FOLDER = 12
"""Skill folders a left-out line names before it counts the rest."""
_CONFIRMATIONS = 4


@dataclass(frozen=True)
class Listing:
    """The fitted catalog: its text and count, and what the budget cost it."""

    text: str
    tokens: int
    shortened: bool
    left_out: int

    @property
    def truncated(self) -> bool:
        return self.shortened or self.left_out > 0


def entry(skill: Skill, limit: int | None = None) -> str:
    """One catalog line; ``limit`` caps the description (0: none shown)."""
    description = skill.description if limit is None else cut(skill.description, limit)
    if not description:
        return f"- {skill.name} ({skill.path})"
    return f"- {skill.name}: {description} ({skill.path})"


def ordered(skills: Sequence[Skill]) -> list[Skill]:
    """Catalog order: by name, then path."""
    return sorted(skills, key=lambda s: (s.name, s.path))


def fit_listing(
    skills: Sequence[Skill],
    problems: Sequence[SkillProblem],
    budget: int,
    counter: TokenCounter,
    header: str = HEADER,
) -> Listing | None:
    """The catalog within ``budget`` tokens, or ``None`` when nothing of it fits."""
    if budget <= 0 or (not skills and not problems):
        return None
    entries = ordered(skills)
    notes = [f"- {p.note}" for p in sorted(problems, key=lambda p: p.path)]
    longest = max((len(s.description) for s in entries), default=0)

    def text(limit: int | None, kept: int) -> str:
        return _text(entries, notes, limit, kept, header)

    full = text(None, len(entries))
    if estimate([full]) <= budget:
        tokens = counter.count(full)
        if tokens <= budget:
            return Listing(full, tokens, False, 0)
    # Every entry, descriptions as long as the budget allows.
    limit = _longest_fitting(lambda n: estimate([text(n, len(entries))]), longest, budget)
    for _ in range(_CONFIRMATIONS):
        if limit is None:
            break
        candidate = text(limit, len(entries))
        tokens = counter.count(candidate)
        if tokens <= budget:
            return Listing(candidate, tokens, limit < longest, 0)
        # The kernel counts denser than our estimate: scale the aim by how much, look again.
        target = max(0, estimate([candidate]) * budget // tokens - 1)
        limit = _longest_fitting(lambda n: estimate([text(n, len(entries))]), limit - 1, target)
    # Not even every name fits: whole entries go from the end, the note names them.
    units = [Unit(entry(s, 0), s.root, s.folder, order=i) for i, s in enumerate(entries)]

    def write(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        return (text(0, len(kept)),)

    fitted = fit(units, budget, write, counter)
    if fitted is None:
        return None
    shortened = longest > 0
    return Listing(fitted.texts[0], fitted.counts[0], shortened, len(fitted.dropped))


def _longest_fitting(measure: Callable[[int], int], upper: int, budget: int) -> int | None:
    """The largest description limit in ``[0, upper]`` whose estimated size (growing with
    the limit) fits ``budget``, or ``None``."""
    if upper < 0 or measure(0) > budget:
        return None
    low, high = 0, upper
    while low < high:
        middle = (low + high + 1) // 2
        if measure(middle) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def _text(
    entries: Sequence[Skill], notes: Sequence[str], limit: int | None, kept: int, header: str
) -> str:
    """The catalog: header, the first ``kept`` entries (descriptions within ``limit``), the
    skills that could not be read, and what was shortened or left out."""
    blocks = [header + "\n" + "".join(entry(s, limit) + "\n" for s in entries[:kept])]
    if notes:
        blocks.append(PROBLEMS + "\n" + "".join(n + "\n" for n in notes))
    shortened = limit is not None and any(len(s.description) > limit for s in entries[:kept])
    if kept < len(entries):
        blocks.append(_left_out(entries[kept:]))
    elif shortened:
        blocks.append(SHORTENED + "\n")
    return "\n".join(b.rstrip("\n") + "\n" for b in blocks if b.strip())


def _left_out(dropped: Sequence[Skill]) -> str:
    """The closing note: the skills left out, by skills folder, so they can still be read."""
    by_root: dict[str, list[str]] = {}
    for skill in dropped:
        by_root.setdefault(skill.root, []).append(skill.folder)
    lines = [f"[{len(dropped)} more skills left out to fit; each is FOLDER/SKILL.md:]"]
    for root, folders in by_root.items():
        shown = ", ".join(folders[:NAMED_PER_FOLDER])
        more = len(folders) - NAMED_PER_FOLDER
        lines.append(f"- {root}: {shown}" + (f" and {more} more" if more > 0 else ""))
    return "\n".join(lines) + "\n"
