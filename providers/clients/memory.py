"""What each session was shown, kept across the background process's restarts.

The background process exits when idle; a session that goes on afterwards (a long
pause) must not be shown again what its transcript already holds, and must still be
told what changed meanwhile. So each session's :class:`~providers.clients.deltas.Memory`
(digests, the file tree's totals, the files touched: no repository text) is written to
``<state>/sessions/<root key>/<session key>.json`` when it changes, read back when a
session this process does not know speaks, and removed at the session's end. Files not
written for :data:`KEEP_DAYS` days are removed when a process starts.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from pathlib import Path
from types import MappingProxyType

from providers.clients.deltas import Memory
from providers.core.lru import LruMap

MAX_SESSIONS = 64
"""Sessions kept in memory at once; older ones are read back from disk when they speak."""
KEEP_DAYS = 7


def _file_name(session_id: str) -> str:
    return hashlib.blake2b(session_id.encode("utf-8"), digest_size=12).hexdigest() + ".json"


def to_json(memory: Memory) -> str:
    return json.dumps(
        {"shown": dict(memory.shown), "totals": memory.totals, "files": list(memory.files)}
    )


def from_json(text: str) -> Memory | None:
    try:
        data = json.loads(text)
        shown = {str(k): str(v) for k, v in dict(data["shown"]).items()}
        return Memory(
            MappingProxyType(shown), str(data["totals"]), tuple(str(f) for f in data["files"])
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


class MemoryStore:
    """Sessions' memories in an LRU map, written through to ``directory``."""

    def __init__(self, directory: Path | None) -> None:
        self._directory = directory
        self._live: LruMap[str, Memory] = LruMap(MAX_SESSIONS)
        self._lock = threading.Lock()
        self._locks: LruMap[str, threading.Lock] = LruMap(MAX_SESSIONS * 4)

    def session_lock(self, session_id: str) -> threading.Lock:
        """One event of a session at a time (a client may run hooks in parallel)."""
        with self._lock:
            lock = self._locks.get(session_id)
            if lock is None:
                lock = threading.Lock()
                self._locks.put(session_id, lock)
            return lock

    def get(self, session_id: str) -> Memory:
        with self._lock:
            memory = self._live.get(session_id)
        if memory is not None:
            return memory
        memory = self._read(session_id) or Memory()
        with self._lock:
            self._live.put(session_id, memory)
        return memory

    def put(self, session_id: str, memory: Memory) -> None:
        with self._lock:
            before = self._live.get(session_id)
            self._live.put(session_id, memory)
        if before != memory:
            self._write(session_id, memory)

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._live.pop(session_id)
        if self._directory is not None:
            with contextlib.suppress(OSError):
                (self._directory / _file_name(session_id)).unlink()

    def live(self) -> int:
        """Sessions this process has spoken to and not seen end."""
        with self._lock:
            return len(self._live)

    def _read(self, session_id: str) -> Memory | None:
        if self._directory is None:
            return None
        try:
            text = (self._directory / _file_name(session_id)).read_text(encoding="utf-8")
        except OSError:
            return None
        return from_json(text)

    def _write(self, session_id: str, memory: Memory) -> None:
        if self._directory is None:
            return
        path = self._directory / _file_name(session_id)
        try:
            self._directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            partial.write_text(to_json(memory), encoding="utf-8")
            os.replace(partial, path)
        except OSError:
            pass  # memory on disk is a convenience: the session goes on

    def prune(self) -> None:
        """Remove memories not written for KEEP_DAYS days (sessions that never ended)."""
        if self._directory is None:
            return
        cutoff = time.time() - KEEP_DAYS * 86400
        with contextlib.suppress(OSError):
            for path in self._directory.iterdir():
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < cutoff:
                        path.unlink()
