"""Giving memory back after a large listing (glibc only; elsewhere these do nothing).

A listing of 300k paths passes through several copies of git's output, each
megabytes. glibc serves blocks that large from ``mmap`` at first, but after
the first one is freed it raises its threshold to that size, so the next
copies come from a heap (a worker thread's arena) that cannot shrink while
anything above them lives: the process would stay at its peak. Fixing the
threshold keeps large blocks in ``mmap`` (freed means returned), and
``malloc_trim`` hands back what the heaps hold free. The listing, the
history and the answers are made in different threads (gRPC's, the miner's,
the watcher's); an arena per thread would each keep its own free pages, so
they share two.
"""

from __future__ import annotations

import sys
from typing import Any

LARGE_BLOCK = 1 << 20
"""Blocks this big or bigger are always mapped on their own (released when freed)."""

_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
ARENAS = 2
"""glibc's arenas once listings are large (its default: eight per core)."""
_libc: Any = None
_threshold_fixed = False


def _glibc() -> Any:
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            import ctypes  # only once a listing is large

            _libc = ctypes.CDLL("libc.so.6")
            _libc.malloc_trim  # noqa: B018  # not glibc (musl): no such symbol
        except (OSError, AttributeError):
            _libc = False
    return _libc or None


def expect_large_blocks() -> None:
    """Call before handling data of a megabyte or more: its copies will be returned."""
    global _threshold_fixed
    libc = _glibc()
    if libc is not None and not _threshold_fixed:
        _threshold_fixed = True
        libc.mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK)
        libc.mallopt(_M_ARENA_MAX, ARENAS)


def return_free_memory() -> None:
    """Hand the heaps' free pages back to the system."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
