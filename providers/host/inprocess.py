"""Our own providers inside the host's process: a plugin the chain asks as it asks any other.

The bridge's background process keeps one repository's providers for as long as its
sessions last; a plugin process each costs a Python start and about 45 MB, and an
``agent.hcl`` may declare dozens. So a declaration whose source is one of ours runs
here, in the host's process; any other still runs as a plugin
(:mod:`providers.host.launcher`). Only the transport differs:

- :attr:`InProcessPlugin.stub` has the ContextService's methods, called as a gRPC stub's
  are (the request message, ``timeout=``), and hands each request to the adapter's own
  servicer (:class:`~providers.goplugin.context_service.ContextService`: the same
  conversion, ``core.provider.contribute``, the same error mapping) on a thread of its
  own. A call that outlasts its timeout fails DEADLINE_EXCEEDED, as over gRPC, while the
  provider finishes its turn.
- A failure is raised as a ``grpc.RpcError`` (:class:`LocalCallError`) carrying the same
  status and packed ContextError, so the chain's checks (recount, budget, scope) and
  its reading of errors are the ones a plugin gets.
- Tokens are counted by the kernel's own rule (:func:`kernel_token_count`), called
  directly: there is no callback server to ask.
- The provider's ``answer_sent`` runs once the answer is handed back, on the call's
  thread, as gRPC runs it once the answer is sent.
- :meth:`InProcessPlugin.close` lets the provider stop its watchers.

Bring-up is a plugin's (:func:`providers.host.bringup.configured`): Describe,
GetCapabilities, the block decoded against the schema, Configure.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

import grpc

from providers.goplugin.callback import TokenCountCache
from providers.goplugin.context_service import ContextService
from providers.goplugin.convert import text_block
from providers.host.callback_server import kernel_token_count
from providers.host.launcher import LaunchError, plugin_environment
from providers.registry import ProviderHandle

CLOSE_WAIT_S = 0.5
"""How long closing waits for the provider to stop (a turn may hold its lock)."""

Request = TypeVar("Request")
Response = TypeVar("Response")
_Metadata = tuple[tuple[str, str | bytes], ...]


def kernel_count(text: str) -> int:
    """What the kernel's CountTokens answers for one text block."""
    return kernel_token_count([text_block(text)])


class LocalCallError(grpc.RpcError, grpc.Call):
    """A call that failed, raised as a gRPC stub raises it: code, details, and trailing
    metadata (where ``grpc_status`` finds the packed ContextError)."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing: _Metadata = ()) -> None:
        super().__init__(details)
        self._code = code
        self._details = details
        self._trailing = trailing

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Any:  # grpc-stubs types RpcError's and Call's apart
        return self._trailing

    def initial_metadata(self) -> _Metadata:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> float:
        return 0.0

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return False

    def __str__(self) -> str:
        return f"{self._code.name}: {self._details}"


class _CallContext(grpc.ServicerContext):
    """What the servicer sees of one call: its deadline, its end, how it aborts."""

    def __init__(self, timeout: float | None) -> None:
        self._deadline = math.inf if timeout is None else time.monotonic() + timeout
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self._ended = False

    def end(self) -> list[Callable[[], None]]:
        """The call is over (answered, failed or abandoned): the callbacks to run now."""
        with self._lock:
            self._ended = True
            callbacks, self._callbacks = self._callbacks, []
        return callbacks

    def add_callback(self, callback: Callable[[], None]) -> bool:
        with self._lock:
            if self._ended:
                return False
            self._callbacks.append(callback)
            return True

    def time_remaining(self) -> float:
        return max(0.0, self._deadline - time.monotonic())

    def is_active(self) -> bool:
        with self._lock:
            return not self._ended

    def cancel(self) -> bool:
        return False

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        raise LocalCallError(code, details)

    def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise LocalCallError(status.code, status.details, tuple(status.trailing_metadata))

    def invocation_metadata(self) -> _Metadata:
        return ()

    def peer(self) -> str:
        return "inprocess"

    def peer_identities(self) -> None:
        return None

    def peer_identity_key(self) -> None:
        return None

    def auth_context(self) -> Mapping[str, bytes]:
        return {}

    def send_initial_metadata(self, initial_metadata: Any) -> None:
        return None

    def set_trailing_metadata(self, trailing_metadata: Any) -> None:
        return None

    def set_code(self, code: grpc.StatusCode) -> None:
        return None

    def set_details(self, details: str) -> None:
        return None


def _call(
    method: Callable[[Request, grpc.ServicerContext], Response],
    request: Request,
    timeout: float | None,
) -> Response:
    """``method(request, context)`` on a thread of its own, waited for ``timeout``
    seconds; the callbacks it registered run on that thread once the answer is out."""
    context = _CallContext(timeout)
    done = threading.Event()
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(method(request, context))
        except BaseException as error:  # handed to the caller, as gRPC hands its status
            outcome.append(error)
        finally:
            callbacks = context.end()
            done.set()
        for callback in callbacks:
            callback()

    threading.Thread(target=run, name="inprocess-call", daemon=True).start()
    if not done.wait(timeout):
        context.end()
        raise LocalCallError(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")
    result = outcome[0]
    if isinstance(result, LocalCallError):
        raise result
    if isinstance(result, BaseException):  # a bug below the servicer's guard
        raise LocalCallError(
            grpc.StatusCode.UNKNOWN, f"Exception calling application: {result}"
        ) from result
    return result  # type: ignore[no-any-return]  # the servicer's answer, as typed


class LocalStub:
    """The ContextService stub's methods, each ``(request, timeout=None)``, served here."""

    def __init__(self, service: ContextService) -> None:
        self._service = service

    def Describe(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self._service.Describe, request, timeout)

    def GetCapabilities(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self._service.GetCapabilities, request, timeout)

    def Configure(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self._service.Configure, request, timeout)

    def Contribute(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self._service.Contribute, request, timeout)

    def Render(self, request: Any, timeout: float | None = None) -> Any:
        return _call(self._service.Render, request, timeout)


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
        service = ContextService(handle, counts, plugin_environment(local_name))
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
