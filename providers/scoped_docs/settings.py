"""The provider's config: schema (the only place defaults are written) and the checks
``configure`` runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from providers.core.config import COMMON_ATTRIBUTES, resolve_config
from providers.core.errors import invalid_request
from providers.core.types import AttrType, ConfigAttribute
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS, Dialect
from providers.rules.expand import ImportPolicy

NAME = "scoped-docs"
DEFAULT_TOKEN_BUDGET = 2000
ALWAYS_APPLY_CHOICES = ("ours", "leave")
DIALECT_OFF = "off"

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "nested_names",
        AttrType.LIST_STRING,
        "Convention file names looked for in every directory between a touched file "
        "and the repository root (the root itself belongs to repo-conventions).",
        default=("AGENTS.md", "CLAUDE.md", "GEMINI.md"),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "rule_dirs",
        AttrType.MAP_STRING,
        "Extra rule directories, repo-relative, mapped to their dialect: "
        f"{', '.join(DIALECTS)}; '{DIALECT_OFF}' turns a built-in directory off.",
        default={},
    ),
    ConfigAttribute(
        "always_apply",
        AttrType.STRING,
        "Rules that always apply (alwaysApply, no globs): 'leave' leaves those in the "
        "tools' own rule directories to repo conventions (the cached prefix); 'ours' "
        "shows them all here, after the docs for the files in hand.",
        default="leave",
        zero_is_default=True,
    ),
    ConfigAttribute(
        "max_docs",
        AttrType.NUMBER,
        "Most docs shown in full; the rest are only named.",
        bounds=(0, 10_000),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "import_allow",
        AttrType.LIST_STRING,
        "Directories outside the repository that nested docs' @imports may read (~ "
        "expands; allows @~/ imports when it includes the home directory), as repo "
        "conventions' import_allow does for the root's files.",
        default=(),
        user_only=True,
    ),
    ConfigAttribute(
        "watch",
        AttrType.BOOL,
        "Watch rule files for changes; off, every turn re-checks them with stat calls.",
        default=True,
    ),
)


@dataclass(frozen=True)
class Settings:
    """The resolved config; ``settings_from({})`` (the schema's defaults) is what an empty
    provider block means, and what the provider starts with."""

    nested_names: tuple[str, ...]
    rule_dirs: Mapping[str, Dialect]
    """The built-in rule directories with ``rule_dirs``' changes applied."""
    always_apply: str
    max_docs: int | None
    """None: no limit."""
    watch: bool
    imports: ImportPolicy
    """How nested docs' ``@imports`` are read (``import_allow``)."""


def settings_from(config: Mapping[str, Any]) -> Settings:
    """Check the decoded provider block; raise ``invalid_request`` naming what is wrong."""
    values = resolve_config(SCHEMA, config)
    names = tuple(values["nested_names"])
    for name in names:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise invalid_request(f"nested_names: {name!r} is not a plain file name")
    always_apply = values["always_apply"]
    if always_apply not in ALWAYS_APPLY_CHOICES:
        raise invalid_request(
            f"always_apply must be one of {', '.join(ALWAYS_APPLY_CHOICES)} (got {always_apply!r})"
        )
    rule_dirs: dict[str, Dialect] = {d: DIALECTS[n] for d, n in BUILTIN_RULE_DIRS}
    for raw_dir, dialect in values["rule_dirs"].items():
        directory = _rule_dir(raw_dir)
        if dialect == DIALECT_OFF:
            rule_dirs.pop(directory, None)
        elif dialect in DIALECTS:
            rule_dirs[directory] = DIALECTS[dialect]
        else:
            raise invalid_request(
                f"rule_dirs[{raw_dir!r}]: unknown dialect {dialect!r} "
                f"(known: {', '.join([*DIALECTS, DIALECT_OFF])})"
            )
    allowed = tuple(Path(p).expanduser().resolve() for p in values["import_allow"])
    imports = ImportPolicy(allowed_roots=allowed, block="scoped_docs")
    return Settings(names, rule_dirs, always_apply, values["max_docs"], values["watch"], imports)


def _rule_dir(raw: str) -> str:
    path = PurePosixPath(raw.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts or path.as_posix() == ".":
        raise invalid_request(
            f"rule_dirs: {raw!r} must be a directory inside the repository, relative to its root"
        )
    return path.as_posix()
