"""Issue 27 item 5: the watch leaves out what git ignores, and scoped docs still sees every
edit to what it shows: a nested doc in an ignored folder is checked by stat each turn, and
its rule folders are watched even when git ignores them.

Real inotify, real git, real files.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.core.provider import contribute
from providers.core.types import Contribution
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.watch.inotify import InotifyWatcher, available
from tests.support.files import CountingReader, write
from tests.support.requests import COUNTER, labels, request

pytestmark = pytest.mark.skipif(not available(), reason="no inotify here")


@pytest.fixture
def ignoring_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write(root, ".gitignore", "vendor/\n.clinerules/\n")
    write(root, "vendor/pkg/AGENTS.md", "# pkg\n\nversion one\n")
    write(root, "vendor/pkg/x.py")
    write(root, ".clinerules/api.md", "---\npaths: api/**\n---\nrule one\n")
    write(root, "api/a.py")
    return root


@pytest.fixture
def real(reader: CountingReader) -> Iterator[ScopedDocsProvider]:
    made = ScopedDocsProvider(
        watcher_factory=InotifyWatcher, reader=reader, watch_start_timeout=10.0
    )
    yield made
    made.close()


def text_of(contribution: Contribution, path: str) -> str:
    found = [s for s in contribution.sections if s.label.startswith(path + " (")]
    assert len(found) == 1, labels(contribution)
    return str(found[0].text)


def settled(provider: ScopedDocsProvider, repo: Path, touched: tuple[str, ...]) -> Contribution:
    """A turn once the watch is in place (the first such turn rechecks everything)."""
    contribute(provider, request(repo, touched), COUNTER)
    provider.answer_sent()
    time.sleep(0.3)
    return contribute(provider, request(repo, touched), COUNTER)


def test_a_nested_doc_where_git_ignores_is_rechecked_each_turn(
    ignoring_repo: Path, real: ScopedDocsProvider, reader: CountingReader
) -> None:
    touched = ("vendor/pkg/x.py",)
    first = settled(real, ignoring_repo, touched)
    assert text_of(first, "vendor/pkg/AGENTS.md") == "# pkg\n\nversion one\n"
    reader.calls.clear()
    assert contribute(real, request(ignoring_repo, touched), COUNTER) is first
    assert reader.calls == []  # nothing changed: nothing read
    (ignoring_repo / "vendor" / "pkg" / "AGENTS.md").write_text("# pkg\n\nversion two!\n")
    result = contribute(real, request(ignoring_repo, touched), COUNTER)
    assert text_of(result, "vendor/pkg/AGENTS.md") == "# pkg\n\nversion two!\n"


def test_a_rule_folder_git_ignores_is_still_watched(
    ignoring_repo: Path, real: ScopedDocsProvider
) -> None:
    touched = ("api/a.py",)
    assert text_of(settled(real, ignoring_repo, touched), ".clinerules/api.md") == "rule one\n"
    (ignoring_repo / ".clinerules" / "api.md").write_text("---\npaths: api/**\n---\nrule two\n")
    deadline = time.monotonic() + 3
    while True:
        result = contribute(real, request(ignoring_repo, touched), COUNTER)
        if text_of(result, ".clinerules/api.md") == "rule two\n":
            break
        assert time.monotonic() < deadline, "the edit never showed up"
        time.sleep(0.05)
