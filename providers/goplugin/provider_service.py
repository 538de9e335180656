"""ContextService's work without a transport: convert from proto, call the provider,
convert back.

The gRPC servicer (:mod:`providers.goplugin.context_service`) serves it to a kernel over
go-plugin; the host serves it in its own process (:mod:`providers.host.inprocess`)
without loading grpcio at all. Failures are raised as they come: :class:`ProviderError`
for the taxonomy's, anything else a bug; each transport says them in its own way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.deadline import Deadline
from providers.core.identity import configured_name, local_name_from_env, section_provider_name
from providers.core.provider import ContextProvider, contribute
from providers.core.render_tree import check_schema_version, render_section
from providers.core.types import Contribution
from providers.goplugin import convert
from providers.goplugin.token_counts import KernelCounter, TokenCountCache
from providers.registry import ProviderHandle


class NoRender(Exception):
    """The provider has no ``render``: Render is optional (UNIMPLEMENTED on the wire)."""


class ProviderService:
    """One provider's answers to the ContextService calls, one instance per provider."""

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

    def describe(self) -> context_pb2.DescribeResponse:
        return convert.describe_to_proto(self._handle.get().identity())

    def capabilities(self) -> context_pb2.GetCapabilitiesResponse:
        return convert.capabilities_to_proto(self._handle.get().capabilities())

    def configure(self, request: context_pb2.ConfigureRequest) -> context_pb2.ConfigureResponse:
        config = convert.config_from_proto(request)
        with self._lock:
            self._handle.get().configure(config)
            self._configured_name = configured_name(config)
        return context_pb2.ConfigureResponse()

    def contribute(
        self, request: context_pb2.ContextRequest, time_remaining: float | None
    ) -> tuple[context_pb2.ContextContribution, Callable[[], None] | None]:
        """The answer (the request's prior sections, then ours), and what to call once it
        has been sent (the provider's ``answer_sent``, if it has one). ``time_remaining``:
        the call's own deadline, in seconds from now (None: none)."""
        core_request = convert.request_from_proto(request)
        provider = self._handle.get()
        name = self._section_provider_name(provider)
        model_id = core_request.model_target.id if core_request.model_target else ""
        counter = KernelCounter(self._counts, model_id)
        with self._lock:  # the work budget counts from here: waiting for the lock is spent
            deadline = Deadline.for_turn(time_remaining)
            result = contribute(provider, core_request, counter, deadline)
            ours = self._converted(result, name)
        response = context_pb2.ContextContribution()
        response.sections.extend(request.prior_sections)
        response.sections.extend(ours)
        return response, self._handle.answer_sent

    def render(self, request: context_pb2.RenderRequest) -> context_pb2.RenderResponse:
        """One of our sections (schema_version "1") as a render tree, drawn by the provider
        that wrote it; :class:`NoRender` for a provider without ``render``."""
        provider = self._handle.get()
        render = self._handle.render
        if render is None:
            raise NoRender("Render is optional; not implemented")
        check_schema_version(request.schema_version)
        payload = convert.section_payload(request.payload)
        ours = self._section_provider_name(provider)
        return convert.render_response(render_section(render, payload, ours))

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
