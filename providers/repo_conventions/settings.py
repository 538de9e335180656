"""The provider's config: schema (the only place defaults are written) and the checks
``configure`` runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.core.config import COMMON_ATTRIBUTES, resolve_config
from providers.core.errors import invalid_request
from providers.core.types import AttrType, ConfigAttribute
from providers.repo_conventions.discover import DEFAULT_PATHS, unresolved
from providers.repository.layout import find_root
from providers.repository.sources import DEFAULT_MAX_BYTES
from providers.rules.expand import DEFAULT_MAX_IMPORT_DEPTH, ImportPolicy

NAME = "repo-conventions"
DEFAULT_TOKEN_BUDGET = 4000
MAX_IMPORT_DEPTH = 64
DEFAULT_SKILLS_SHARE = 25
"""A quarter of the default 4,000 tokens is 1,000: Codex gives its listing 2% of the
context window and Claude Code 1% (in characters), 4,000 and 2,000 tokens of 200k;
ours is a catalog beside the convention files, not the whole of the prompt's skills."""
MAX_FILE_BYTES = 64 * 1024 * 1024
"""The most ``max_file_bytes`` may allow: never load an unbounded file."""

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "paths",
        AttrType.LIST_STRING,
        "Convention files to read, in precedence order, relative to the repository "
        "root; globs allowed. Replaces the default list.",
        default=DEFAULT_PATHS,
        zero_is_default=True,
    ),
    ConfigAttribute(
        "always_rules",
        AttrType.BOOL,
        "Also show the rule files every tool loads at session start (Cursor alwaysApply, "
        ".claude/rules and .clinerules without paths, ...), after the convention files.",
        default=True,
    ),
    ConfigAttribute(
        "skills",
        AttrType.BOOL,
        "Also list the repository's skills (SKILL.md files in .agents/skills, .claude/skills "
        "and every tool's skills folder): name, description and path, after the other files.",
        default=True,
    ),
    ConfigAttribute(
        "skills_share",
        AttrType.NUMBER,
        "Percent of token_budget the skills catalog may take before the convention files; "
        "what they leave unused goes to it too.",
        default=DEFAULT_SKILLS_SHARE,
        bounds=(1, 100),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "max_import_depth",
        AttrType.NUMBER,
        "How many @import hops to follow.",
        default=DEFAULT_MAX_IMPORT_DEPTH,
        bounds=(0, MAX_IMPORT_DEPTH),
    ),
    ConfigAttribute(
        "import_allow",
        AttrType.LIST_STRING,
        "Directories outside the repository that @imports may read (~ expands; "
        "allows @~/ imports when it includes the home directory).",
        default=(),
        user_only=True,
    ),
    ConfigAttribute(
        "max_file_bytes",
        AttrType.NUMBER,
        "Files larger than this are not read (reported instead).",
        default=DEFAULT_MAX_BYTES,
        bounds=(0, MAX_FILE_BYTES),
        zero_is_default=True,
    ),
)


@dataclass(frozen=True)
class Settings:
    """The resolved config; ``settings_from({})`` (the schema's defaults) is what an empty
    provider block means, and what the provider starts with."""

    patterns: tuple[str, ...]
    explicit: bool
    """Whether ``paths`` was declared: then each must name something."""
    policy: ImportPolicy
    always_rules: bool
    skills: bool
    skills_share: int


def settings_from(config: Mapping[str, Any]) -> Settings:
    """Check the decoded provider block; raise ``invalid_request`` naming what is wrong.

    Declared ``paths`` are checked against the repository of the process's
    working directory (the kernel's cwd, where relative config paths
    resolve); at Contribute time they are read relative to the request's
    repository root.
    """
    values = resolve_config(SCHEMA, config)
    patterns = tuple(values["paths"])
    explicit = bool(config.get("paths"))  # null or [] (a zero value): the default list
    if explicit:
        missing = unresolved(find_root(Path.cwd()), patterns)
        if missing:
            raise invalid_request(
                "declared convention path(s) resolve to nothing: " + ", ".join(missing)
            )
    allowed = tuple(Path(p).expanduser().resolve() for p in values["import_allow"])
    return Settings(
        patterns,
        explicit,
        ImportPolicy(
            max_depth=values["max_import_depth"],
            allowed_roots=allowed,
            max_bytes=values["max_file_bytes"],
        ),
        values["always_rules"],
        values["skills"],
        int(values["skills_share"]),
    )
