"""ContextService: :class:`~providers.goplugin.provider_service.ProviderService` over gRPC.

The provider is loaded after the handshake (its imports are the slow part of
start-up), so every handler first waits for it. Expected failures
(:class:`ProviderError`) become a status with a ContextError; anything else is
a bug: logged with its traceback and answered INTERNAL with category
``unknown`` and the raw message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf.message import DecodeError

from providers._gen.pluggableharness.context.v1 import context_pb2, context_pb2_grpc
from providers.core.errors import ErrorCategory, ProviderError
from providers.goplugin.provider_service import NoRender, ProviderService
from providers.goplugin.status import to_grpc_status
from providers.goplugin.token_counts import TokenCountCache
from providers.registry import ProviderHandle

log = logging.getLogger(__name__)

T = TypeVar("T")


class ContextService(context_pb2_grpc.ContextServiceServicer):
    """The application service, one instance per plugin process: gRPC's side of
    :class:`~providers.goplugin.provider_service.ProviderService`."""

    def __init__(
        self,
        handle: ProviderHandle,
        counts: TokenCountCache,
        environ: Mapping[str, str],
    ) -> None:
        self._service = ProviderService(handle, counts, environ)

    def Describe(
        self, request: context_pb2.DescribeRequest, context: grpc.ServicerContext
    ) -> context_pb2.DescribeResponse:
        return self._guard(context, request, self._service.describe)

    def GetCapabilities(
        self, request: context_pb2.GetCapabilitiesRequest, context: grpc.ServicerContext
    ) -> context_pb2.GetCapabilitiesResponse:
        return self._guard(context, request, self._service.capabilities)

    def Configure(
        self, request: context_pb2.ConfigureRequest, context: grpc.ServicerContext
    ) -> context_pb2.ConfigureResponse:
        return self._guard(context, request, lambda: self._service.configure(request))

    def Contribute(
        self, request: context_pb2.ContextRequest, context: grpc.ServicerContext
    ) -> context_pb2.ContextContribution:
        def answer() -> context_pb2.ContextContribution:
            response, sent = self._service.contribute(request, context.time_remaining())
            if sent is not None and not context.add_callback(sent):
                sent()  # the call already ended (cancelled): nothing to hold up
            return response

        return self._guard(context, request, answer)

    def Render(
        self, request: context_pb2.RenderRequest, context: grpc.ServicerContext
    ) -> context_pb2.RenderResponse:
        """One of our sections as a render tree; UNIMPLEMENTED (conformant) for a provider
        without ``render``."""
        try:
            return self._guard(context, request, lambda: self._service.render(request))
        except NoRender as absent:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, str(absent))

    def _guard(self, context: grpc.ServicerContext, request: object, call: Callable[[], T]) -> T:
        """Run ``call``, its failures classified; a request that did not decode is refused."""
        if isinstance(request, Undecodable):
            error = ProviderError(ErrorCategory.INVALID_REQUEST, request.message)
            log.warning("%s", error)
            _abort(context, error)
        try:
            return call()
        except NoRender:
            raise  # Render's own answer
        except ProviderError as error:
            log.warning("%s", error)
            _abort(context, error)
        except Exception as exc:
            log.exception("provider bug")
            _abort(context, ProviderError(ErrorCategory.UNKNOWN, f"{type(exc).__name__}: {exc}"))


def _abort(context: grpc.ServicerContext, error: ProviderError) -> NoReturn:
    context.abort_with_status(to_grpc_status(error))
    raise AssertionError("abort_with_status returned")  # pragma: no cover


SERVICE = "pluggableharness.context.v1.ContextService"
MAX_NESTING = 32
"""Objects a config value may nest before protobuf refuses to decode it (upb's limit)."""


@dataclass(frozen=True)
class Undecodable:
    """A request whose bytes did not decode (nested too deep, malformed): it reaches the
    handler as this, so the answer is ``invalid_request``, not gRPC's bare INTERNAL."""

    message: str


def _lenient(message_type: Any) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return message_type.FromString(data)
        except DecodeError as exc:
            return Undecodable(
                f"the {message_type.DESCRIPTOR.name} could not be decoded ({exc}); a config "
                f"value nested deeper than {MAX_NESTING} objects is beyond protobuf's limit"
            )

    return decode


_METHODS: dict[str, tuple[Any, Any]] = {
    "GetCapabilities": (context_pb2.GetCapabilitiesRequest, context_pb2.GetCapabilitiesResponse),
    "Configure": (context_pb2.ConfigureRequest, context_pb2.ConfigureResponse),
    "Contribute": (context_pb2.ContextRequest, context_pb2.ContextContribution),
    "Render": (context_pb2.RenderRequest, context_pb2.RenderResponse),
    "Describe": (context_pb2.DescribeRequest, context_pb2.DescribeResponse),
}


def register_context_service(server: grpc.Server, service: ContextService) -> None:
    """The generated registration, with requests decoded leniently (see :class:`Undecodable`)."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            getattr(service, name),
            request_deserializer=_lenient(request),
            response_serializer=response.SerializeToString,
        )
        for name, (request, response) in _METHODS.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_registered_method_handlers(SERVICE, handlers)  # type: ignore[attr-defined]  # grpc-stubs predates it
