"""Skills: ``SKILL.md`` files that agents list by name and description and read on demand.

Every agent that reads skills does it in three tiers: a catalog of names and
descriptions in context from the start, a skill's body read when the model decides
it needs it, the files bundled with it read when the body points at them. We send
the first tier (:mod:`providers.rules.skill_listing`); each entry names its
``SKILL.md`` so any agent reads the rest with its own file tool.

Where skills live (:data:`SKILL_ROOTS`): ``.agents/skills/`` is the shared location,
each tool has its own folder too. A skill is a folder holding ``SKILL.md``; folders
are searched six levels deep, hidden ones skipped (Codex's ``discover_skills_under_root``;
Claude Code and Gemini CLI look one level deep only, so a deeper skill is one they
do not list). What a skill says about itself:

- ``name``, else its folder's name (Codex, Claude Code);
- ``description``, with Claude Code's ``when_to_use`` after it (`` - ``), else the
  body's first line, as Claude Code derives one; cut at 1,536 characters (Claude Code's
  ``skillListingMaxDescChars``);
- not for the model: ``disable-model-invocation: true`` (Claude Code, Copilot, Cursor),
  or Codex's ``agents/openai.yaml`` with ``policy.allow_implicit_invocation: false``;
- ``paths``: globs that make it conditional (Claude Code lists it once a touched file
  matches; matched by Claude Code's own gitignore-style matcher, the case ignored, as
  its rules' ``paths`` are (:mod:`providers.rules.claude_glob`), a trailing ``/**``
  dropped and ``**`` alone meaning unconditional).

One skill in several places is listed once (:func:`distinct`): the same real file (a
symlinked folder), or the same name with the same text (copies made for each tool).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from providers.markdown import normalise_newlines, split_front_matter
from providers.repository.sources import FileKey, SourceText, Unavailable, read_text
from providers.rules.flavours import Flavour
from providers.rules.frontmatter import FrontMatterError, parse_front_matter
from providers.rules.globs import GlobError, GlobSet, parse_globs

SKILL_FILE = "SKILL.md"

SKILL_ROOTS: tuple[str, ...] = (
    ".agents/skills",
    ".claude/skills",
    ".github/skills",
    ".cursor/skills",
    ".gemini/skills",
    ".codex/skills",
    ".opencode/skills",
    ".windsurf/skills",
    ".kiro/skills",
    ".junie/skills",
    ".cline/skills",
    ".clinerules/skills",
    ".roo/skills",
)
"""Skills folders, repo-relative, in precedence order (a copy found later is the same
skill). ``.agents/skills`` first: Codex, Gemini CLI, Copilot, Cursor, Cline, Windsurf,
OpenCode, Roo Code and Amp all read it. Then each tool's own: Claude Code's (also read by
Copilot, Cursor, Cline, OpenCode and Windsurf), Copilot's, Cursor's, Gemini CLI's,
Codex's (its project config folder), OpenCode's, Windsurf's, Kiro's, Junie's, Cline's
two and Roo Code's."""

MAX_DEPTH = 6
"""Folder levels searched below a skills folder (Codex's ``MAX_SCAN_DEPTH``)."""
MAX_SKILL_FOLDERS = 2_000
"""Folders searched in one skills folder (Codex's ``MAX_SKILLS_DIRS_PER_ROOT``)."""
MAX_DESCRIPTION = 1_536
"""Characters of a description kept in the catalog (Claude Code's
``skillListingMaxDescChars`` default); the rest is in the file."""
DERIVED_DESCRIPTION = 100
"""A description taken from the body's first line is cut at this many characters (Claude
Code's ``xdt``)."""
ELLIPSIS = "\u2026"

CODEX_METADATA = "agents/openai.yaml"
"""Codex's per-skill metadata file, beside ``SKILL.md``."""

Reader = Callable[[Path, Path], SourceText | Unavailable]


@dataclass(frozen=True)
class Skill:
    """One skill as the catalog names it."""

    name: str
    description: str
    path: str
    """Repo-relative path of its ``SKILL.md``."""
    root: str
    """The skills folder it was found in (``.claude/skills``, ``pkg/.claude/skills``)."""
    key: FileKey
    digest: str
    """Of its text: the same name and text in two folders is one skill."""
    globs: GlobSet | None = None
    """``paths:``: listed only once a touched file matches (scoped docs)."""

    @property
    def folder(self) -> str:
        """Its folder below :attr:`root` (``deploy`` for ``.claude/skills/deploy/SKILL.md``)."""
        inner = self.path[len(self.root) + 1 :]
        return PurePosixPath(inner).parent.as_posix()

    @property
    def identity(self) -> tuple[int, int]:
        return self.key.device, self.key.inode


@dataclass(frozen=True)
class SkillProblem:
    """A ``SKILL.md`` we found but cannot list; ``note`` is its one line."""

    path: str
    note: str


def roots_present(root: Path, directory: str) -> tuple[list[str], list[str]]:
    """(the skills folders of ``directory`` whose tool folder exists, the paths whose keys
    say whether that changed): one directory listing instead of a ``stat`` per tool. The
    directory's own key changes when a tool folder comes or goes, a tool folder's when
    its ``skills`` does."""
    base = os.path.join(root, directory)
    watched = [base]
    try:
        with os.scandir(base) as entries:
            names = {e.name for e in entries if e.name.startswith(".")}
    except OSError:
        return [], watched
    present = [r for r in SKILL_ROOTS if r.split("/", 1)[0] in names]
    watched.extend(
        os.path.join(base, t) for t in dict.fromkeys(r.split("/", 1)[0] for r in present)
    )
    return [f"{directory}/{r}" if directory else r for r in present], watched


def find_skill_files(root: Path, skills_root: str) -> tuple[list[str], list[str]]:
    """(repo-relative ``SKILL.md`` paths, every folder and file looked at) under one skills
    folder: six levels deep, hidden names skipped, symlinked folders followed as Codex
    follows them, but never out of the repository (nothing outside it is looked at)."""
    top = os.path.join(root, skills_root)
    found: list[str] = []
    seen: list[str] = [top]
    if not os.path.isdir(top):
        return found, seen
    inside = os.path.realpath(root)
    base_depth = top.rstrip(os.sep).count(os.sep)
    for folders, (current, subdirs, files) in enumerate(os.walk(top, followlinks=True)):
        if folders >= MAX_SKILL_FOLDERS:
            break
        real = os.path.realpath(current)
        if real != inside and not real.startswith(inside + os.sep):
            subdirs[:] = []
            continue
        depth = current.rstrip(os.sep).count(os.sep) - base_depth
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        if depth >= MAX_DEPTH:
            subdirs[:] = []
        seen.append(current)
        if SKILL_FILE in files:
            rel = os.path.relpath(os.path.join(current, SKILL_FILE), root)
            found.append(PurePosixPath(*Path(rel).parts).as_posix())
            seen.append(os.path.join(current, SKILL_FILE))
            seen.append(os.path.join(current, *CODEX_METADATA.split("/")))
    return found, seen


def load_skill(
    root: Path, rel: str, skills_root: str, reader: Reader = read_text
) -> Skill | SkillProblem | None:
    """The skill at ``rel``, a problem to report, or ``None`` when it is not for the model."""
    source = reader(root, Path(rel))
    if isinstance(source, Unavailable):
        return SkillProblem(rel, f"{rel}: not listed ({source.reason})")
    text = normalise_newlines(source.text)
    raw, body = split_front_matter(text)
    try:
        meta = parse_front_matter(raw, ("paths",))
    except FrontMatterError as exc:
        return SkillProblem(rel, f"{rel}: not listed, {exc}")
    if _true(meta.get("disable-model-invocation")) or _codex_hides(root, rel, reader):
        return None
    folder = PurePosixPath(rel).parent.name
    name = _line(meta.get("name")) or folder
    try:
        globs = _paths(meta.get("paths"))
    except GlobError as exc:
        return SkillProblem(rel, f"{rel}: not listed, 'paths': {exc}")
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return Skill(name, _description(meta, body), rel, skills_root, source.key, digest, globs)


def distinct(skills: Iterable[Skill]) -> list[Skill]:
    """``skills`` without repeats, the first of each kept: the same real file, or the same
    name and text (one skill copied into each tool's folder)."""
    files: set[tuple[int, int]] = set()
    copies: set[tuple[str, str]] = set()
    kept: list[Skill] = []
    for skill in skills:
        if skill.identity in files or (skill.name, skill.digest) in copies:
            continue
        files.add(skill.identity)
        copies.add((skill.name, skill.digest))
        kept.append(skill)
    return kept


def _true(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value is True


def _line(value: object) -> str:
    """A front matter string on one line ("" for anything else)."""
    return " ".join(value.split()) if isinstance(value, str) else ""


def _description(meta: Mapping[str, Any], body: str) -> str:
    """What the catalog says of a skill (Claude Code's ``description - when_to_use``), else
    the body's first line, cut to :data:`MAX_DESCRIPTION`."""
    description = _line(meta.get("description"))
    when = _line(meta.get("when_to_use"))
    if description and when:
        description = f"{description} - {when}"
    elif not description:
        description = when or _first_line(body)
    return cut(description, MAX_DESCRIPTION)


def _first_line(body: str) -> str:
    for line in body.split("\n"):
        text = line.strip()
        if text:
            text = text.lstrip("#").strip() if text.startswith("#") else text
            return cut(text, DERIVED_DESCRIPTION)
    return ""


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: the whole words that fit, then ``…`` ("" when
    not even the first word fits)."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ""
    head = text[: limit - 1]
    if text[limit - 1] != " ":
        space = head.rfind(" ")
        head = head[:space] if space > 0 else ""
    head = head.rstrip(" ,;:.-")
    return head + ELLIPSIS if head else ""


def _paths(value: object) -> GlobSet | None:
    """``paths:`` as Claude Code reads it: a trailing ``/**`` dropped, empty entries gone,
    nothing or ``**`` alone meaning no condition."""
    patterns = [p[:-3] if p.endswith("/**") else p for p in parse_globs(value)]
    patterns = [p for p in patterns if p]
    if not patterns or all(p == "**" for p in patterns):
        return None
    return GlobSet(patterns, Flavour.CLAUDE)


def _codex_hides(root: Path, rel: str, reader: Reader) -> bool:
    """Codex's ``agents/openai.yaml`` says the model may not choose the skill by itself
    (``policy.allow_implicit_invocation: false``). A file that does not parse hides
    nothing: Codex fails open there."""
    path = PurePosixPath(rel).parent / CODEX_METADATA
    if not os.path.isfile(root / path):
        return False
    source = reader(root, Path(path))
    if isinstance(source, Unavailable):
        return False
    try:
        data = parse_front_matter(normalise_newlines(source.text))
    except FrontMatterError:
        return False
    policy = data.get("policy")
    return isinstance(policy, dict) and policy.get("allow_implicit_invocation") is False
