"""The provider's config: schema (the only place defaults are written) and the checks
``configure`` runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from providers.core.config import COMMON_ATTRIBUTES, resolve_config
from providers.core.errors import invalid_request
from providers.core.types import AttrType, ConfigAttribute
from providers.git_status.git import DEFAULT_TIMEOUT_MS

NAME = "git-status"
DEFAULT_TOKEN_BUDGET = 800
UNTRACKED_MODES = ("all", "normal", "no")

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "recent_commits",
        AttrType.NUMBER,
        "How many of the latest commits to list (short sha and subject); 0 for none.",
        default=5,
        bounds=(0, 1000),
    ),
    ConfigAttribute(
        "untracked",
        AttrType.STRING,
        "Untracked files: `all` (every file), `normal` (directories collapsed, with their "
        "file count), `no` (skip).",
        default="normal",
        zero_is_default=True,
    ),
    ConfigAttribute(
        "max_entries",
        AttrType.NUMBER,
        "At most this many changed paths are listed one per line; more are grouped by directory.",
        default=200,
        bounds=(0, 100_000),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "git",
        AttrType.STRING,
        "The git executable: a name looked up on PATH, or a path.",
        default="git",
        zero_is_default=True,
        user_only=True,
    ),
    ConfigAttribute(
        "timeout_ms",
        AttrType.NUMBER,
        "Give up on a git command after this many milliseconds (the turn gets no section).",
        default=DEFAULT_TIMEOUT_MS,
        bounds=(1, 600_000),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "watch",
        AttrType.BOOL,
        "Watch the repository for changes so unchanged turns run no git at all; "
        "false runs `git status` every turn.",
        default=True,
    ),
)


@dataclass(frozen=True)
class Settings:
    """The resolved config; ``settings_from({})`` (the schema's defaults) is what an empty
    provider block means, and what the provider starts with."""

    git: str
    """As configured: a name looked up on PATH, or a path (the provider finds it when it
    builds its :class:`~providers.git_status.git.Git`)."""
    recent_commits: int
    untracked: str
    max_entries: int
    timeout_ms: int
    watch: bool


def settings_from(raw: Mapping[str, Any]) -> Settings:
    """Resolve and check ``raw`` (the decoded ``provider`` block); ``invalid_request`` naming
    what is wrong."""
    config = resolve_config(SCHEMA, raw)
    untracked = config["untracked"]
    if untracked not in UNTRACKED_MODES:
        raise invalid_request(
            f"config attribute 'untracked' must be one of {', '.join(UNTRACKED_MODES)} "
            f"(got {untracked!r})"
        )
    return Settings(
        git=config["git"],
        recent_commits=config["recent_commits"],
        untracked=untracked,
        max_entries=config["max_entries"],
        timeout_ms=config["timeout_ms"],
        watch=config["watch"],
    )
