"""The error taxonomy mapped to gRPC once: a code plus a packed ContextError detail.

The mapping itself is gRPC-free (:mod:`providers.goplugin.context_errors`); this module
turns it into grpcio's status and reads it back from a failed call.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2
from grpc_status import rpc_status

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.errors import ProviderError
from providers.goplugin.context_errors import GRPC_CODE, capped, context_error


def to_grpc_status(error: ProviderError) -> grpc.Status:
    """A status with the category's code and one ContextError in its details."""
    detail = any_pb2.Any()
    detail.Pack(context_error(error))
    status = status_pb2.Status(
        code=GRPC_CODE[error.category], message=capped(str(error)), details=[detail]
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
