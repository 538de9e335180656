"""Files added, staged, unstaged, deleted and committed edit the listing in place, and it
ends where a listing from scratch would: the tree, and the section written from it.

Real git and real files on random trees (``.gitignore`` files in every corner); the
watcher is fed what each step changed in the work tree, as inotify would report it.
Issue 33 item 1: one new file must cost a fraction of a cold turn, so none of these
lists the repository again.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.file_tree.listing import Listing, ListingOptions, list_tree
from providers.file_tree.live import LiveListing
from providers.file_tree.section import Presentation, build_section
from providers.repository.gitexec import GitRunner
from tests.file_tree.helpers import CountingRunner, full_listings, git, git_listing, init_repo
from tests.support.trees import NAMES, generate_tree
from tests.support.watchers import WatcherBox

BUDGETS = (60, 300, 2000)


def listed(repo: Path, *args: str) -> list[str]:
    out = git(repo, "ls-files", "-z", *args).decode("utf-8", "surrogateescape")
    return sorted(p for p in out.split("\0") if p)


def literal(path: str) -> str:
    return f":(literal){path}"


def step(repo: Path, rng: random.Random) -> tuple[str, list[Path]]:
    """One thing an agent does; returns its name and the work tree paths it changed."""
    tracked = listed(repo, "--cached")
    untracked = listed(repo, "--others", "--exclude-standard")
    ignored = listed(repo, "--others", "--ignored", "--exclude-standard")
    # A .gitignore changed lists everything again (tests/file_tree/test_live.py): not here.
    tracked = [p for p in tracked if ".gitignore" not in p]
    files = [p for p in tracked + untracked + ignored if (repo / p).is_file()]
    files = [p for p in files if ".gitignore" not in p]
    kind = rng.choice(
        ["create", "delete", "stage", "force", "unstage", "rm", "commit", "mv", "edit"]
    )
    if kind == "create":
        parent = rng.choice([p.rpartition("/")[0] for p in files] or [""])
        target = repo / parent / rng.choice(NAMES)
        if target.exists():
            return kind, []
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("new")
        return kind, [target]
    if kind == "delete" and files:
        victim = repo / rng.choice(files)
        victim.unlink()
        return kind, [victim]
    if kind == "stage" and untracked:
        git(repo, "add", "--", literal(rng.choice(untracked)))
    elif kind == "force" and ignored:
        git(repo, "add", "-f", "--", literal(rng.choice(ignored)))
    elif kind == "unstage" and tracked:
        git(repo, "rm", "-q", "--cached", "--", literal(rng.choice(tracked)))
    elif kind == "rm" and tracked:
        victim = rng.choice(tracked)
        git(repo, "rm", "-q", "-f", "--", literal(victim))
        return kind, [repo / victim]
    elif kind == "commit":
        git(repo, "commit", "-q", "--allow-empty", "-m", "step")
    elif kind == "mv" and tracked:
        source = rng.choice([p for p in tracked if (repo / p).is_file()] or [""])
        target = source.rpartition("/")[0] + "/moved-" + source.rpartition("/")[2]
        target = target.lstrip("/")
        if not source or (repo / target).exists():
            return kind, []
        git(repo, "mv", "--", source, target)  # no pathspec: names as they are
        return kind, [repo / source, repo / target]
    elif kind == "edit" and files:
        changed = repo / rng.choice(files)
        changed.write_text("edited")
        return kind, [changed]
    return kind, []


def sections(listing: Listing) -> list[str]:
    presentation = Presentation(listing.root.name, unreadable=listing.unreadable)
    texts = []
    for budget in BUDGETS:
        section = build_section(listing.tree, presentation, [], budget, FallbackCounter())
        texts.append(section.text if section is not None else "")
    return texts


@pytest.mark.parametrize("seed", range(6))
def test_in_place_edits_match_a_listing_from_scratch(tmp_path: Path, seed: int) -> None:
    repo = tmp_path / "repo"
    generate_tree(repo, seed)
    init_repo(repo)
    box = WatcherBox()
    runner = CountingRunner()
    live = LiveListing(repo, ListingOptions(), runner, box)
    live.refresh()
    live.refresh()  # catches up once the watch is in place
    rng = random.Random(seed)
    kinds = []
    for _ in range(30):
        kind, changed = step(repo, rng)
        kinds.append(kind)
        box.last.report(*changed)
        listing = live.refresh()
        scratch = list_tree(repo, ListingOptions(), GitRunner())
        assert set(listing.tree.paths()) == git_listing(repo), kinds
        assert set(listing.tree.paths()) == set(scratch.tree.paths()), kinds
        assert sections(listing) == sections(scratch), kinds
    assert full_listings(runner) == 2, kinds  # the first listing and the catch-up only


def test_a_file_staged_or_unstaged_is_listed_as_git_lists_it(tmp_path: Path) -> None:
    """Tracked files are listed whatever the ignore rules say; untracked ones are not."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "src" / "app.py").write_text("x")
    init_repo(repo)
    box = WatcherBox()
    runner = CountingRunner()
    live = LiveListing(repo, ListingOptions(), runner, box)
    live.refresh()
    live.refresh()
    (repo / "src" / "debug.log").write_text("x")
    box.last.report(repo / "src" / "debug.log")
    assert "src/debug.log" not in set(live.refresh().tree.paths())
    git(repo, "add", "-f", "src/debug.log")
    assert "src/debug.log" in set(live.refresh().tree.paths())
    git(repo, "rm", "-q", "--cached", "src/debug.log")
    assert "src/debug.log" not in set(live.refresh().tree.paths())
    git(repo, "add", "-f", "src/debug.log")
    git(repo, "commit", "-q", "-m", "log")
    (repo / "src" / "debug.log").unlink()
    box.last.report(repo / "src" / "debug.log")
    assert "src/debug.log" not in set(live.refresh().tree.paths())
    (repo / "src" / "debug.log").write_text("back")  # still tracked: listed again
    box.last.report(repo / "src" / "debug.log")
    assert set(live.refresh().tree.paths()) == git_listing(repo)
    assert full_listings(runner) == 2
