"""The bounded per-session map: the least recently used entry goes, never one in use."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from providers.core.lru import LruMap


def test_an_active_session_is_kept_when_the_limit_is_reached() -> None:
    """The first session added, used again since, outlives the ones used less recently."""
    sessions: LruMap[str, int] = LruMap(3)
    sessions.put("first", 1)
    sessions.put("second", 2)
    sessions.put("third", 3)
    assert sessions.get("first") == 1  # the first session is still working
    sessions.put("fourth", 4)
    assert "first" in sessions
    assert "second" not in sessions
    assert [*sessions.values()] == [3, 1, 4]


def test_get_or_add_makes_once_and_counts_as_a_use() -> None:
    sessions: LruMap[str, list[str]] = LruMap(2)
    made = sessions.get_or_add("a", list)
    made.append("touched")
    assert sessions.get_or_add("a", list) == ["touched"]
    sessions.put("b", [])
    sessions.get_or_add("a", list)
    sessions.put("c", [])
    assert "a" in sessions and "b" not in sessions


def test_looking_is_not_using() -> None:
    """``in``, ``len`` and ``values`` leave the order alone: a check never keeps a session."""
    sessions: LruMap[str, int] = LruMap(2)
    sessions.put("old", 0)
    sessions.put("new", 1)
    assert "old" in sessions and len(sessions) == 2 and [*sessions.values()] == [0, 1]
    sessions.put("newer", 2)
    assert "old" not in sessions


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LruMap(0)


@given(
    limit=st.integers(min_value=1, max_value=5),
    uses=st.lists(st.integers(min_value=0, max_value=8), max_size=60),
)
def test_the_kept_entries_are_the_most_recently_used(limit: int, uses: list[int]) -> None:
    """Against a plain model: after any sequence of uses, the map holds exactly the last
    ``limit`` distinct keys used, in the order of their last use."""
    sessions: LruMap[int, int] = LruMap(limit)
    for key in uses:
        if sessions.get(key) is None:
            sessions.put(key, key)
    recent: list[int] = []
    for key in reversed(uses):
        if key not in recent:
            recent.append(key)
    assert [*sessions.values()] == list(reversed(recent[:limit]))
    assert len(sessions) == min(limit, len(recent))


def test_pop_forgets_one_entry_and_says_what_it_held() -> None:
    """A session that said it ended (the bridge's SessionEnd) is forgotten at once."""
    memory: LruMap[str, int] = LruMap(2)
    memory.put("a", 1)
    memory.put("b", 2)
    assert memory.pop("a") == 1 and memory.pop("a") is None
    assert "a" not in memory and len(memory) == 1
