"""Fixtures for the scoped docs tests: a watcher fed by hand, a provider reading through a
counting reader."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.scoped_docs.provider import ScopedDocsProvider
from providers.watch import ChangeWatcher
from tests.support.files import CountingReader, make_repo


class FeedWatch:
    """A ``watchfiles.watch`` stand-in: yields the batches a test pushes, nothing else."""

    def __init__(self) -> None:
        self.batches: queue.Queue[set[tuple[int, str]]] = queue.Queue()

    def __call__(self, root: Path, *, stop_event: threading.Event, **_: Any) -> Iterator[Any]:
        while not stop_event.is_set():
            try:
                batch = self.batches.get(timeout=0.01)
            except queue.Empty:
                yield set()
                continue
            yield batch
            self.batches.task_done()

    def push(self, *paths: Path) -> None:
        """Report ``paths`` changed and wait until the watcher has recorded them."""
        self.batches.put({(2, str(p)) for p in paths})
        self.batches.join()


@pytest.fixture
def feed() -> FeedWatch:
    return FeedWatch()


@pytest.fixture
def provider(feed: FeedWatch, reader: CountingReader) -> Iterator[ScopedDocsProvider]:
    """A provider whose watcher reports only what the test pushes."""
    made = ScopedDocsProvider(
        watcher_factory=lambda root: ChangeWatcher(root, watch_fn=feed),
        reader=reader,
        watch_start_timeout=5.0,  # deterministic: the watch is in place before turn 1 reads
    )
    yield made
    made.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")
