"""Where a turn is: the root found upwards, the touched files inside it, a repeat for free."""

from __future__ import annotations

from pathlib import Path

from providers.core.request import check_request
from providers.core.types import ContextRequest, ModelTarget
from providers.file_tree.location import Locator
from tests.file_tree.helpers import init_repo
from tests.support.files import write


def located(locator: Locator, where: Path, *touched: str) -> tuple[Path, tuple[str, ...]]:
    request = ContextRequest(100, str(where), ModelTarget("m"), files_touched=touched)
    return locator.locate(check_request(request))


def test_the_root_is_found_upwards_and_touched_files_are_made_repo_relative(
    tmp_path: Path,
) -> None:
    repo = init_repo(tmp_path / "repo", commit=False)
    write(repo, "src/app/main.py")
    root, touched = located(
        Locator(), repo / "src", "app/main.py", str(repo / "README.md"), "../../elsewhere.txt"
    )
    assert root == repo.resolve()
    assert touched == ("src/app/main.py", "README.md")  # the one outside is left out


def test_a_repeated_request_is_not_resolved_again(tmp_path: Path) -> None:
    """Resolving costs a stat per component: while the request repeats, the first answer
    stands (even if a symlink moved meanwhile); a grown list resolves only its new entries
    (issue 20 item 8: each entry once per root and working directory); from another
    working directory, everything is resolved afresh."""
    repo = init_repo(tmp_path / "repo", commit=False)
    write(repo, "one/a.py")
    write(repo, "two/a.py")
    (repo / "link").symlink_to("one")
    locator = Locator()
    assert located(locator, repo, "link/a.py")[1] == ("one/a.py",)
    (repo / "link").unlink()
    (repo / "link").symlink_to("two")
    assert located(locator, repo, "link/a.py")[1] == ("one/a.py",)
    assert located(locator, repo, "link/a.py", "x.py")[1] == ("one/a.py", "x.py")
    assert located(locator, repo / "two", "../link/a.py")[1] == ("two/a.py",)
