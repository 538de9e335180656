"""Token counts for a provider's turn: the kernel's CountTokens, cached, with the fallback.

What the kernel answers is kept by (model id, text hash), so a warm turn makes no
callback. The kernel is reached through :class:`~providers.goplugin.callback.KernelConnection`
(grpcio, loaded by whoever made the connection); a kernel that runs the provider in its
own process (``host.inprocess``) counts directly and never loads grpcio here.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from providers._gen.pluggableharness.kernel.v1 import kernel_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.core.budget import fallback_token_count
from providers.goplugin.convert import text_block

if TYPE_CHECKING:
    import grpc

    from providers.goplugin.callback import KernelConnection

log = logging.getLogger(__name__)

_CALL_TIMEOUT_S = 5.0
_CACHE_LIMIT = 4096


class TokenCountCache:
    """Kernel counts by (model id, text hash): a warm turn costs no callbacks.

    What the kernel answers is kept. A kernel without CountTokens (UNIMPLEMENTED,
    as upstream's today) is asked once: from then on the fallback formula counts
    directly, which is what such a kernel computes itself, so those counts are
    kept too. A count that fell back because the call failed for a passing
    reason (UNAVAILABLE, DEADLINE_EXCEEDED, ...) is not kept: the next text asks
    again, and :attr:`epoch` moves on so that answers rendered with such counts
    are counted again on the next turn (the kernel's recount may be larger).
    """

    def __init__(
        self,
        connection: KernelConnection | None,
        *,
        local: Callable[[str], int] | None = None,
    ) -> None:
        """``local``: the kernel's own count, when the kernel runs the provider in its
        own process (``host.inprocess``): called directly, never failing."""
        self._connection = connection
        self._local = local
        self._cache: dict[tuple[str, bytes], int] = {}
        self._lock = threading.Lock()
        self._logged: set[str] = set()
        self._unimplemented = False
        self.epoch = 0
        """How many counts so far fell back for a passing failure."""

    def count_many(self, model_id: str, texts: Sequence[str]) -> list[int]:
        keys = [(model_id, hashlib.sha256(t.encode("utf-8")).digest()) for t in texts]
        with self._lock:
            known = [self._cache.get(k) for k in keys]
        missing = [i for i, v in enumerate(known) if v is None]
        if missing:
            counted = self._count_remote(model_id, [texts[i] for i in missing])
            with self._lock:
                if len(self._cache) > _CACHE_LIMIT:
                    self._cache.clear()
                for i, (value, keep) in zip(missing, counted, strict=True):
                    if keep:
                        self._cache[keys[i]] = value
                    known[i] = value
        return [v if v is not None else 0 for v in known]

    def _count_remote(self, model_id: str, texts: list[str]) -> list[tuple[int, bool]]:
        """(count, whether to keep it) per text."""
        if self._local is not None:
            return [(self._local(t), True) for t in texts]
        if self._unimplemented:
            return [(fallback_token_count(t), True) for t in texts]
        stub = self._connection.stub() if self._connection else None
        if stub is None:
            self._say_once("no kernel connection", "counting tokens with ceil(utf8_bytes / 4)")
            return [(fallback_token_count(t), True) for t in texts]
        model_ref = model_pb2.ModelRef(id=model_id)
        requests = [
            kernel_pb2.CountTokensRequest(content=[text_block(t)], model_ref=model_ref)
            for t in texts
        ]
        answers: list[Callable[[], kernel_pb2.CountTokensResult]]
        if len(requests) == 1:  # the usual case: a blocking call costs less than a future
            answers = [lambda: stub.CountTokens(requests[0], timeout=_CALL_TIMEOUT_S)]
        else:  # all in flight at once
            futures = [stub.CountTokens.future(r, timeout=_CALL_TIMEOUT_S) for r in requests]
            answers = [future.result for future in futures]
        import grpc  # loaded already: the connection made the stub

        results: list[tuple[int, bool]] = []
        for text, answer in zip(texts, answers, strict=True):
            try:
                results.append((answer().count, True))
            except grpc.RpcError as exc:
                results.append(self._failed(text, exc))
        return results

    def _failed(self, text: str, exc: grpc.RpcError) -> tuple[int, bool]:
        import grpc

        code = exc.code() if isinstance(exc, grpc.Call) else None
        count = fallback_token_count(text)
        if code == grpc.StatusCode.UNIMPLEMENTED:
            self._unimplemented = True
            self._say_once(
                "unimplemented",
                "the kernel has no CountTokens: counting with the fallback "
                "ceil(utf8_bytes / 4) from now on",
            )
            return count, True
        self.epoch += 1
        name = code.name if code is not None else type(exc).__name__
        self._say_once(
            f"failed {name}",
            f"CountTokens failed ({name}); this count uses the fallback "
            "ceil(utf8_bytes / 4) and is asked again next time",
        )
        return count, False

    def _say_once(self, key: str, message: str) -> None:
        if key not in self._logged:
            self._logged.add(key)
            log.info("%s", message)


class KernelCounter:
    """A TokenCounter bound to one request's model (``ModelRef{id: model_target.id}``)."""

    def __init__(self, cache: TokenCountCache, model_id: str) -> None:
        self._cache = cache
        self._model_id = model_id

    @property
    def epoch(self) -> int:
        return self._cache.epoch

    def count(self, text: str) -> int:
        return self._cache.count_many(self._model_id, [text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return self._cache.count_many(self._model_id, texts)
