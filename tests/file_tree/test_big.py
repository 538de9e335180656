"""A 20k-file tree: the budget holds, the listing is git's, warm turns stay cheap."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.file_tree.listing import ListingOptions, list_tree
from providers.file_tree.provider import FileTreeProvider
from providers.repository.gitexec import GitRunner
from tests.file_tree.helpers import CountingRunner, git_listing, init_repo, request
from tests.support.watchers import WatcherBox

FILES = 20_000


def big_tree(root: Path) -> None:
    """FILES files, 25 a directory, directories nested eight wide; some ignored."""
    (root / ".gitignore").parent.mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    for index in range(FILES // 25):
        parts, n = [], index
        while True:
            parts.append(f"d{n % 8}")
            n //= 8
            if n == 0:
                break
        folder = root.joinpath("src", *reversed(parts))
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(25):
            (folder / (f"f{i}.log" if i == 24 else f"f{i}.py")).write_text("")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("")


@pytest.mark.slow
def test_big_tree(tmp_path: Path) -> None:
    root = tmp_path / "big"
    big_tree(root)
    # Outside a repository: the walk lists what git would list after init.
    walked = set(list_tree(root, ListingOptions(), GitRunner()).tree.paths())
    init_repo(root, commit=False)
    assert walked == git_listing(root)
    assert len(walked) == FILES - FILES // 25 + 1  # the .gitignore, no .log, no build/

    box = WatcherBox()
    runner = CountingRunner()
    provider = FileTreeProvider(watcher_factory=box, runner=runner)
    try:
        started = time.perf_counter()
        (section,) = contribute(provider, request(root, 2000), FallbackCounter()).sections
        cold = time.perf_counter() - started
        assert section.tokens <= 2000
        assert section.truncated
        assert f"of {len(walked):,} files" in section.text.splitlines()[-1]
        contribute(provider, request(root, 2000), FallbackCounter())  # catch-up listing
        calls = len(runner.calls)
        started = time.perf_counter()
        for _ in range(20):
            contribute(provider, request(root, 2000), FallbackCounter())
        warm = (time.perf_counter() - started) / 20
        assert len(runner.calls) == calls
        assert warm < cold / 10, (warm, cold)
        new = root / "src" / "d0" / "added.py"
        new.write_text("")
        box.last.report(new)
        text = contribute(provider, request(root, 2000, ["src/d0/added.py"]), FallbackCounter())
        assert "added.py" in text.sections[0].text
        assert not any(c.startswith("ls-files") for c in runner.calls[calls:])
        for budget in (50, 300, 5000):
            (small,) = contribute(provider, request(root, budget), FallbackCounter()).sections
            assert small.tokens <= budget
    finally:
        provider.close()
