"""All watching: what changed (``changes``), the one lifecycle (``lifecycle``), what every
backend shares (``backend``), and one backend per module (``inotify`` on Linux, over the
process's one inotify instance in ``inotify_hub``; ``watchfiles_backend`` elsewhere)."""

from providers.watch.changes import (
    MAX_PENDING,
    Changes,
    Ignored,
    IgnoredFactory,
    Watcher,
    WatcherFactory,
)
from providers.watch.lifecycle import (
    MAX_RESTARTS,
    READY_TIMEOUT_S,
    RestartBudget,
    WatchLifecycle,
    WatchReport,
    WatchStatus,
    default_watcher,
)
from providers.watch.watchfiles_backend import ChangeWatcher

__all__ = [
    "MAX_PENDING",
    "MAX_RESTARTS",
    "READY_TIMEOUT_S",
    "ChangeWatcher",
    "Changes",
    "Ignored",
    "IgnoredFactory",
    "RestartBudget",
    "WatchLifecycle",
    "WatchReport",
    "WatchStatus",
    "Watcher",
    "WatcherFactory",
    "default_watcher",
]
