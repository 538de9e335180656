"""ContextService: convert from proto, call the provider, convert back. Nothing else.

The provider is loaded after the handshake (its imports are the slow part of
start-up), so every handler first waits for it. Expected failures
(:class:`ProviderError`) become a status with a ContextError; anything else is
a bug: logged with its traceback and answered INTERNAL with category
``unknown`` and the raw message.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf.message import DecodeError

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2, context_pb2_grpc
from providers.core.deadline import Deadline
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.identity import configured_name, local_name_from_env, section_provider_name
from providers.core.provider import ContextProvider, contribute
from providers.core.render_tree import check_schema_version, render_section
from providers.core.types import Contribution
from providers.goplugin import convert
from providers.goplugin.callback import KernelCounter, TokenCountCache
from providers.goplugin.status import to_grpc_status
from providers.registry import ProviderHandle

log = logging.getLogger(__name__)

T = TypeVar("T")


class ContextService(context_pb2_grpc.ContextServiceServicer):
    """The application service, one instance per plugin process."""

    def __init__(
        self,
        handle: ProviderHandle,
        counts: TokenCountCache,
        environ: Mapping[str, str],
    ) -> None:
        self._handle = handle
        self._counts = counts
        self._env_name = local_name_from_env(environ)
        self._configured_name: str | None = None
        self._lock = threading.Lock()  # one Contribute at a time: providers keep caches
        self._last: tuple[Contribution, str, list[content_pb2.ContextSection]] | None = None

    def _converted(self, result: Contribution, name: str) -> list[content_pb2.ContextSection]:
        """Our sections as protos; an unchanged answer (the same object a warm turn
        returns) is not converted again."""
        if self._last is not None and self._last[0] is result and self._last[1] == name:
            return self._last[2]
        sections = [convert.section_to_proto(s, name) for s in result.sections]
        self._last = (result, name, sections)
        return sections

    def _section_provider_name(self, provider: ContextProvider) -> str:
        return section_provider_name(
            self._configured_name, self._env_name, provider.identity().name
        )

    def Describe(
        self, request: context_pb2.DescribeRequest, context: grpc.ServicerContext
    ) -> context_pb2.DescribeResponse:
        return self._guard(
            context, request, lambda: convert.describe_to_proto(self._handle.get().identity())
        )

    def GetCapabilities(
        self, request: context_pb2.GetCapabilitiesRequest, context: grpc.ServicerContext
    ) -> context_pb2.GetCapabilitiesResponse:
        return self._guard(
            context,
            request,
            lambda: convert.capabilities_to_proto(self._handle.get().capabilities()),
        )

    def Configure(
        self, request: context_pb2.ConfigureRequest, context: grpc.ServicerContext
    ) -> context_pb2.ConfigureResponse:
        def configure() -> context_pb2.ConfigureResponse:
            config = convert.config_from_proto(request)
            with self._lock:
                self._handle.get().configure(config)
                self._configured_name = configured_name(config)
            return context_pb2.ConfigureResponse()

        return self._guard(context, request, configure)

    def Contribute(
        self, request: context_pb2.ContextRequest, context: grpc.ServicerContext
    ) -> context_pb2.ContextContribution:
        def answer() -> context_pb2.ContextContribution:
            core_request = convert.request_from_proto(request)
            provider = self._handle.get()
            name = self._section_provider_name(provider)
            model_id = core_request.model_target.id if core_request.model_target else ""
            counter = KernelCounter(self._counts, model_id)
            with self._lock:  # the work budget counts from here: waiting for the lock is spent
                deadline = Deadline.for_turn(context.time_remaining())
                result = contribute(provider, core_request, counter, deadline)
                ours = self._converted(result, name)
            hook = self._handle.answer_sent
            if hook is not None and not context.add_callback(hook):
                hook()  # the call already ended (cancelled): nothing to hold up
            response = context_pb2.ContextContribution()
            response.sections.extend(request.prior_sections)
            response.sections.extend(ours)
            return response

        return self._guard(context, request, answer)

    def Render(
        self, request: context_pb2.RenderRequest, context: grpc.ServicerContext
    ) -> context_pb2.RenderResponse:
        """One of our sections (schema_version "1") as a render tree, drawn by the provider
        that wrote it; UNIMPLEMENTED (conformant) for a provider without ``render``."""
        provider = self._guard(context, request, self._handle.get)
        render = self._handle.render
        if render is None:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "Render is optional; not implemented")

        def answer() -> context_pb2.RenderResponse:
            check_schema_version(request.schema_version)
            payload = convert.section_payload(request.payload)
            ours = self._section_provider_name(provider)
            return convert.render_response(render_section(render, payload, ours))

        return self._guard(context, request, answer)

    def _guard(self, context: grpc.ServicerContext, request: object, call: Callable[[], T]) -> T:
        """Run ``call``, its failures classified; a request that did not decode is refused."""
        if isinstance(request, Undecodable):
            error = ProviderError(ErrorCategory.INVALID_REQUEST, request.message)
            log.warning("%s", error)
            _abort(context, error)
        try:
            return call()
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
