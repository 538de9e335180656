"""Incremental updates end where a full listing would: differential against git."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from providers.file_tree.listing import ListingOptions, list_tree
from providers.file_tree.live import LiveListing
from providers.repository.gitexec import GitRunner
from tests.file_tree.helpers import CountingRunner, full_listings, git, git_listing, init_repo
from tests.support.trees import NAMES, generate_tree
from tests.support.watchers import WatcherBox


def random_edit(root: Path, rng: random.Random) -> list[Path]:
    """Create or delete something, as an agent would; returns what a watcher would report."""
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    dirs = [root, *(p for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts)]
    choice = rng.random()
    if choice < 0.35 and files:
        victim = rng.choice(files)
        victim.unlink()
        return [victim]
    if choice < 0.5:
        top = rng.choice(dirs) / f"new{rng.randint(0, 99)}"
        if top.exists():
            return []
        for name in rng.sample(NAMES, 3):
            target = top / rng.choice(["", "inner/"]) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.write_text("x")
        return [top]  # a new directory: its contents may never be reported one by one
    target = rng.choice(dirs) / rng.choice(NAMES)
    if target.exists():
        return []
    target.write_text("x")
    return [target]


def fresh(root: Path, in_git: bool) -> set[str]:
    if in_git:
        return git_listing(root)
    return set(list_tree(root, ListingOptions(), GitRunner()).tree.paths())


@pytest.mark.parametrize("in_git", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_incremental_updates_match_a_fresh_listing(tmp_path: Path, seed: int, in_git: bool) -> None:
    repo = tmp_path / "repo"
    generate_tree(repo, seed)
    if in_git:
        init_repo(repo)
    box = WatcherBox()
    runner = CountingRunner()
    live = LiveListing(repo, ListingOptions(), runner, box)
    live.refresh()
    live.refresh()  # catches up once the watch is in place
    rng = random.Random(seed)
    rule_edits = 0
    for _ in range(25):
        changed = random_edit(repo, rng)
        rule_edits += any(p.name == ".gitignore" for p in changed)
        box.last.report(*changed)
        listing = live.refresh()
        assert set(listing.tree.paths()) == fresh(repo, in_git)
    # Only a changed .gitignore lists again.
    assert full_listings(runner, in_git=in_git) <= 2 + rule_edits


def test_a_new_nested_repository_is_one_entry(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    box = WatcherBox()
    live = LiveListing(repo, ListingOptions(), CountingRunner(), box)
    live.refresh()
    live.refresh()
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    (nested / "a.c").write_text("x")
    git(nested, "init", "-q")
    box.last.report(repo / "vendor", nested / "a.c", nested / ".git" / "HEAD")
    assert set(live.refresh().tree.paths()) == git_listing(repo) == {"vendor/lib/"}
