"""Where the agent is, per session: the files a turn added are the ones in hand."""

from __future__ import annotations

from pathlib import Path

from providers.core.request import Turn, check_request
from providers.core.types import ContextRequest, ModelTarget
from providers.file_tree.focus import MAX_SESSIONS, FocusTracker


def test_the_files_a_turn_added_are_this_turns() -> None:
    tracker = FocusTracker()
    assert tracker.this_turn("s", ("a", "b")) == ("a", "b")  # first turn: all of them
    assert tracker.this_turn("s", ("a", "b", "c")) == ("c",)
    assert tracker.this_turn("s", ("a", "b", "c")) == ("c",)  # a repeat keeps its answer
    assert tracker.this_turn("s", ("a", "b")) == ("a", "b")  # nothing new: all in hand
    assert tracker.this_turn("other", ("a", "b", "c")) == ("a", "b", "c")


def test_an_active_session_is_not_dropped_when_the_limit_is_reached() -> None:
    """Sub-agents come and go; the main session, working all along, keeps its memory even
    though it was the first to come (it used to be the first forgotten)."""
    tracker = FocusTracker()
    assert tracker.this_turn("main", ("a",)) == ("a",)
    for n in range(MAX_SESSIONS - 1):
        tracker.this_turn(f"sub-{n}", ("x",))
    assert tracker.this_turn("main", ("a", "b")) == ("b",)
    tracker.this_turn("one-too-many", ("x",))
    assert tracker.this_turn("main", ("a", "b", "c")) == ("c",)
    assert tracker.this_turn("sub-0", ("x", "y")) == ("x", "y")  # the least recent went


def turn_in(directory: Path) -> Turn:
    return check_request(ContextRequest(100, str(directory), ModelTarget("m"), session_id="s"))


def test_focus_orders_this_turn_first_and_places_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    tracker = FocusTracker()
    tracker.focus(turn_in(tmp_path / "src"), tmp_path, ("a", "b"), None)
    focus = tracker.focus(turn_in(tmp_path / "src"), tmp_path, ("a", "b", "c"), None)
    assert focus.this_turn == ("c",)
    assert focus.earlier == ("b", "a")  # newest first
    assert focus.cwd == "src"
    assert tracker.focus(turn_in(tmp_path), tmp_path, (), None).cwd == ""
    assert tracker.focus(turn_in(tmp_path.parent), tmp_path, (), None).cwd == ""
