"""Our own providers inside the host's process: a plugin the chain asks as it asks any other.

The bridge's background process keeps one repository's providers for as long as its
sessions last; a plugin process each costs a Python start and about 45 MB, and an
``agent.hcl`` may declare dozens. So a declaration whose source is one of ours runs
here, in the host's process; any other still runs as a plugin
(:mod:`providers.host.launcher`). Only the transport differs:

- :attr:`InProcessPlugin.stub` has the ContextService's methods, called as a gRPC stub's
  are (the request message, ``timeout=``), and hands each request to the adapter's own
  service (:class:`~providers.goplugin.provider_service.ProviderService`: the gRPC
  servicer's conversion, ``core.provider.contribute``, without a transport) on a thread
  of its own. A call that outlasts its timeout fails DEADLINE_EXCEEDED, as over gRPC,
  while the provider finishes its turn.
- A failure is raised as :class:`~providers.host.call_errors.LocalCallError`, with the
  code and ContextError the servicer would have sent, so the chain's checks (recount,
  budget, scope) and its reading of errors are the ones a plugin gets.
- Tokens are counted by the kernel's own rule (:func:`kernel_count`), called directly:
  there is no callback server to ask.
- grpcio is never loaded for them (about 50 ms of a background process's start): only
  a plugin process of another source brings it in.
- The provider's ``answer_sent`` runs once the answer is handed back, on the call's
  thread, as gRPC runs it once the answer is sent.
- :meth:`InProcessPlugin.close` lets the provider stop its watchers.

Bring-up is a plugin's (:func:`providers.host.bringup.configured`): Describe,
GetCapabilities, the block decoded against the schema, Configure.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from providers.core.errors import ErrorCategory, ProviderError
from providers.goplugin.context_errors import capped, code_name, context_error
from providers.goplugin.provider_service import NoRender, ProviderService
from providers.goplugin.token_counts import TokenCountCache
from providers.host.call_errors import LocalCallError
from providers.host.kernel_count import kernel_count
from providers.host.plugin_start import LaunchError, plugin_environment
from providers.registry import ProviderHandle

log = logging.getLogger(__name__)

CLOSE_WAIT_S = 0.5
"""How long closing waits for the provider to stop (a turn may hold its lock)."""


def _failure(error: BaseException) -> LocalCallError:
    """``error`` as the gRPC servicer would have said it: the taxonomy's code and
    ContextError, UNIMPLEMENTED for a Render the provider lacks, and anything else a bug
    (INTERNAL, category ``unknown``, logged with its traceback)."""
    if isinstance(error, NoRender):
        return LocalCallError("UNIMPLEMENTED", str(error))
    if not isinstance(error, ProviderError):
        log.error("provider bug", exc_info=error)
        error = ProviderError(ErrorCategory.UNKNOWN, f"{type(error).__name__}: {error}")
    else:
        log.warning("%s", error)
    return LocalCallError(code_name(error), capped(str(error)), context_error(error))


def _call(
    work: Callable[[float | None], tuple[Any, Callable[[], None] | None]],
    timeout: float | None,
) -> Any:
    """``work(time_remaining)`` on a thread of its own, waited for ``timeout`` seconds;
    what it asks to run once its answer is out runs on that thread after the answer is
    handed back (or abandoned), as gRPC runs it once the answer is sent."""
    deadline = None if timeout is None else time.monotonic() + timeout
    done = threading.Event()
    outcome: list[Any] = []

    def run() -> None:
        sent: Callable[[], None] | None = None
        try:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            answer, sent = work(remaining)
            outcome.append(answer)
        except BaseException as error:  # handed to the caller, as gRPC hands its status
            outcome.append(_failure(error))
        finally:
            done.set()
        if sent is not None:
            sent()

    threading.Thread(target=run, name="inprocess-call", daemon=True).start()
    if not done.wait(timeout):
        raise LocalCallError("DEADLINE_EXCEEDED", "Deadline Exceeded")
    result = outcome[0]
    if isinstance(result, LocalCallError):
        raise result
    return result


def _answer(answer: Callable[[], Any]) -> Callable[[float | None], tuple[Any, None]]:
    """A call with nothing to run after its answer."""
    return lambda _remaining: (answer(), None)


class LocalStub:
    """The ContextService stub's methods, each ``(request, timeout=None)``, served here."""

    def __init__(self, service: ProviderService) -> None:
        self._service = service

    def Describe(self, request: Any, timeout: float | None = None) -> Any:
        return _call(_answer(self._service.describe), timeout)

    def GetCapabilities(self, request: Any, timeout: float | None = None) -> Any:
        return _call(_answer(self._service.capabilities), timeout)

    def Configure(self, request: Any, timeout: float | None = None) -> Any:
        return _call(_answer(lambda: self._service.configure(request)), timeout)

    def Contribute(self, request: Any, timeout: float | None = None) -> Any:
        return _call(lambda remaining: self._service.contribute(request, remaining), timeout)

    def Render(self, request: Any, timeout: float | None = None) -> Any:
        return _call(_answer(lambda: self._service.render(request)), timeout)


@dataclass
class InProcessPlugin:
    """One of our providers, loaded in this process and served through :class:`LocalStub`."""

    local_name: str
    stub: LocalStub
    handle: ProviderHandle
    _closed: bool = field(default=False)

    @classmethod
    def start(cls, spec: str, *, local_name: str) -> InProcessPlugin:
        """Load the provider ``spec`` names (``module:Class``, a registry entry's
        ``factory``; its imports are the slow part) under ``local_name``, the name its
        sections carry, as the kernel's environment tells a plugin."""
        handle = ProviderHandle(spec)
        try:
            handle.load_now()
        except RuntimeError as error:  # could not import or make it: a launch that failed
            raise LaunchError(f"{local_name}: {error}") from error
        counts = TokenCountCache(None, local=kernel_count)
        service = ProviderService(handle, counts, plugin_environment(local_name))
        return cls(local_name, LocalStub(service), handle)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> float:
        """Let the provider stop its watchers; how long that took (0 once closed)."""
        if self._closed:
            return 0.0
        self._closed = True
        started = time.perf_counter()
        self.handle.close(CLOSE_WAIT_S)
        return time.perf_counter() - started
