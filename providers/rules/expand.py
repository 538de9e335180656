"""Read a convention file, strip authoring artifacts, resolve ``@path`` imports.

Shared by repo conventions (the root's files, always-on rules) and scoped
docs (nested convention files), so an import means the same in both.

An ``@path`` outside code is an import where the file's own tool makes it one, and
resolves as that tool resolves it (:mod:`providers.rules.import_styles`; Claude Code's
reading, relative to the importing file, by default). A target that does not exist is no
import: the text stays as written. A line that is nothing but imports is replaced by the
imported text; an import inside a sentence keeps the sentence and the imported text
follows its block. Depth is capped, cycles are broken, targets outside the
repository are refused unless allowlisted (the note says how to allow them). A failed
import never fails the turn: it leaves a one-line note in the content (the provider
logs each distinct note once per recompute).

Depth alone does not bound the work: a file importing another ten times, five
levels deep, is 100,000 reads. One expansion reads at most
:data:`MAX_IMPORTED_FILES` files and :data:`MAX_IMPORTED_CHARS` characters, and stops
at the turn's deadline; every import past that is a note saying which limit
cut it. A file too complex for the markdown parser is read as plain text, its
comments and imports left as written, with a note saying so.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from providers.core.deadline import NEVER, Deadline
from providers.markdown import (
    MarkdownImport,
    MarkdownTooComplex,
    find_imports,
    normalise_newlines,
    strip_artifacts,
)
from providers.repository.paths import confine, repo_relative
from providers.repository.sources import (
    DEFAULT_MAX_BYTES,
    FileKey,
    SourceText,
    Unavailable,
    file_keys,
    read_text,
)
from providers.rules.import_styles import ImportStyle, refusal, style_for

DEFAULT_MAX_IMPORT_DEPTH = 5

MAX_IMPORTED_FILES = 200
"""Imports one expansion reads, all levels together (a legitimate tree is tens)."""

MAX_IMPORTED_CHARS = 4 * 1024 * 1024
"""Characters one expansion reads through imports, all levels together."""

MARKDOWN_SUFFIXES = (".md", ".mdc", ".markdown")

KIRO_STEERING = "/.kiro/steering/"
"""Files below it may also import with Kiro's ``#[[file:path]]``, from the workspace root
(Kiro's documented examples, ``#[[file:api/openapi.yaml]]``, are workspace paths)."""


@dataclass(frozen=True)
class ImportPolicy:
    """Where imports may go and how deep."""

    max_depth: int = DEFAULT_MAX_IMPORT_DEPTH
    allowed_roots: tuple[Path, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    max_files: int = MAX_IMPORTED_FILES
    max_total_chars: int = MAX_IMPORTED_CHARS
    style: ImportStyle | None = None
    """Whose ``@`` the expanded file's are; ``None``: its own tool's, by its path."""
    block: str = "repo_conventions"
    """The provider block whose ``import_allow`` a refused import's note names."""


@dataclass
class Expanded:
    """One convention file with its imports expanded, plus every file it depended on."""

    path: str
    text: str
    key: FileKey
    dependencies: dict[str, FileKey | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    complete: bool = True
    """False when the deadline cut an import: the next turn should load it again."""


@dataclass
class _Work:
    """What one expansion has spent so far, against its policy and deadline."""

    policy: ImportPolicy
    deadline: Deadline
    files: int = 0
    chars: int = 0

    def exhausted(self) -> str | None:
        """Why no further import may be read, or None."""
        if self.files >= self.policy.max_files:
            return f"this expansion already read {self.policy.max_files} imported files"
        if self.chars >= self.policy.max_total_chars:
            return f"this expansion already read {self.policy.max_total_chars:,} characters"
        if self.deadline.expired():
            return "out of time for this turn (the next turn tries again)"
        return None


def load_expanded(
    root: Path, path: str, policy: ImportPolicy, deadline: Deadline = NEVER
) -> Expanded | Unavailable:
    """Read ``path`` (repo-relative) and expand its imports."""
    source = read_text(root, Path(path), max_bytes=policy.max_bytes)
    if isinstance(source, Unavailable):
        return source
    return expand_source(root, source, policy, deadline)


def expand_source(
    root: Path, source: SourceText, policy: ImportPolicy, deadline: Deadline = NEVER
) -> Expanded:
    """An already read file with its imports expanded (for callers with their own reader)."""
    loaded = Expanded(path=source.path, text="", key=source.key)
    loaded.dependencies[str(source.absolute)] = source.key
    work = _Work(policy, deadline)
    style = policy.style or style_for(source.path)
    loaded.text = _expand(root, source, work, loaded, (source.absolute,), style)
    return loaded


def clean_markdown(path: str, text: str) -> tuple[str, str | None]:
    """Markdown without its authoring artifacts, or, for a text too complex for the
    parser, the text as written (trimmed) and the note that says so."""
    try:
        return strip_artifacts(text), None
    except MarkdownTooComplex as exc:
        note = (
            f"[{path} read as plain text, its comments and @imports as written: "
            f"too complex to parse as markdown ({exc})]"
        )
        return _plain(text), note


def _plain(text: str) -> str:
    text = normalise_newlines(text).strip("\n")
    return text + "\n" if text else ""


def _expand(
    root: Path,
    source: SourceText,
    work: _Work,
    loaded: Expanded,
    chain: tuple[Path, ...],
    style: ImportStyle,
) -> str:
    if source.absolute.suffix.lower() not in MARKDOWN_SUFFIXES:
        return _plain(source.text)
    text, problem = clean_markdown(source.path, source.text)
    if problem is not None:
        loaded.notes.append(problem)
        return f"{problem}\n\n{text}"
    try:
        imports = find_imports(text, kiro=KIRO_STEERING in f"/{source.path}")
    except MarkdownTooComplex:
        imports = []  # strip_artifacts took it on; its find_imports parse did not
    if not imports:
        return text
    lines = text.split("\n")
    replace: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    found = [(r, _import(root, source, r, work, loaded, chain, style)) for r in imports]
    # An @ that is no import stays as written, and so does the line holding it.
    kept = {ref.line for ref, body in found if body is None}
    for ref, body in found:
        if body is None:
            continue
        if ref.standalone and ref.line not in kept:
            replace.setdefault(ref.line, []).append(body)
        else:
            after.setdefault(ref.block_end - 1, []).append(body)
    out: list[str] = []
    for number, line in enumerate(lines):
        if number in replace:
            out.extend(b.rstrip("\n") for b in replace[number])
        else:
            out.append(line)
        if number in after:
            out.append("")
            out.extend(b.rstrip("\n") for b in after[number])
    return "\n".join(out)


def _import(
    root: Path,
    importer: SourceText,
    ref: MarkdownImport,
    work: _Work,
    loaded: Expanded,
    chain: tuple[Path, ...],
    style: ImportStyle,
) -> str | None:
    """The expanded text of one import, the one-line note that replaces it, or ``None``
    when ``target`` is no import (``style``'s tool does not import it, or it does not
    exist): the text stays as written, with no note."""
    policy = work.policy
    target = ref.target

    def note(reason: str) -> str:
        message = f"[import {ref.written} from {importer.path} not loaded: {reason}]"
        loaded.notes.append(message)  # logged once per distinct note by the provider
        return message

    # Kiro's #[[file:path]] is read from the workspace root; an @ as the file's tool reads it.
    candidate = root / target if ref.from_root else style.candidate(root, importer.absolute, target)
    if candidate is None:
        return None
    resolved = confine(root, candidate, allowed=policy.allowed_roots)
    if resolved is None:
        return note(refusal(root, target, candidate, policy.allowed_roots, policy.block))
    if not ref.from_root and _absent(resolved, loaded):
        return None  # an @ naming no file: no import (a #[[file:]] always is one)
    if len(chain) > policy.max_depth:
        return note(f"deeper than {policy.max_depth} imports")
    if resolved in chain:
        return note("import cycle")
    spent = work.exhausted()
    if spent is not None:
        loaded.complete = loaded.complete and not work.deadline.expired()
        return note(spent)
    display = _display(root, resolved)
    source = read_text(
        root, resolved, max_bytes=policy.max_bytes, allowed=policy.allowed_roots, display=display
    )
    if isinstance(source, Unavailable):
        loaded.dependencies[str(resolved)] = None
        return note(source.reason)
    loaded.dependencies[str(resolved)] = source.key
    work.files += 1
    work.chars += len(source.text)
    return _expand(root, source, work, loaded, (*chain, resolved), style.inner)


def _absent(resolved: Path, loaded: Expanded) -> bool:
    """Whether nothing readable is there (no such path, a directory): then ``@`` named
    no file, as Claude Code reads it (it skips those silently). The path stays a
    dependency, so the file appearing later is picked up."""
    try:
        st = os.stat(resolved)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        loaded.dependencies[str(resolved)] = None
        return True
    except OSError:
        return False  # there, but not for us: the read says why
    if stat.S_ISDIR(st.st_mode):
        loaded.dependencies[str(resolved)] = FileKey.of(st)
        return True
    return False


def _display(root: Path, resolved: Path) -> str:
    try:
        return repo_relative(root, resolved)
    except ValueError:
        return str(resolved)


def dependency_keys(dependencies: Sequence[str]) -> tuple[FileKey | None, ...]:
    """Current keys of ``dependencies`` (absolute paths): the cheap did-anything-change check."""
    return file_keys(dependencies)  # str, not Path: this is the warm path
