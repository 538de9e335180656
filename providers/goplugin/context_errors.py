"""The error taxonomy on the wire, without gRPC: a ContextError per category and the
canonical gRPC code each category travels with (context-conformance.md: "On the wire,
using the canonical gRPC error-code mapping").

gRPC's own status (:mod:`providers.goplugin.status`) is built from these; so is the
failure an in-process call raises (:mod:`providers.host.call_errors`), which must not
load grpcio to say it.
"""

from __future__ import annotations

from google.rpc import code_pb2

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.errors import ErrorCategory, ProviderError

GRPC_CODE = {
    ErrorCategory.SOURCE_UNAVAILABLE: code_pb2.UNAVAILABLE,
    ErrorCategory.BUDGET_EXCEEDED: code_pb2.FAILED_PRECONDITION,
    ErrorCategory.SCOPE_VIOLATION: code_pb2.PERMISSION_DENIED,
    ErrorCategory.INVALID_REQUEST: code_pb2.INVALID_ARGUMENT,
    ErrorCategory.UNKNOWN: code_pb2.INTERNAL,
}
_WIRE_CATEGORY = {
    ErrorCategory.SOURCE_UNAVAILABLE: context_pb2.CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE,
    ErrorCategory.BUDGET_EXCEEDED: context_pb2.CONTEXT_ERROR_CATEGORY_BUDGET_EXCEEDED,
    ErrorCategory.SCOPE_VIOLATION: context_pb2.CONTEXT_ERROR_CATEGORY_SCOPE_VIOLATION,
    ErrorCategory.INVALID_REQUEST: context_pb2.CONTEXT_ERROR_CATEGORY_INVALID_REQUEST,
    ErrorCategory.UNKNOWN: context_pb2.CONTEXT_ERROR_CATEGORY_UNKNOWN,
}

MAX_MESSAGE_CHARS = 2000
"""The message travels twice in gRPC metadata (status and detail), which holds 16 KiB."""


def capped(text: str) -> str:
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 30] + f" ... ({len(text):,} characters in all)"


def context_error(error: ProviderError) -> context_pb2.ContextError:
    """The ContextError detail that goes with ``error``'s status."""
    return context_pb2.ContextError(
        category=_WIRE_CATEGORY[error.category],
        message=capped(error.message),
        retryable=error.retryable,
    )


def code_name(error: ProviderError) -> str:
    """The name of the gRPC code ``error``'s category travels with (``UNAVAILABLE``...)."""
    return str(code_pb2.Code.Name(GRPC_CODE[error.category]))


def category_from_wire(value: int) -> ErrorCategory:
    for category, wire in _WIRE_CATEGORY.items():
        if wire == value:
            return category
    return ErrorCategory.UNKNOWN
