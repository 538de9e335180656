"""Where the agent is, per session: this turn's files, earlier ones, the working directory.

The kernel resends a session's whole ``files_touched`` every turn, growing;
the files a turn added are the ones in hand, so each session's last list is
remembered to tell them apart. Sub-agents share the process, so up to
:data:`MAX_SESSIONS` sessions are remembered, the least recently used forgotten
(:class:`~providers.core.lru.LruMap`): a forgotten session's next turn counts
all its files as new.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from providers.core.lru import LruMap
from providers.core.request import Turn
from providers.file_tree.history import History
from providers.file_tree.rank import Focus, order_touched

MAX_SESSIONS = 16
"""Sessions whose files_touched are remembered at once (sub-agents share a process)."""


@dataclass(frozen=True)
class _Last:
    """A session's last files_touched and the part of it that turn added."""

    touched: tuple[str, ...]
    fresh: tuple[str, ...]


class FocusTracker:
    """Builds each turn's :class:`Focus`, remembering every session's last list."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self._sessions: LruMap[str, _Last] = LruMap(limit)

    def this_turn(self, session_id: str, touched: tuple[str, ...]) -> tuple[str, ...]:
        """The files of ``touched`` that this turn added to the session's list (all of
        them on its first turn, or when the list did not grow); the same answer while
        the list repeats."""
        last = self._sessions.get(session_id)
        if last is not None and last.touched == touched:
            return last.fresh
        known = set(last.touched) if last is not None else set()
        fresh = tuple(p for p in touched if p not in known) or touched
        self._sessions.put(session_id, _Last(touched, fresh))
        return fresh

    def focus(
        self, turn: Turn, root: Path, touched: tuple[str, ...], history: History | None
    ) -> Focus:
        """Where the agent is: this turn's files (the ones the kernel's growing list added
        last), earlier ones, the working directory below the root, and the history."""
        fresh = self.this_turn(turn.session_id, touched)
        fresh_set = set(fresh)  # 100,000 paths touched: a set, or the turn is quadratic
        focus = order_touched(fresh, [p for p in touched if p not in fresh_set])
        try:
            cwd = turn.working_directory.resolve().relative_to(root).as_posix()
        except ValueError:
            cwd = "."
        return replace(focus, cwd="" if cwd == "." else cwd, history=history)
