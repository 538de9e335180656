"""The small frozen values the core works on; protobuf never reaches past the adapter.

Each provider receives a :class:`ContextRequest` and returns :class:`Section`
values; the adapter stamps the provider name and appends them to the chain.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Stability(enum.Enum):
    """Cache-prefix hint: static sections belong before dynamic ones."""

    STATIC = "static"
    DYNAMIC = "dynamic"


@dataclass(frozen=True)
class ModelTarget:
    """What the prompt is assembled for; ``id`` selects the kernel's tokenizer."""

    id: str
    context_window: int = 0
    effective_ceiling: int = 0


@dataclass(frozen=True)
class ContextRequest:
    """One Contribute call, as the core sees it (no prior sections: we never touch them)."""

    token_budget: int
    working_directory: str
    model_target: ModelTarget | None
    files_touched: tuple[str, ...] = ()
    session_id: str = ""
    parent_session_id: str = ""
    turn_id: str = ""
    history_tokens: int = 0
    assembled_tokens_last_turn: int = 0


@dataclass(frozen=True)
class Section:
    """One labelled piece of prompt; ``tokens`` is the kernel's count of ``text``."""

    label: str
    text: str
    tokens: int
    stability: Stability
    truncated: bool = False


@dataclass(frozen=True)
class Unit:
    """A whole piece of content that is kept or dropped, never cut.

    ``group`` names where it came from (a file path), ``name`` what it is (a
    heading trail, a directory) so the "left out" note can say both; ``order``
    restores document order after units were ranked.
    """

    text: str
    group: str = ""
    name: str = ""
    order: int = 0


class AttrType(enum.Enum):
    """The kernel's config attribute types (config.v1.AttrType)."""

    STRING = "string"
    NUMBER = "number"
    BOOL = "bool"
    LIST_STRING = "list_string"
    LIST_NUMBER = "list_number"
    MAP_STRING = "map_string"
    OBJECT = "object"


@dataclass(frozen=True)
class ConfigAttribute:
    """One attribute a user may write in the provider's ``agent.hcl`` block."""

    name: str
    type: AttrType
    description: str
    default: Any = None
    required: bool = False
    sensitive: bool = False
    object_attributes: tuple[ConfigAttribute, ...] = ()
    bounds: tuple[int, int] | None = None
    """For a NUMBER that must be a whole number: the smallest and largest allowed."""
    zero_is_default: bool = False
    """The type's zero value (``""``, ``0``, ``[]``, ``{}``) means the default: the
    spec lets a kernel send it for an omitted attribute. False where the zero is a
    setting of its own (``recent_commits = 0``: no commits), and for bools."""
    user_only: bool = False
    """The attribute names a program or a place outside the repository: a host takes it
    from the user's own configuration only, never from a repository's ``agent.hcl`` (a
    repository nobody vetted must not choose what runs or what is read; docs/safety.md)."""


@dataclass(frozen=True)
class Capabilities:
    """What GetCapabilities advertises."""

    default_token_budget: int
    stability: Stability
    config_schema: tuple[ConfigAttribute, ...]
    compactor: bool = False


@dataclass(frozen=True)
class Identity:
    """The ProducerRef a provider reports from Describe."""

    name: str
    version: str
    source: str


@dataclass(frozen=True)
class Contribution:
    """A provider's answer for one turn: its sections, in the order they join the chain."""

    sections: tuple[Section, ...] = field(default_factory=tuple)
    why_empty: str = ""
    """With no sections, why (``no convention file in this repository``): the standalone
    commands and the log say it; the wire has no field for it."""
