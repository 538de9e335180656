"""Issue 20 item 4: an agent started in ``/`` or a home directory (or a symlink to one) gets
a map of it without the file tree walking the whole file system: the walk stops at a bound
(entries or time), breadth first, never enters ``/proc``, ``/sys`` or ``/dev``, says the map
is partial, is not walked again each turn, and the section stays within every budget.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from providers.core.budget import FallbackCounter, fallback_token_count
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.file_tree import listing as listing_module
from providers.file_tree.provider import FileTreeProvider
from providers.host.bringup import bring_up
from providers.host.chain import Slot, run_turn
from providers.repository import walk
from tests.conftest import script

Make = Callable[..., FileTreeProvider]
BUDGETS = (1, 50, 120, 333, 1000, 2500)


def request(working_directory: Path, budget: int) -> ContextRequest:
    return ContextRequest(
        token_budget=budget,
        working_directory=str(working_directory),
        model_target=ModelTarget("test-model"),
    )


def section_texts(provider: FileTreeProvider, where: Path, budget: int) -> list[str]:
    contribution = contribute(provider, request(where, budget), FallbackCounter())
    return [section.text for section in contribution.sections]


def assert_within_every_budget(provider: FileTreeProvider, where: Path) -> None:
    for budget in BUDGETS:
        for text in section_texts(provider, where, budget):
            assert fallback_token_count(text) <= budget, (budget, text[-300:])


@pytest.fixture
def home(git_env: Path, tmp_path: Path) -> Path:
    """The home directory (``HOME``): dotfiles and 30 projects of 81 files, three levels."""
    home = git_env.parent
    for top in range(30):
        (home / f"project{top:02}").mkdir()
        (home / f"project{top:02}" / "README.md").write_text("# project\n")
        for sub in range(10):
            directory = home / f"project{top:02}" / f"part{sub}"
            directory.mkdir(parents=True)
            for leaf in range(8):
                (directory / f"file{leaf}.txt").write_text("x\n")
    (home / ".bashrc").write_text("# shell\n")
    return home


def test_a_home_directory_is_walked_up_to_the_bound_and_says_so(
    make_provider: Make, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 20 item 4: through a symlink to the home directory, the walk stops at the entry
    bound (here 500); breadth first, so every project's own files were seen before any
    deeper one; the totals line says the map is partial; the next turn does not walk
    again; every budget holds."""
    monkeypatch.setattr(walk, "MAX_ENTRIES", 500)
    walks: list[Path] = []
    real_walk = listing_module.walk

    def counted_walk(root: Path, *args: Any, **kwargs: Any) -> Any:
        walks.append(root)
        return real_walk(root, *args, **kwargs)

    monkeypatch.setattr(listing_module, "walk", counted_walk)
    link = tmp_path / "home-link"
    link.symlink_to(home)
    provider = make_provider({"watch": False})
    (text,) = section_texts(provider, link, 2500)
    assert "partial: the listing stopped after 500 entries" in text.splitlines()[-1]
    for top in range(30):
        assert f"project{top:02}/" in text
    assert len(walks) == 1
    provider.answer_sent()
    section_texts(provider, link, 2500)
    assert len(walks) == 1  # kept: no watch on all of it, no walk each turn
    assert_within_every_budget(provider, link)


@pytest.mark.skipif(sys.platform != "linux", reason="/proc, /sys and /dev are Linux's")
def test_the_root_of_the_file_system_is_walked_within_the_bound(
    make_provider: Make, tmp_path: Path
) -> None:
    """Issue 20 item 4: through a symlink to ``/``: the first turn ends within the time bound
    (plus planning), nothing from ``/proc``, ``/sys`` or ``/dev`` is listed, the map says
    it is partial or complete as it is, and every budget holds."""
    link = tmp_path / "root-link"
    link.symlink_to("/")
    provider = make_provider({"watch": False})
    started = time.monotonic()
    (text,) = section_texts(provider, link, 4000)
    assert time.monotonic() - started < walk.MAX_SECONDS + 20
    assert "\n  proc/" not in text and "\n  sys/" not in text and "\n  dev/" not in text
    assert "usr/" in text
    assert_within_every_budget(provider, link)


@pytest.mark.skipif(sys.platform != "linux", reason="/proc, /sys and /dev are Linux's")
def test_the_root_through_the_plugin_stays_within_the_kernels_recount(tmp_path: Path) -> None:
    """Issue 20 item 4: the real plugin process, counted through the kernel's CountTokens
    callback and recounted by the reference host (ceil(bytes / 4)), stays within its
    budget of 1000 turn after turn at ``/``."""
    link = tmp_path / "root-link"
    link.symlink_to("/")
    slot = bring_up("file_tree", [script("context-file-tree")], {"token_budget": 1000})
    slot = Slot(slot.plugin, 1000, "dynamic")
    try:
        for turn in range(3):
            base = ContextRequest(
                token_budget=1000,
                working_directory=str(link),
                model_target=ModelTarget("test-model"),
                session_id="s",
                turn_id=f"t{turn}",
            )
            (outcome,) = run_turn([slot], base).outcomes
            assert outcome.problems == [] and outcome.error_category is None
            assert outcome.recounts and all(count <= 1000 for count in outcome.recounts)
    finally:
        slot.plugin.close()
