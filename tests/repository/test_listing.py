"""What git would show: the listing run's results are handed over once, never silently empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.repository.gitexec import GitRunner
from providers.repository.listing import AlreadyTaken, ListingRun
from tests.conftest import git


def test_a_listing_is_handed_over_once(tmp_path: Path) -> None:
    """Issue 10 item 5: a second take raises instead of returning nothing."""
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    git(tmp_path, "add", "a.txt")
    (tmp_path / "b.txt").write_text("b\n")
    sizes: list[int] = []
    run = ListingRun(GitRunner(), tmp_path, on_output=sizes.append)
    assert run.take_tracked() == ["a.txt"]
    assert sizes == [len(b"H a.txt\0")]
    with pytest.raises(AlreadyTaken, match="tracked files were already handed over"):
        run.take_tracked()
    assert run.take_untracked().paths == ["b.txt"]
    with pytest.raises(AlreadyTaken):
        run.take_listing()
    assert run.missing() == frozenset()
    assert run.digest() == ListingRun(GitRunner(), tmp_path).digest()
