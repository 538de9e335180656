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
  kept for its calls (:class:`_Workers`). A call that outlasts its timeout fails
  DEADLINE_EXCEEDED, as over gRPC, while the provider finishes its turn.
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
import queue
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


class _Workers:
    """Daemon threads that serve one provider's calls and wait for the next.

    A thread per call cost about 250 us of a warm turn's 500 (its start, and a provider
    whose caches were warm on another thread): a kept thread answers in about half. A
    call that hangs keeps its thread; the next call gets another, up to :data:`MOST`, past
    which calls wait for one (and their callers' deadlines). Daemon threads, as gRPC's
    abandoned calls: a hung provider never holds up the process's exit."""

    MOST = 4

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._threads = 0

    def run(self, task: Callable[[], None]) -> None:
        with self._lock:
            spawn = self._idle <= self._tasks.qsize() and self._threads < self.MOST
            self._threads += spawn
        self._tasks.put(task)
        if spawn:
            threading.Thread(target=self._serve, name="inprocess-call", daemon=True).start()

    def stop(self) -> None:
        """Let the waiting threads go (a busy one leaves after its call)."""
        with self._lock:
            threads = self._threads
        for _ in range(threads):
            self._tasks.put(None)

    def _serve(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            task = self._tasks.get()
            with self._lock:
                self._idle -= 1
                if task is None:
                    self._threads -= 1
                    return
            task()


def _call(
    workers: _Workers,
    work: Callable[[float | None], tuple[Any, Callable[[], None] | None]],
    timeout: float | None,
) -> Any:
    """``work(time_remaining)`` on one of ``workers``' threads, waited for ``timeout``
    seconds; what it asks to run once its answer is out runs on that thread after the
    answer is handed back (or abandoned), as gRPC runs it once the answer is sent."""
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

    workers.run(run)
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
        self.workers = _Workers()

    def Describe(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self.workers, _answer(self._service.describe), timeout)

    def GetCapabilities(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self.workers, _answer(self._service.capabilities), timeout)

    def Configure(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self.workers, _answer(lambda: self._service.configure(request)), timeout)

    def Contribute(self, request: Any, timeout: float | None = None) -> Any:
        return _call(
            self.workers, lambda remaining: self._service.contribute(request, remaining), timeout
        )

    def Render(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self.workers, _answer(lambda: self._service.render(request)), timeout)


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
        self.stub.workers.stop()
        return time.perf_counter() - started
