"""Watchers whose readiness, life and changes a test sets by hand (the provider cannot tell)."""

from __future__ import annotations

from pathlib import Path

from providers.watch import Changes


class FedWatcher:
    """A watcher whose changes the test reports by hand (the provider cannot tell)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.pending: set[str] = set()
        self.overflow = False
        self.started = False
        self.stopped = False
        self.ready = True
        self.alive = True
        self.start_timeouts: list[float] = []

    def start(self, timeout: float = 5.0) -> bool:
        self.started = True
        self.start_timeouts.append(timeout)
        return self.ready and self.alive

    def report(self, *paths: Path) -> None:
        self.pending.update(str(p) for p in paths)

    def drain(self) -> Changes:
        changes = Changes(frozenset(self.pending), self.overflow or not self.alive)
        self.pending.clear()
        self.overflow = False
        return changes

    def stop(self) -> None:
        self.stopped = True


class WatcherBox:
    """A ``watcher_factory`` that remembers the watchers it made."""

    def __init__(self) -> None:
        self.made: list[FedWatcher] = []
        self.make_slow = False
        self.make_dead = False

    def __call__(self, root: Path) -> FedWatcher:
        watcher = FedWatcher(root)
        watcher.ready = not self.make_slow
        watcher.alive = not self.make_dead
        self.made.append(watcher)
        return watcher

    @property
    def last(self) -> FedWatcher:
        return self.made[-1]
