"""Our published identity: one distribution, one version, one source for all providers."""

from __future__ import annotations

from functools import cache
from importlib import metadata

from providers.core.types import Identity

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
