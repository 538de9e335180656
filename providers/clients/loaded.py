"""What a client puts before the model by itself: the bridge never sends it again.

The root-level facts are :func:`providers.clients.facts.loaded_conventions` (measured
against each client). Beyond the root:

- Claude Code loads ``CLAUDE.md`` (with ``CLAUDE.local.md`` and ``.claude/CLAUDE.md``)
  and ``.claude/rules/`` (always-on at start, ``paths:`` rules when a matching file is
  read), nested ``CLAUDE.md`` files when a file below them is read, and ``AGENTS.md``
  the same way only when there is no ``CLAUDE.md``; it expands ``@imports`` in what it
  loads, so a ``CLAUDE.md`` that says ``@AGENTS.md`` brings ``AGENTS.md`` in.
- Gemini CLI loads ``GEMINI.md`` files, the root's and those below it, expanding
  ``@imports`` the same way.
- Codex CLI loads ``AGENTS.md`` (``AGENTS.override.md`` before it) in each directory
  from the root down to its working directory, never below it, and expands nothing.

Convention files and rules of other tools (Cursor, Copilot, Windsurf, Cline, Continue,
Kiro) are loaded by none of the three.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from providers.clients import facts
from providers.clients.deltas import Piece
from providers.repository.paths import confine, repo_relative
from providers.repository.sources import Unavailable
from providers.rules.expand import ImportPolicy, load_expanded
from providers.rules.import_styles import ImportStyle

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

    def covers(self, path: str) -> bool:
        if not path:
            return False
        if path in self.paths or path.startswith(self.prefixes):
            return True
        name = PurePosixPath(path).name
        return name in self.names and (self.nested or "/" not in path)

    def __call__(self, piece: Piece) -> bool:
        return self.covers(piece.path)


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
    return OwnLoads(client, frozenset(names), prefixes, frozenset(paths), info.loads_nested)


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
