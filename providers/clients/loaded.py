"""What a client puts before the model by itself: the bridge never sends it again.

The root-level facts are :func:`providers.clients.facts.loaded_conventions` (measured
against each client). Beyond the root:

- Claude Code loads ``CLAUDE.md`` (with ``CLAUDE.local.md`` and ``.claude/CLAUDE.md``)
  and ``.claude/rules/`` (always-on at start, ``paths:`` rules when a matching file is
  read), nested ``CLAUDE.md`` files when a file below them is read or written, and
  ``AGENTS.md`` the same way only when there is no ``CLAUDE.md`` at the root nor in its
  folder (and not after a Bash read); it expands ``@imports`` in what it loads, so a
  ``CLAUDE.md`` that says ``@AGENTS.md`` brings ``AGENTS.md`` in.
- Gemini CLI loads ``GEMINI.md`` files, the root's and those below it, expanding
  ``@imports`` the same way.
- Codex CLI loads ``AGENTS.md`` (``AGENTS.override.md`` before it) in each directory
  from the root down to its working directory, never below it, and expands nothing.

Convention files and rules of other tools (Cursor, Copilot, Windsurf, Cline, Continue,
Kiro) are loaded by none of the three.

Beyond files (:data:`providers.clients.facts.NATIVE`): Claude Code's git snapshot at the
session's start, Gemini CLI's folder listing, the skills each client lists. A file the
client loads is recognised by path, by real path (``CLAUDE.md`` a symlink to
``AGENTS.md``) and by text (a copy). Nested files and ``paths:`` rules Claude Code
attaches only after a Read, or a Bash read it recognises (:mod:`claude_bash`):
:meth:`OwnLoads.during` says which event is being answered.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Literal

from providers.clients import facts
from providers.clients.deltas import Piece
from providers.core.section_text import tree_counts
from providers.repository.paths import confine, repo_relative
from providers.repository.sources import Unavailable
from providers.rules.expand import ImportPolicy, load_expanded
from providers.rules.import_styles import ImportStyle
from providers.rules.skills import Skill, load_skill

SKILLS_LABEL = "skills"
"""The repo conventions section listing skills (``repo_conventions.skills_catalog``)."""
ALIASES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", "AGENTS.override.md", "CLAUDE.local.md")
"""Convention file names that may be one file under several names (symlinks, copies)."""
Scoped = Literal["all", "some", "none"]

MAX_IMPORT_DEPTH = 5
"""Claude Code follows imports five hops deep; Gemini CLI's memport likewise."""


@dataclass(frozen=True)
class OwnLoads:
    """The repository files one client shows the model without us."""

    client: str
    names: frozenset[str]
    """File names it loads (at the root; at any depth when ``nested``)."""
    prefixes: tuple[str, ...]
    """Directories whose files it loads (``.claude/rules/``)."""
    paths: frozenset[str]
    """Exact repo-relative paths: companions, imports, Codex's working-directory chain."""
    nested: bool
    root: Path | None = None
    """The repository (resolved), to compare real paths and texts; None: names only."""
    skills: frozenset[str] = frozenset()
    """Names of the skills it lists itself."""
    at_root: bool = True
    """It works at the root (Gemini CLI lists its working directory, not the root)."""
    starting: bool = True
    """Answering a session's start (its own git snapshot and listing are there)."""
    scoped: Scoped = "all"
    """After a tool: whether it attached nested files and ``paths:`` rules itself for all
    the files the tool named, some (``followed``), or none."""
    followed: tuple[str, ...] = ()
    shell: bool = False
    """The tool was a shell command (Claude Code attaches no nested AGENTS.md then)."""
    _alias_cache: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    @property
    def native(self) -> facts.Native:
        return facts.NATIVE[self.client]

    def during(
        self,
        *,
        starting: bool,
        scoped: Scoped = "all",
        followed: Sequence[str] = (),
        shell: bool = False,
    ) -> OwnLoads:
        """The same loads while answering one event: a session's start (or not), and after
        a tool, for which files the client attached nested files and rules itself."""
        return replace(
            self,
            starting=starting,
            scoped=scoped,
            followed=tuple(followed),
            shell=shell,
            _alias_cache={},
        )

    def covers(self, path: str) -> bool:
        """Whether the client shows the file at ``path`` itself, under that name or
        another (a symlink, a copy, in the same folder or at the root)."""
        if not path:
            return False
        if self._direct(path):
            return True
        if self.root is None or PurePosixPath(path).name not in ALIASES:
            return False
        known = self._alias_cache.get(path)
        if known is None:
            known = any(self._direct(other) for other in _aliases(self.root, path, self.paths))
            self._alias_cache[path] = known
        return known

    def _direct(self, path: str) -> bool:
        if path in self.paths:
            return True
        if path.startswith(self.prefixes):
            # paths: rules come with a read; always-on ones are loaded at the start
            return self.starting or self._attached(path, rule=True)
        name = PurePosixPath(path).name
        if name not in self.names:
            return False
        if "/" not in path:
            return True
        if not self.nested:
            return False
        if self.native.scoped_on:  # Claude: nested files only as it reads below them
            if self.shell and name not in self.native.nested_on_shell:
                return False
            if self._displaced(path, name):
                return False
            return self._attached(path, rule=False)
        return True

    def _displaced(self, path: str, name: str) -> bool:
        """Whether a file it loads only without another (AGENTS.md without CLAUDE.md) has
        that other one beside it, in its own folder (Claude Code reads that one there)."""
        unless = facts.FACTS[self.client].loads_unless.get(name)
        if unless is None or self.root is None:
            return False
        return (self.root / PurePosixPath(path).parent / unless).is_file()

    def _attached(self, path: str, *, rule: bool) -> bool:
        if self.scoped == "all":
            return True
        if self.scoped == "none" or rule:
            return False  # which rule matched which file is not known here: send it
        folder = PurePosixPath(path).parent.as_posix()
        return any(f.startswith(f"{folder}/") for f in self.followed)

    def __call__(self, piece: Piece) -> bool:
        if piece.kind == "git_status":
            return self.starting and self.native.git_snapshot
        if piece.kind == "file_tree":
            listed = _listed_whole(piece.text, self.native.listing_items)
            return self.starting and self.at_root and listed
        return self.covers(piece.path)

    def trim(self, pieces: Sequence[Piece]) -> list[Piece]:
        """``pieces`` without the skills the client lists itself (the catalog without
        their entries, or with none left, no catalog)."""
        out = []
        for piece in pieces:
            if piece.kind == "conventions" and piece.label == SKILLS_LABEL and self.skills:
                kept = _without_skills(piece.text, self.skills, self.native.skill_roots)
                if kept is None:
                    continue
                piece = replace(piece, text=kept)
            out.append(piece)
        return out


_ENTRY = re.compile(r"^- (?P<name>[^:(]+?)(?::| \().*\((?P<path>[^()]+)\)$")


def _without_skills(text: str, names: frozenset[str], roots: Sequence[str]) -> str | None:
    """The catalog ``text`` without entries of skills named in ``names`` or kept in one
    of ``roots`` one folder down; None when no entry is left."""
    kept: list[str] = []
    entries = 0
    for line in text.split("\n"):
        match = _ENTRY.match(line)
        if match is None:
            kept.append(line)
            continue
        path = PurePosixPath(match["path"])
        listed = match["name"].strip() in names or (
            len(path.parts) >= 3 and path.parent.parent.as_posix() in roots
        )
        if not listed:
            kept.append(line)
            entries += 1
    return "\n".join(kept) if entries else None


def _listed_whole(tree: str, items: int) -> bool:
    """Whether a listing of ``items`` items shows what the file tree ``tree`` shows: it
    shows every file and folder there is, and they are fewer (one item to spare, for
    ``.git``, which the client lists as ``.git/...``)."""
    if not items:
        return False
    counts = tree_counts(tree)
    return counts is not None and counts.whole and counts.files[1] + counts.dirs[1] + 1 <= items


def _aliases(root: Path, path: str, paths: frozenset[str]) -> list[str]:
    """Other convention files that are the same file as ``path`` (the same real file,
    or the same bytes): in its folder, at the root, or exact ``paths``."""
    folder = PurePosixPath(path).parent
    here = [(folder / name).as_posix() for name in ALIASES]
    candidates = {p for p in (*here, *ALIASES, *paths) if p != path}
    mine = _identity(root, path)
    if mine is None:
        return []
    return sorted(p for p in candidates if _same(root, p, mine))


def _identity(root: Path, path: str) -> tuple[str, str] | None:
    """(real path, digest of its bytes) of a file inside ``root``; None when absent."""
    inside = confine(root, root / path)
    if inside is None or not inside.is_file():
        return None
    try:
        data = inside.read_bytes()[: 1 << 20]
    except OSError:
        return None
    return os.fspath(inside), hashlib.blake2b(data, digest_size=10).hexdigest()


def _same(root: Path, path: str, mine: tuple[str, str]) -> bool:
    other = _identity(root, path)
    return other is not None and (other[0] == mine[0] or other[1] == mine[1])


def _present(root: Path) -> list[str]:
    """The convention files of :data:`facts.CONVENTION_FILES` at the root (``CLAUDE.md``
    also when only ``.claude/CLAUDE.md`` is there)."""
    found = [n for n in facts.CONVENTION_FILES if (root / n.rstrip("/")).exists()]
    if (root / ".claude" / "CLAUDE.md").is_file() and "CLAUDE.md" not in found:
        found.append("CLAUDE.md")
    return found


def _imports(root: Path, start: Iterable[str], style: ImportStyle) -> set[str]:
    """Repo-relative paths the files ``start`` import, transitively, inside the root, as
    ``style``'s client expands them: ``rules.expand``'s own expansion (the one import
    walk), bounded as it is; a file too complex for the markdown parser counts as
    importing nothing, so what it imports may be sent again, never left out."""
    policy = ImportPolicy(max_depth=MAX_IMPORT_DEPTH, style=style)
    found: set[str] = set()
    for path in start:
        expanded = load_expanded(root, path, policy)
        if isinstance(expanded, Unavailable):
            continue
        for dependency, key in expanded.dependencies.items():
            inside = confine(root, Path(dependency))
            if key is not None and inside is not None and inside.is_file():
                found.add(repo_relative(root, inside))
    return found - set(start)


def own_loads(client: str, root: Path, cwd: Path | None = None) -> OwnLoads:
    """What ``client`` loads by itself in the repository at ``root`` (resolved), working
    in ``cwd``."""
    # What it always loads wherever it is found, and at the root what it loads only
    # when another file is absent (Claude's AGENTS.md without a CLAUDE.md).
    loaded = {
        *facts.FACTS[client].loads_by_itself,
        *facts.loaded_conventions(client, _present(root)),
    }
    names = {n for n in loaded if not n.endswith("/")}
    prefixes = tuple(sorted(n for n in loaded if n.endswith("/")))
    info = facts.FACTS[client]
    paths = {c for n in names for c in info.companions.get(n, ())}
    if client == "codex":
        names.add("AGENTS.override.md")
        paths |= _cwd_chain(root, cwd, ("AGENTS.override.md", "AGENTS.md"))
    if info.import_style is not None:
        start = {p for p in (*names, *paths) if (root / p).is_file()}
        paths |= _imports(root, start, info.import_style)
    return OwnLoads(
        client,
        frozenset(names),
        prefixes,
        frozenset(paths),
        info.loads_nested,
        root,
        _listed_skills(root, facts.NATIVE[client].skill_roots),
        cwd is None or confine(root, cwd) == root,
    )


def _listed_skills(root: Path, roots: Sequence[str]) -> frozenset[str]:
    """Names of the skills in ``roots`` one folder down: what a client listing those
    folders lists (a copy elsewhere of one of them is the same skill)."""
    names: set[str] = set()
    for skills_root in roots:
        try:
            entries = sorted(os.scandir(root / skills_root), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            rel = f"{skills_root}/{entry.name}/SKILL.md"
            if entry.is_dir() and (root / rel).is_file():
                skill = load_skill(root, rel, skills_root)
                if isinstance(skill, Skill):
                    names.add(skill.name)
    return frozenset(names)


def _cwd_chain(root: Path, cwd: Path | None, names: tuple[str, ...]) -> set[str]:
    if cwd is None:
        return set()
    resolved = confine(root, cwd)
    if resolved is None:
        return set()
    parts = PurePosixPath(repo_relative(root, resolved)).parts
    found = set()
    for depth in range(1, len(parts) + 1):
        directory = "/".join(parts[:depth])
        if directory != ".":
            found |= {f"{directory}/{name}" for name in names}
    return found
