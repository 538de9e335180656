"""Read a convention file, strip authoring artifacts, resolve ``@path`` imports.

Shared by repo conventions (the root's files, always-on rules) and scoped
docs (nested convention files), so an import means the same in both.

Imports follow Claude Code's convention: ``@path`` outside code, relative to
the importing file (``@./``, ``@../``; ``@~/`` only when the home directory is
allowed). A line that is nothing but imports is replaced by the imported
text; an import inside a sentence keeps the sentence and the imported text
follows its block. Depth is capped, cycles are broken, targets outside the
repository are refused unless allowlisted. A failed import never fails the
turn: it leaves a one-line note in the content (the provider logs each distinct
note once per recompute).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from providers.markdown import MarkdownImport, find_imports, normalise_newlines, strip_artifacts
from providers.repository.paths import confine, repo_relative
from providers.repository.sources import (
    DEFAULT_MAX_BYTES,
    FileKey,
    SourceText,
    Unavailable,
    file_keys,
    read_text,
)

DEFAULT_MAX_IMPORT_DEPTH = 5

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


@dataclass
class Expanded:
    """One convention file with its imports expanded, plus every file it depended on."""

    path: str
    text: str
    key: FileKey
    dependencies: dict[str, FileKey | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def load_expanded(root: Path, path: str, policy: ImportPolicy) -> Expanded | Unavailable:
    """Read ``path`` (repo-relative) and expand its imports."""
    source = read_text(root, Path(path), max_bytes=policy.max_bytes)
    if isinstance(source, Unavailable):
        return source
    return expand_source(root, source, policy)


def expand_source(root: Path, source: SourceText, policy: ImportPolicy) -> Expanded:
    """An already read file with its imports expanded (for callers with their own reader)."""
    loaded = Expanded(path=source.path, text="", key=source.key)
    loaded.dependencies[str(source.absolute)] = source.key
    loaded.text = _expand(root, source, policy, loaded, chain=(source.absolute,))
    return loaded


def _clean(source: SourceText) -> str:
    if source.absolute.suffix.lower() in MARKDOWN_SUFFIXES:
        return strip_artifacts(source.text)
    text = normalise_newlines(source.text).strip("\n")
    return text + "\n" if text else ""


def _expand(
    root: Path,
    source: SourceText,
    policy: ImportPolicy,
    loaded: Expanded,
    chain: tuple[Path, ...],
) -> str:
    text = _clean(source)
    if source.absolute.suffix.lower() not in MARKDOWN_SUFFIXES:
        return text
    imports = find_imports(text, kiro=KIRO_STEERING in f"/{source.path}")
    if not imports:
        return text
    lines = text.split("\n")
    replace: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    for ref in imports:
        body = _import(root, source, ref, policy, loaded, chain)
        if ref.standalone:
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
    policy: ImportPolicy,
    loaded: Expanded,
    chain: tuple[Path, ...],
) -> str:
    """The expanded text of one import, or the one-line note that replaces it."""
    target = ref.target

    def note(reason: str) -> str:
        message = f"[import {ref.written} from {importer.path} not loaded: {reason}]"
        loaded.notes.append(message)  # logged once per distinct note by the provider
        return message

    if len(chain) > policy.max_depth:
        return note(f"deeper than {policy.max_depth} imports")
    if ref.from_root:  # Kiro's #[[file:path]]: from the workspace root
        candidate = root / target
    elif target.startswith("~/"):
        if not policy.allowed_roots:
            return note("home-directory imports are not allowed")
        candidate = Path(os.path.expanduser(target))
    else:
        candidate = importer.absolute.parent / target
    resolved = confine(root, candidate, allowed=policy.allowed_roots)
    if resolved is None:
        return note("outside the repository")
    if resolved in chain:
        return note("import cycle")
    display = _display(root, resolved)
    source = read_text(
        root, resolved, max_bytes=policy.max_bytes, allowed=policy.allowed_roots, display=display
    )
    if isinstance(source, Unavailable):
        loaded.dependencies[str(resolved)] = None
        return note(source.reason)
    loaded.dependencies[str(resolved)] = source.key
    return _expand(root, source, policy, loaded, (*chain, resolved))


def _display(root: Path, resolved: Path) -> str:
    try:
        return repo_relative(root, resolved)
    except ValueError:
        return str(resolved)


def dependency_keys(dependencies: Sequence[str]) -> tuple[FileKey | None, ...]:
    """Current keys of ``dependencies`` (absolute paths): the cheap did-anything-change check."""
    return file_keys(dependencies)  # str, not Path: this is the warm path
