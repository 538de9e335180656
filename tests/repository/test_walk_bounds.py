"""Issue 20 item 4: the walk without git is bounded (entries, time), breadth first, and never
enters the kernel's own file systems (``/proc``, ``/sys``, ``/dev``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from providers.repository.walk import pseudo_mount_points, walk


def tree(root: Path, depth: int, width: int) -> Path:
    """``width`` files and ``width`` directories per level, ``depth`` levels."""
    root.mkdir()
    level = [root]
    for _ in range(depth):
        below = []
        for directory in level:
            for i in range(width):
                (directory / f"f{i}").write_text("x\n")
                (directory / f"d{i}").mkdir()
                below.append(directory / f"d{i}")
        level = below
    return root


def test_a_walk_stops_at_its_entry_bound_breadth_first(tmp_path: Path) -> None:
    """Issue 20 item 4: stopped at 100 entries, it has seen every level above the one it
    stopped in, and says why it stopped."""
    root = tree(tmp_path / "t", depth=4, width=4)
    whole = walk(root, None)
    assert whole.stopped is None and len(whole.paths) == 4 + 16 + 64 + 256
    part = walk(root, None, max_entries=100)
    assert part.stopped == "after 100 entries"
    depths = [p.count("/") for p in part.paths]
    assert {p for p in whole.paths if p.count("/") <= 1} <= set(part.paths)
    assert depths == sorted(depths)  # shallower files first: nothing deeper was preferred
    assert len(part.paths) < len(whole.paths)


def test_a_walk_stops_at_its_time_bound_after_its_first_directory(tmp_path: Path) -> None:
    """Issue 20 item 4: out of time, the walk still has the directory it started in."""
    root = tree(tmp_path / "t", depth=3, width=3)
    part = walk(root, None, max_seconds=0)
    assert part.stopped == "after 0 s"
    assert sorted(part.paths) == ["f0", "f1", "f2"]


def test_pseudo_mount_points_come_from_the_mount_table(tmp_path: Path) -> None:
    """Issue 20 item 4: the kernel's file systems, by type, escapes decoded; others not."""
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/sda1 / ext4 rw 0 0\n"
        "proc /proc proc rw 0 0\n"
        "sysfs /sys sysfs rw 0 0\n"
        "cgroup /sys/fs/cgroup/a\\040b cgroup rw 0 0\n"
        "tmpfs /tmp tmpfs rw 0 0\n"
    )
    assert pseudo_mount_points(str(mounts)) == {"/proc", "/sys", "/sys/fs/cgroup/a b"}
    assert pseudo_mount_points(str(tmp_path / "missing")) == frozenset()


@pytest.mark.skipif(sys.platform != "linux", reason="/proc and /sys are Linux's")
def test_a_walk_of_the_root_never_enters_proc_or_sys() -> None:
    """Issue 20 item 4: from ``/``, nothing of ``/proc`` or ``/sys`` is listed."""
    walked = walk(Path("/"), None, max_entries=20_000, max_seconds=3)
    assert not any(p.startswith(("proc/", "sys/")) for p in walked.paths)
