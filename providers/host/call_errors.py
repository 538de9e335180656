"""A provider call that failed, as the host reads it, whichever transport carried it.

A plugin process fails a call with grpcio's ``RpcError`` (a status and a packed
ContextError); one of ours in the host's process (:mod:`providers.host.inprocess`)
with :class:`LocalCallError`, which carries the same code name and ContextError without
loading grpcio. The chain, bring-up and rendering catch :func:`call_errors` and read
them with :func:`context_error_of` and :func:`failure_text`; grpcio is consulted only
when it is loaded, which it is whenever a plugin process could have failed a call.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.goplugin.context_errors import category_from_wire

if TYPE_CHECKING:
    import grpc


class LocalCallError(Exception):
    """A call to a provider in this process that failed: the gRPC code it would have
    travelled with (its name: ``DEADLINE_EXCEEDED``...), the details, and the
    ContextError, when the provider classified the failure."""

    def __init__(
        self, code_name: str, details: str, error: context_pb2.ContextError | None = None
    ) -> None:
        super().__init__(details)
        self.code_name = code_name
        self.error = error
        self._details = details

    def code(self) -> grpc.StatusCode:
        """The code as grpcio names it (loads grpcio: for callers that speak gRPC)."""
        import grpc

        return grpc.StatusCode[self.code_name]

    def details(self) -> str:
        return self._details

    def __str__(self) -> str:
        return f"{self.code_name}: {self._details}"


def call_errors() -> tuple[type[Exception], ...]:
    """What a failed provider call raises: ``except call_errors() as call``. Python
    evaluates an ``except`` clause only when something was raised, so a host that never
    loaded grpcio does not load it here."""
    grpc = sys.modules.get("grpc")
    rpc_error: type[Exception] | None = getattr(grpc, "RpcError", None)
    return (LocalCallError,) if rpc_error is None else (LocalCallError, rpc_error)


def context_error_of(call: Exception) -> context_pb2.ContextError | None:
    """The ContextError a failed call carried, if any."""
    if isinstance(call, LocalCallError):
        return call.error
    from providers.goplugin.status import context_error_from  # a gRPC failure: grpcio is in

    return context_error_from(call)  # type: ignore[arg-type]  # an RpcError (call_errors)


def failure_text(call: Exception) -> str:
    """``category: message`` from the ContextError, else ``CODE: details``."""
    error = context_error_of(call)
    if error is not None:
        return f"{category_from_wire(error.category).value}: {error.message}"
    if isinstance(call, LocalCallError):
        return str(call)
    import grpc

    if isinstance(call, grpc.Call):
        return f"{call.code().name}: {call.details()}"
    return f"{type(call).__name__}: {call}"
