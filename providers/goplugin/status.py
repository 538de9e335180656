"""The error taxonomy mapped to gRPC once: a code plus a packed ContextError detail."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from grpc_status import rpc_status

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.errors import ErrorCategory, ProviderError

# context-conformance.md: "On the wire, using the canonical gRPC error-code mapping".
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


def _capped(text: str) -> str:
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 30] + f" ... ({len(text):,} characters in all)"


def to_grpc_status(error: ProviderError) -> grpc.Status:
    """A status with the category's code and one ContextError in its details."""
    detail = any_pb2.Any()
    detail.Pack(
        context_pb2.ContextError(
            category=_WIRE_CATEGORY[error.category],
            message=_capped(error.message),
            retryable=error.retryable,
        )
    )
    status = status_pb2.Status(
        code=GRPC_CODE[error.category], message=_capped(str(error)), details=[detail]
    )
    return rpc_status.to_status(status)


def context_error_from(call: grpc.RpcError) -> context_pb2.ContextError | None:
    """The ContextError a failed call carried (host side), if any."""
    status = rpc_status.from_call(call)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        error = context_pb2.ContextError()
        if detail.Unpack(error):
            return error
    return None


def category_from_wire(value: int) -> ErrorCategory:
    for category, wire in _WIRE_CATEGORY.items():
        if wire == value:
            return category
    return ErrorCategory.UNKNOWN
