"""One doc file into a :class:`Rule` (what it says, when it applies) or a :class:`Problem`.

Nested convention files (``src/auth/AGENTS.md``) scope to their directory's
subtree, their ``@imports`` expanded as at the root (a ``CLAUDE.md`` that says
``@AGENTS.md`` is then the same text as its neighbour, and sent once); rule
files scope by their dialect's front matter. The text kept is
the file with front matter and HTML comments stripped, code byte-exact.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from providers.core.budget import fallback_token_count
from providers.core.types import Unit
from providers.markdown import (
    MarkdownTooComplex,
    normalise_newlines,
    split_front_matter,
    split_units,
    strip_artifacts,
)
from providers.repository.sources import FileKey, SourceText, Unavailable, read_text
from providers.rules.dialects import Broken, Dialect, ScopeKind, mode_of
from providers.rules.expand import ImportPolicy, expand_source
from providers.rules.frontmatter import (
    FrontMatterError,
    parse_front_matter,
    quote_special_values,
    recover_keys,
)
from providers.rules.glob_match import GlobMatch
from providers.rules.globs import GlobError, GlobSet, parse_globs

log = logging.getLogger(__name__)

Reader = Callable[[Path, Path], SourceText | Unavailable]
"""``read_text(root, path)``'s shape; injectable so tests can count reads."""

NESTED = "nested"
"""The dialect name shown for nested convention files."""

NESTED_IMPORTS = ImportPolicy(block="scoped_docs")
"""Nested convention files import as the root's do by default (repo conventions'
``max_import_depth`` and ``max_file_bytes`` defaults, nothing outside the repository
unless scoped docs' ``import_allow`` says so)."""


def default_reader(root: Path, path: Path) -> SourceText | Unavailable:
    return read_text(root, path)


@dataclass(frozen=True)
class Rule:
    """A doc we may inject: exactly one of ``always``, ``globs``, ``subtree`` scopes it."""

    path: str
    dialect: str
    text: str
    key: FileKey
    always: bool = False
    globs: GlobSet | None = None
    subtree: str | None = None
    description: str = ""
    """Its front matter's ``description``: what the tool shows the model about it."""
    on_request: bool = False
    """Applied when the model asks for it by its description (Cursor's agent-requested
    rules, Windsurf's ``model_decision``): never injected, listed in the index."""
    imported: tuple[tuple[str, FileKey | None], ...] = ()
    """The files its ``@imports`` read (absolute path, key when read): an edit to one
    is an edit to the rule."""
    broken: str = ""
    """Why its front matter could not be read, and how its tool applies it all the same
    (``""``: it could): scoped docs' index says so."""

    @cached_property
    def tokens(self) -> int:
        """Its size in the kernel's fallback count (for the index; computed once)."""
        return fallback_token_count(self.text)

    @cached_property
    def title(self) -> str:
        """Its description, else its first heading: how the index names what it is."""
        if self.description:
            return self.description
        for line in self.text.splitlines():
            if line.startswith("#"):
                return line.lstrip("#").strip()
        return ""

    @cached_property
    def units(self) -> tuple[Unit, ...]:
        """The text cut into whole blocks (for the budget), parsed once per loaded version."""
        return tuple(split_units(self.text, self.path)) or (Unit(self.text, self.path),)

    def match(self, path: str) -> GlobMatch | None:
        """Why ``path`` activates this rule (the pattern), or ``None``."""
        if self.subtree is not None:
            if path.startswith(self.subtree + "/"):
                scope = f"{self.subtree}/**"
                return GlobMatch(scope, scope)
            return None
        if self.globs is not None:
            return self.globs.match(path)
        return None


@dataclass(frozen=True)
class Problem:
    """A doc we found but cannot use; ``note`` is the one line shown to the model."""

    path: str
    note: str
    key: FileKey | None = None


LoadResult = Rule | Problem | None
"""What loading one rule file gives: the rule, a problem to report, or ``None`` for a
file that is not ours to inject (manual, empty, not a rule)."""


def load_nested(
    root: Path, rel: str, reader: Reader, imports: ImportPolicy = NESTED_IMPORTS
) -> LoadResult:
    """A nested ``AGENTS.md``-style file, scoped to its own directory's subtree."""
    source = reader(root, Path(rel))
    if isinstance(source, Unavailable):
        return Problem(rel, f"{rel}: not loaded ({source.reason})")
    expanded = expand_source(root, source, imports)
    if not expanded.text.strip():
        return None
    subtree = PurePosixPath(rel).parent.as_posix()
    imported = tuple(
        (path, key) for path, key in expanded.dependencies.items() if path != str(source.absolute)
    )
    return Rule(rel, NESTED, expanded.text, source.key, subtree=subtree, imported=imported)


@dataclass(frozen=True)
class _Read:
    source: SourceText
    normalised: str
    meta: Mapping[str, Any]
    text: str
    """What the rule says: stripped of front matter and comments."""
    broken: str = ""


def _front_matter(
    root: Path, rel: str, reader: Reader, dialect: Dialect, warn: bool
) -> _Read | Problem:
    """Read a rule file and parse its front matter, or say why it cannot be applied. A
    front matter that is not valid YAML is what ``dialect``'s tool makes of it
    (:class:`~providers.rules.dialects.Broken`)."""
    source = reader(root, Path(rel))
    if isinstance(source, Unavailable):
        return Problem(rel, f"{rel}: not loaded ({source.reason})")
    normalised = normalise_newlines(source.text)
    try:
        raw, _body = split_front_matter(normalised)
        text = strip_artifacts(normalised)
    except MarkdownTooComplex as exc:
        return _not_applied(rel, exc, source.key, warn)
    try:
        meta = parse_front_matter(raw, dialect.glob_keys)
        return _Read(source, normalised, meta, text)
    except FrontMatterError as exc:
        if dialect.broken is Broken.DROP:
            return _not_applied(rel, exc, source.key, warn)
        error = exc
    assert raw is not None
    meta = {}
    if dialect.broken is Broken.BODY:  # Claude Code quotes values and tries once more
        try:
            return _Read(source, normalised, _reparsed(raw), text)
        except FrontMatterError:
            pass
    if dialect.broken is Broken.KEYS:
        meta = recover_keys(raw)
    how = {
        Broken.RAW: "always, the front matter part of its text (here left out, as always)",
        Broken.BODY: "always, without its front matter",
        Broken.KEYS: "by the keys its parser still reads",
    }[dialect.broken]
    note = f"{rel}: {error}; applied as {dialect.tool or dialect.name} does: {how}"
    log.log(logging.WARNING if warn else logging.DEBUG, "rule %s", note)
    return _Read(source, normalised, meta, text, note)


def _reparsed(raw: str) -> dict[str, Any]:
    return parse_front_matter(quote_special_values(raw))


def _not_applied(rel: str, exc: Exception, key: FileKey, warn: bool) -> Problem:
    log.log(logging.WARNING if warn else logging.DEBUG, "rule %s not applied: %s", rel, exc)
    return Problem(rel, f"{rel}: not applied, {exc}", key)


def _description(meta: Mapping[str, Any]) -> str:
    """The front matter's ``description`` on one line ("" when there is none)."""
    value = meta.get("description")
    return " ".join(value.split()) if isinstance(value, str) else ""


def load_rule(
    root: Path, rel: str, dialect: Dialect, reader: Reader, *, warn: bool = True
) -> LoadResult:
    """A rule file under a rule directory, scoped by ``dialect``'s front matter.

    ``warn``: log a rule that cannot be applied (scoped docs reports those; repo
    conventions, reading the same files for their always-on rules, stays quiet)."""
    read = _front_matter(root, rel, reader, dialect, warn)
    if isinstance(read, Problem):
        return read
    source, meta, text = read.source, read.meta, read.text
    imported: tuple[tuple[str, FileKey | None], ...] = ()
    if dialect.name == "kiro":
        text, imported = _kiro_text(root, read)
    try:
        scope = dialect.interpret(meta)
        globs = GlobSet(scope.patterns, dialect.flavour) if scope.kind is ScopeKind.GLOBS else None
    except GlobError as exc:
        return _not_applied(rel, exc, source.key, warn)
    description = _description(meta)
    mode = mode_of(rel) if dialect.mode_dirs else None
    if mode is not None:  # one mode's rules: ours has no modes, so the model is told of them
        told = f"rules for the {mode!r} mode of Roo Code and Kilo Code"
        if not text.strip():
            return None
        return Rule(
            rel,
            dialect.name,
            text,
            source.key,
            description=told,
            on_request=True,
            broken=read.broken,
            imported=imported,
        )
    if scope.kind is ScopeKind.MANUAL:
        if description and text.strip() and _model_requested(dialect, meta):
            return Rule(
                rel,
                dialect.name,
                text,
                source.key,
                description=description,
                on_request=True,
                broken=read.broken,
                imported=imported,
            )
        log.debug("rule %s is applied on request only; not injected", rel)
        return None
    if not text.strip():
        return None
    always = scope.kind is ScopeKind.ALWAYS
    return Rule(
        rel,
        dialect.name,
        text,
        source.key,
        always=always,
        globs=globs,
        description=description,
        broken=read.broken,
        imported=imported,
    )


def _model_requested(dialect: Dialect, meta: Mapping[str, Any]) -> bool:
    """Rules the tool offers the model by description: Cursor's agent-requested ones
    (a description, no globs, not always), Windsurf's ``trigger: model_decision`` and
    Kiro's ``inclusion: auto``."""
    if dialect.name == "cursor":
        return True
    if dialect.name == "kiro":
        return meta.get("inclusion") == "auto"
    return dialect.name == "windsurf" and meta.get("trigger") == "model_decision"


def _kiro_text(root: Path, read: _Read) -> tuple[str, tuple[tuple[str, FileKey | None], ...]]:
    """A Kiro steering file's text with its ``#[[file:path]]`` references (and imports)
    expanded, and the files they read."""
    if read.broken:
        return read.text, ()
    expanded = expand_source(root, read.source, NESTED_IMPORTS)
    own = str(read.source.absolute)
    return expanded.text, tuple((p, k) for p, k in expanded.dependencies.items() if p != own)


CONTINUE_COLOCATED = "rules.md"
"""Continue's colocated rule file: applies to the files in its own directory."""


def colocated_patterns(directory: str, patterns: tuple[str, ...]) -> tuple[str, ...]:
    """Continue's reading of a colocated rule's globs (``markdownToRule``): each is put
    under the rule's directory (``**``-led ones directly, others after ``**/``); none
    means everything in it."""
    if not patterns:
        return (f"{directory}/**/*",)
    return tuple(
        f"{directory}/{p}" if p.startswith("**") else f"{directory}/**/{p}" for p in patterns
    )


def load_colocated(root: Path, rel: str, dialect: Dialect, reader: Reader) -> LoadResult:
    """A Continue ``rules.md`` below the root, scoped to its directory (and its globs,
    matched as ``dialect``, Continue's, matches them)."""
    read = _front_matter(root, rel, reader, dialect, True)
    if isinstance(read, Problem):
        return read
    source, meta, text = read.source, read.meta, read.text
    directory = PurePosixPath(rel).parent.as_posix()
    try:
        patterns = colocated_patterns(directory, parse_globs(meta.get("globs")))
        globs = GlobSet(patterns, dialect.flavour)
    except GlobError as exc:
        return _not_applied(rel, exc, source.key, True)
    if not text.strip():
        return None
    return Rule(
        rel,
        dialect.name,
        text,
        source.key,
        globs=globs,
        description=_description(meta),
        broken=read.broken,
    )
