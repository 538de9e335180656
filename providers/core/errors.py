"""The spec's error taxonomy, one enum and one exception for every provider.

Expected failures raise :class:`ProviderError`; the adapter maps the category
to a gRPC code once (``goplugin.status``). Anything else is a bug and becomes
``unknown``/INTERNAL with the traceback logged. Problems that must not fail a
turn (one unreadable import) are not errors at all: they become notes.
"""

from __future__ import annotations

import enum


class ErrorCategory(enum.Enum):
    """context-conformance.md, "Error taxonomy"."""

    SOURCE_UNAVAILABLE = "source_unavailable"
    BUDGET_EXCEEDED = "budget_exceeded"
    SCOPE_VIOLATION = "scope_violation"
    INVALID_REQUEST = "invalid_request"
    UNKNOWN = "unknown"


# Whether the same call may succeed if retried as-is (ContextError.retryable).
_RETRYABLE = {
    ErrorCategory.SOURCE_UNAVAILABLE: True,
    ErrorCategory.BUDGET_EXCEEDED: False,
    ErrorCategory.SCOPE_VIOLATION: False,
    ErrorCategory.INVALID_REQUEST: False,
    ErrorCategory.UNKNOWN: False,
}


class ProviderError(Exception):
    """A classified failure: category, human-readable message, retryable."""

    def __init__(
        self, category: ErrorCategory, message: str, *, retryable: bool | None = None
    ) -> None:
        super().__init__(message)
        self.category = category
        self.message = message
        self.retryable = _RETRYABLE[category] if retryable is None else retryable

    def __str__(self) -> str:
        return f"{self.category.value}: {self.message}"


def invalid_request(message: str) -> ProviderError:
    return ProviderError(ErrorCategory.INVALID_REQUEST, message)


def source_unavailable(message: str) -> ProviderError:
    return ProviderError(ErrorCategory.SOURCE_UNAVAILABLE, message)
