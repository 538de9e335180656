"""Each tool's rule-file dialect: where its rules live and what its front matter means.

Every dialect answers one question about a parsed front matter mapping: does
this rule always apply, apply to some globs, or only when asked for by hand
(which is not ours to inject)? Shapes we cannot read raise ``GlobError`` so
the rule is reported rather than guessed at.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from providers.rules.claude_glob import always as claude_always
from providers.rules.claude_glob import split_paths
from providers.rules.flavours import Flavour
from providers.rules.globs import GlobError, parse_globs


class Broken(enum.Enum):
    """What a tool does with a rule whose front matter is not valid YAML (each one's code)."""

    DROP = "drop"
    """Not applied: a noted problem (Cursor, Windsurf, Kiro publish no code to follow)."""
    RAW = "raw"
    """Applied as if it had no front matter, the front matter part of its text: Cline
    (``rule-helpers.ts``: fail-open, "so the LLM can still see the author's intended
    scoping"), Continue (``parseMarkdownRule``: the whole file as the rule), Roo Code
    (never parses front matter). We leave the front matter out of the text, as for every
    rule (repo conventions and scoped docs send the same text)."""
    BODY = "body"
    """Applied as if it had no front matter, without it: Claude Code (its front matter
    reader quotes values and retries once, then warns and keeps the body alone)."""
    KEYS = "keys"
    """The keys a tolerant parser still reads from it (Copilot: VS Code's own YAML parser
    records errors and keeps what it parsed)."""


class ScopeKind(enum.Enum):
    ALWAYS = "always"
    GLOBS = "globs"
    MANUAL = "manual"
    """Attached by hand or chosen by the model from its description: never injected."""


@dataclass(frozen=True)
class Scope:
    kind: ScopeKind
    patterns: tuple[str, ...] = ()


ALWAYS = Scope(ScopeKind.ALWAYS)
MANUAL = Scope(ScopeKind.MANUAL)


@dataclass(frozen=True)
class Dialect:
    """A rule directory's format: file suffixes, glob keys, and the scope rule."""

    name: str
    suffixes: tuple[str, ...]
    glob_keys: tuple[str, ...]
    interpret: Callable[[Mapping[str, Any]], Scope]
    not_rules: tuple[str, ...] = ()
    """Subdirectories of the rule directory that hold something else (Cline's
    ``workflows/``, ``hooks/``, ``skills/``: procedures run on request, not rules)."""
    flavour: Flavour = Flavour.GITIGNORE
    """Whose glob semantics its patterns follow: the tool's own matcher where it has one
    (Cursor and Windsurf publish none and describe gitignore-like globs)."""

    mode_dirs: bool = False
    """The directory is the tool's own folder (``.roo``, ``.kilo``): rules live in its
    ``rules/`` (always on) and ``rules-{mode}/`` (one mode's) subdirectories, nowhere
    else in it (Roo Code's ``loadRuleFiles`` and its mode rules)."""
    junk: tuple[str, ...] = ()
    """Name endings that are never rules where any file is one (Roo Code's
    ``shouldIncludeRuleFile``: editor swap files, logs, caches)."""
    broken: Broken = Broken.DROP
    """What its tool does with a front matter that is not valid YAML."""
    tool: str = ""
    """The tool's name, for notes (``Cline``)."""

    def accepts(self, filename: str) -> bool:
        if self.junk and filename.endswith(self.junk):
            return False
        return any(filename.endswith(s) and len(filename) > len(s) for s in self.suffixes)

    def keeps(self, subdirectory: str) -> bool:
        """Whether a subdirectory at the top of the rule directory may hold rules."""
        if self.mode_dirs:
            return subdirectory == "rules" or subdirectory.startswith(MODE_PREFIX)
        return subdirectory not in self.not_rules


MODE_PREFIX = "rules-"
"""``rules-{mode}/``: the rules of one mode of Roo Code or Kilo Code."""


def mode_of(rel: str) -> str | None:
    """The mode a rule in a tool's folder belongs to (``.roo/rules-code/x.md`` -> ``code``),
    ``None`` for the rules of every mode (``.roo/rules/x.md``): the first folder named
    ``rules`` or ``rules-{mode}`` on its path decides."""
    for part in rel.split("/")[:-1]:
        if part == "rules":
            return None
        if part.startswith(MODE_PREFIX) and len(part) > len(MODE_PREFIX):
            return part[len(MODE_PREFIX) :]
    return None


def _flag(meta: Mapping[str, Any], key: str) -> bool | None:
    value = meta.get(key)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise GlobError(f"{key!r} must be true or false, got {value!r}")


def _globs(meta: Mapping[str, Any], key: str) -> tuple[str, ...]:
    try:
        return parse_globs(meta.get(key))
    except GlobError as exc:
        raise GlobError(f"{key!r}: {exc}") from None


def _cursor(meta: Mapping[str, Any]) -> Scope:
    """alwaysApply wins; else globs; else description-only or manual (not injected)."""
    if _flag(meta, "alwaysApply"):
        return ALWAYS
    patterns = _globs(meta, "globs")
    return Scope(ScopeKind.GLOBS, patterns) if patterns else MANUAL


CODING_AGENT = "coding-agent"
"""Copilot's name for its coding agent in ``excludeAgent`` (the other is ``code-review``)."""


def _copilot(meta: Mapping[str, Any]) -> Scope:
    """Without applyTo, Copilot only uses an instructions file when attached by hand; one
    whose ``excludeAgent`` names the coding agent is not meant for an agent like ours."""
    excluded = meta.get("excludeAgent")
    names = excluded if isinstance(excluded, list) else [excluded]
    if any(isinstance(n, str) and n.strip() == CODING_AGENT for n in names):
        return MANUAL
    patterns = _globs(meta, "applyTo")
    if any(p.strip() in COPILOT_EVERYWHERE for p in patterns):
        return ALWAYS  # VS Code attaches these even when no file is in the context
    return Scope(ScopeKind.GLOBS, patterns) if patterns else MANUAL


COPILOT_EVERYWHERE = frozenset(("**", "**/*", "*"))
"""applyTo values VS Code treats as "every request" (computeAutomaticInstructions ``_matches``)."""


def _claude(meta: Mapping[str, Any]) -> Scope:
    """``paths`` as Claude Code reads it (:mod:`providers.rules.claude_glob`): a string or a
    list of strings, split at commas outside braces; nothing usable in it, or patterns
    that all come to ``**``, and the rule always loads. A leading ``./`` is dropped (every
    dialect does; Claude Code never matches it)."""
    written = split_paths(meta.get("paths"))
    patterns = parse_globs(list(written)) if written is not None else ()
    if not patterns or claude_always(patterns):
        return ALWAYS
    return Scope(ScopeKind.GLOBS, patterns)


def _cline(meta: Mapping[str, Any]) -> Scope:
    """``paths`` scopes a rule and its absence makes it always on, but an empty ``paths: []``
    (or one that trims to nothing) turns the rule off: Cline's ``evaluatePathsConditional``."""
    patterns = _globs(meta, "paths")
    if patterns:
        return Scope(ScopeKind.GLOBS, patterns)
    return MANUAL if meta.get("paths") is not None else ALWAYS


def _choice(
    meta: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str | None = None
) -> str | None:
    """``meta[key]`` when it is one of ``choices`` (``default`` when absent or empty);
    another value makes the rule a Problem rather than a guess."""
    value = meta.get(key)
    if value is None:
        return default
    if value not in choices:
        raise GlobError(f"{key!r} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


_WINDSURF_TRIGGERS = ("always_on", "glob", "model_decision", "manual")


def _windsurf(meta: Mapping[str, Any]) -> Scope:
    """``trigger`` decides; model_decision and manual rules are not ours to inject."""
    trigger = _choice(meta, "trigger", _WINDSURF_TRIGGERS)
    patterns = _globs(meta, "globs")
    if trigger is None:
        return Scope(ScopeKind.GLOBS, patterns) if patterns else MANUAL
    if trigger == "always_on":
        return ALWAYS
    if trigger == "glob":
        if not patterns:
            raise GlobError("'trigger: glob' without 'globs'")
        return Scope(ScopeKind.GLOBS, patterns)
    return MANUAL


def _continue(meta: Mapping[str, Any]) -> Scope:
    """alwaysApply true: always; false: only by globs; unset: globs if any, else always."""
    always = _flag(meta, "alwaysApply")
    if always:
        return ALWAYS
    patterns = _globs(meta, "globs")
    if patterns:
        return Scope(ScopeKind.GLOBS, patterns)
    return MANUAL if always is False else ALWAYS


_KIRO_INCLUSIONS = ("always", "fileMatch", "manual", "auto")


def _kiro(meta: Mapping[str, Any]) -> Scope:
    """Kiro steering: ``inclusion`` decides and defaults to always (so does a file without
    front matter); ``fileMatch`` takes ``fileMatchPattern``, a string or a list; ``manual``
    files are pulled in by ``#name`` in chat, ``auto`` ones by the model when a request
    matches their ``description``: neither is ours to inject (an ``auto`` one is listed)."""
    inclusion = _choice(meta, "inclusion", _KIRO_INCLUSIONS, default="always")
    if inclusion == "always":
        return ALWAYS
    if inclusion in ("manual", "auto"):
        return MANUAL
    patterns = _globs(meta, "fileMatchPattern")
    if not patterns:
        raise GlobError("'inclusion: fileMatch' without 'fileMatchPattern'")
    return Scope(ScopeKind.GLOBS, patterns)


def _roo(meta: Mapping[str, Any]) -> Scope:
    """Roo Code and Kilo Code read every rule file whole, with no front matter of their own:
    the rules of ``rules/`` always apply (those of a mode's folder are told apart by path,
    :func:`mode_of`, and listed for the model, not applied)."""
    return ALWAYS


ROO_JUNK = (
    ".DS_Store",
    "Thumbs.db",
    ".bak",
    ".cache",
    ".crdownload",
    ".db",
    ".dmp",
    ".dump",
    ".eslintcache",
    ".lock",
    ".log",
    ".old",
    ".part",
    ".partial",
    ".pyc",
    ".pyo",
    ".stackdump",
    ".swo",
    ".swp",
    ".temp",
    ".tmp",
)


def _generic(meta: Mapping[str, Any]) -> Scope:
    """For configured directories: any of globs / paths / applyTo; none means always."""
    if _flag(meta, "alwaysApply"):
        return ALWAYS
    patterns: tuple[str, ...] = ()
    for key in ("globs", "paths", "applyTo"):
        patterns += tuple(p for p in _globs(meta, key) if p not in patterns)
    return Scope(ScopeKind.GLOBS, patterns) if patterns else ALWAYS


DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        Dialect("cursor", (".mdc", ".md"), ("globs",), _cursor, tool="Cursor"),
        Dialect(
            "copilot",
            (".instructions.md",),
            ("applyTo",),
            _copilot,
            (),
            Flavour.VSCODE,
            broken=Broken.KEYS,
            tool="Copilot",
        ),
        Dialect(
            "claude",
            (".md",),
            ("paths",),
            _claude,
            (),
            Flavour.CLAUDE,
            broken=Broken.BODY,
            tool="Claude Code",
        ),
        Dialect(
            "cline",
            (".md", ".txt"),
            ("paths",),
            _cline,
            ("workflows", "hooks", "skills"),
            Flavour.PICOMATCH,
            broken=Broken.RAW,
            tool="Cline",
        ),
        Dialect("windsurf", (".md",), ("globs",), _windsurf, tool="Windsurf"),
        Dialect(
            "continue",
            (".md",),
            ("globs",),
            _continue,
            (),
            Flavour.MINIMATCH,
            broken=Broken.RAW,
            tool="Continue",
        ),
        Dialect("kiro", (".md",), ("fileMatchPattern",), _kiro, tool="Kiro"),
        Dialect(
            "roo",
            ("",),
            (),
            _roo,
            mode_dirs=True,
            junk=ROO_JUNK,
            broken=Broken.RAW,
            tool="Roo Code",
        ),
        Dialect("generic", (".md", ".mdc"), ("globs", "paths", "applyTo"), _generic),
    )
}
"""Dialect names accepted in the ``rule_dirs`` config."""

BUILTIN_RULE_DIRS: tuple[tuple[str, str], ...] = (
    (".cursor/rules", "cursor"),
    (".github/instructions", "copilot"),
    (".claude/rules", "claude"),
    (".clinerules", "cline"),
    (".windsurf/rules", "windsurf"),
    (".continue/rules", "continue"),
    (".kiro/steering", "kiro"),
    (".agents/rules", "windsurf"),
    (".roo", "roo"),
    (".kilo", "roo"),
    (".kilocode", "roo"),
)
"""Repo-relative rule directories every harness we know of uses, with their dialect.

``.agents/rules`` is Google Antigravity's (Windsurf's fork: the same ``trigger`` front
matter); ``.roo`` is Roo Code's folder and ``.kilo`` (``.kilocode`` before it) Kilo
Code's, a fork of Roo Code: their ``rules/`` and ``rules-{mode}/`` subdirectories."""
