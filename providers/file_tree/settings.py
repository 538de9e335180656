"""The provider's config: schema (the only place defaults are written) and the checks
``configure`` runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from providers.core.config import COMMON_ATTRIBUTES, resolve_config
from providers.core.types import AttrType, ConfigAttribute
from providers.file_tree.listing import AI_IGNORE_FILES, DEFAULT_IGNORE_FILE, ListingOptions

NAME = "file-tree"
DEFAULT_TOKEN_BUDGET = 1000

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "exclude",
        AttrType.LIST_STRING,
        "Gitignore-style patterns (relative to the repository root) hidden from the tree, "
        "on top of what git ignores; tracked files too.",
        default=(),
    ),
    ConfigAttribute(
        "max_depth",
        AttrType.NUMBER,
        "Deepest level expanded breadth first (1: the root's entries only); directories "
        "on the way to files_touched are expanded regardless. Unset: no limit.",
        bounds=(0, 10_000),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "show_files",
        AttrType.BOOL,
        "List files; false shows directories only, each with its counts.",
        default=True,
    ),
    ConfigAttribute(
        "ignore_file",
        AttrType.STRING,
        "Our own gitignore-style file at the repository root (patterns relative to the "
        'root); "" for none.',
        default=DEFAULT_IGNORE_FILE,
    ),
    ConfigAttribute(
        "ai_ignore_files",
        AttrType.LIST_STRING,
        "Other agents' ignore files at the repository root honoured too (gitignore syntax); "
        "list the ones to honour, [] for none.",
        default=AI_IGNORE_FILES,
    ),
    ConfigAttribute(
        "watch",
        AttrType.BOOL,
        "Keep the listing current with a file watcher; false compares directory times each "
        "turn (a stat per directory) and lists again only when one changed.",
        default=True,
    ),
)


@dataclass(frozen=True)
class Settings:
    """The resolved config; a change drops the listing and its watcher. ``settings_from({})``
    (the schema's defaults) is what an empty provider block means, and what the provider
    starts with."""

    listing: ListingOptions
    max_depth: int | None
    """None: no limit."""
    show_files: bool
    watch: bool


def settings_from(config: Mapping[str, Any]) -> Settings:
    """Check ``config`` against :data:`SCHEMA` (``invalid_request`` on anything wrong)."""
    values = resolve_config(SCHEMA, config)
    return Settings(
        ListingOptions(
            tuple(values["exclude"]), values["ignore_file"], tuple(values["ai_ignore_files"])
        ),
        values["max_depth"],
        values["show_files"],
        values["watch"],
    )
