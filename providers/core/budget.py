"""Token counting and the one fitter that keeps whole units within ``token_budget``.

The budget is a hard invariant: the kernel recounts our section with its own
CountTokens and drops it whole if it is one token over. So we search locally
(the fallback formula costs microseconds), confirm the final text with the
kernel's counter, and shrink again if the kernel disagrees.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from providers.core.types import Unit


def fallback_token_count(text: str) -> int:
    """The kernel's documented fallback: ceil(UTF-8 bytes / 4)."""
    return fallback_tokens_for_bytes(len(text.encode("utf-8")))


def fallback_tokens_for_bytes(size: int) -> int:
    """The fallback count of a text of ``size`` UTF-8 bytes (for callers that know the size)."""
    return -(-size // 4)


class TokenCounter(Protocol):
    """The kernel's CountTokens for the request's model (cached by the adapter).

    ``epoch`` moves on whenever a count was only a stand-in (the call failed for
    a passing reason): an answer written at an older epoch must be counted
    again, so providers put it in the key of any answer they reuse.
    """

    @property
    def epoch(self) -> int: ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


class FallbackCounter:
    """Counts with the fallback formula: standalone use and kernels without CountTokens."""

    epoch = 0

    def count(self, text: str) -> int:
        return fallback_token_count(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [fallback_token_count(t) for t in texts]


Writer = Callable[[Sequence[Unit], Sequence[Unit]], tuple[str, ...]]
"""``write(kept, dropped) -> section texts``; both in priority order.

One text per section the provider will return (empty texts are skipped); the
total must grow with ``kept`` for the search to find the largest fit.
"""


@dataclass(frozen=True)
class Fit:
    """The kept units, what was left out, and the exact texts and counts that fit."""

    texts: tuple[str, ...]
    counts: tuple[int, ...]
    kept: tuple[Unit, ...]
    dropped: tuple[Unit, ...]

    @property
    def tokens(self) -> int:
        return sum(self.counts)

    @property
    def truncated(self) -> bool:
        return bool(self.dropped)


_MAX_CONFIRMATIONS = 8


PrefixEstimate = Callable[[int], int]
"""``estimate(k)``: the local estimate of the texts of the first ``k`` units."""


def fit(
    units: Sequence[Unit],
    budget: int,
    write: Writer,
    counter: TokenCounter,
    prefix_estimate: PrefixEstimate | None = None,
) -> Fit | None:
    """Keep the longest priority-order prefix of ``units`` whose texts fit ``budget``.

    The budget covers all the section texts together. Returns ``None`` when
    not even the texts of zero units fit (or it is empty). The kernel's
    count is the judge: a local estimate picks the candidate, the counter
    confirms it, and on disagreement the local target is scaled
    down by the observed ratio and the search runs again.

    A caller that knows each prefix's size without writing it passes
    ``prefix_estimate`` (it must equal :func:`estimate` of those texts):
    the search then writes only the candidates it confirms.
    """
    if budget <= 0:
        return None

    def texts_for(k: int) -> tuple[str, ...]:
        return tuple(t for t in write(units[:k], units[k:]) if t)

    def estimate_for(k: int) -> int:
        return estimate(texts_for(k))

    local = prefix_estimate or estimate_for
    target = budget
    upper = len(units)
    for _ in range(_MAX_CONFIRMATIONS):
        k = _largest_fitting(local, upper, target)
        if k is None:
            return None
        texts = texts_for(k)
        if not texts:
            return None
        counts = tuple(counter.count_many(texts))
        tokens = sum(counts)
        if tokens <= budget:
            return Fit(texts, counts, tuple(units[:k]), tuple(units[k:]))
        # The kernel's tokenizer is denser than our estimate: aim lower.
        upper = k
        target = max(0, math.floor(target * budget / tokens) - 1)
    # Still over after rescaling: walk down one unit at a time.
    for k in range(upper, -1, -1):
        texts = texts_for(k)
        if not texts:
            return None
        counts = tuple(counter.count_many(texts))
        if sum(counts) <= budget:
            return Fit(texts, counts, tuple(units[:k]), tuple(units[k:]))
    return None


def estimate(texts: Sequence[str]) -> int:
    """Local token estimate of several section texts (each rounded as the kernel does)."""
    return sum(fallback_token_count(t) for t in texts)


def _largest_fitting(local: PrefixEstimate, upper: int, target: int) -> int | None:
    """Binary search on the local estimate for the largest k in [0, upper] that fits.

    Everything is tried first: with nothing left out there is no closing note,
    so the full text can be cheaper than a partial one.
    """
    if local(upper) <= target:
        return upper
    if local(0) > target:
        return None
    lo, hi = 0, upper
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if local(mid) <= target:
            lo = mid
        else:
            hi = mid - 1
    return lo
