"""The provider's config schema and its checked, defaulted values: defaults live here only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from providers.core.config import COMMON_ATTRIBUTES, resolve_config, whole_number
from providers.core.errors import invalid_request
from providers.core.types import AttrType, ConfigAttribute
from providers.git_status.git import DEFAULT_TIMEOUT_MS, find_executable

NAME = "git-status"
DEFAULT_TOKEN_BUDGET = 800
DEFAULT_RECENT_COMMITS = 5
DEFAULT_MAX_ENTRIES = 200
UNTRACKED_MODES = ("all", "normal", "no")

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "recent_commits",
        AttrType.NUMBER,
        "How many of the latest commits to list (short sha and subject); 0 for none.",
        default=DEFAULT_RECENT_COMMITS,
        bounds=(0, 1000),
    ),
    ConfigAttribute(
        "untracked",
        AttrType.STRING,
        "Untracked files: `all` (every file), `normal` (directories collapsed), `no` (skip).",
        default="normal",
        zero_is_default=True,
    ),
    ConfigAttribute(
        "max_entries",
        AttrType.NUMBER,
        "At most this many changed paths are listed one per line; more are grouped by directory.",
        default=DEFAULT_MAX_ENTRIES,
        bounds=(0, 100_000),
        zero_is_default=True,
    ),
    ConfigAttribute(
        "git",
        AttrType.STRING,
        "The git executable: a name looked up on PATH, or a path.",
        default="git",
        zero_is_default=True,
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
    git: str = "git"
    recent_commits: int = DEFAULT_RECENT_COMMITS
    untracked: str = "normal"
    max_entries: int = DEFAULT_MAX_ENTRIES
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    watch: bool = True


def settings_from(raw: Mapping[str, Any]) -> Settings:
    """Resolve and check ``raw`` (the decoded ``provider`` block); the git path is resolved."""
    config = resolve_config(SCHEMA, raw)
    untracked = config["untracked"]
    if untracked not in UNTRACKED_MODES:
        raise invalid_request(
            f"config attribute 'untracked' must be one of {', '.join(UNTRACKED_MODES)} "
            f"(got {untracked!r})"
        )
    return Settings(
        git=find_executable(config["git"]),
        recent_commits=whole_number(config, "recent_commits") or 0,
        untracked=untracked,
        max_entries=whole_number(config, "max_entries") or 0,
        timeout_ms=whole_number(config, "timeout_ms") or DEFAULT_TIMEOUT_MS,
        watch=config["watch"],
    )
