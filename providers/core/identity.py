"""Our published identity: one distribution, one version, one source for all providers."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import metadata
from urllib.parse import unquote

from providers.core.types import Identity

OTEL_ENV = "OTEL_RESOURCE_ATTRIBUTES"
_OTEL_NAME_KEY = "pluggableharness.producer.name"

DISTRIBUTION = "context-providers"
SOURCE = "github.com/context-providers/context-providers"


@cache
def package_version() -> str:
    """The installed distribution's version (semver), or 0.0.0 when run from a bare tree."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0.0.0"


def published_identity(name: str) -> Identity:
    """``name`` is the provider's published name, e.g. ``repo-conventions``."""
    return Identity(name=name, version=package_version(), source=f"{SOURCE}/{name}")


def local_name_from_env(environ: Mapping[str, str]) -> str | None:
    """The agent.hcl local name the kernel put in OTEL_RESOURCE_ATTRIBUTES, if any."""
    for pair in environ.get(OTEL_ENV, "").split(","):
        key, sep, value = pair.partition("=")
        if sep and unquote(key.strip()) == _OTEL_NAME_KEY and value.strip():
            return unquote(value.strip())
    return None


def configured_name(config: Mapping[str, object]) -> str | None:
    """The ``provider_name`` attribute of a provider block, when it names something."""
    name = config.get("provider_name")
    return name if isinstance(name, str) and name else None


def section_provider_name(configured: str | None, environ_name: str | None, published: str) -> str:
    """wire-contract.md: the name our sections carry, the one rule for it.

    The ``provider_name`` attribute, then the kernel's local name for us (from
    ``OTEL_RESOURCE_ATTRIBUTES``), then our published name.
    """
    return configured or environ_name or published
