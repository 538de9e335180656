"""The clients' own install channels (issue 30 item 2): the committed plugin,
marketplace and extension files are what ``providers.clients.layouts`` makes from
``setup`` (so they run what ``setup --scope project`` writes); ``python -m
tests.clients.test_layouts`` writes them."""

from __future__ import annotations

import sys

from providers.clients import layouts
from tests.conftest import REPO_ROOT


def test_the_committed_layouts_are_what_setup_writes() -> None:
    for path, text in layouts.files().items():
        where = REPO_ROOT / path
        assert where.is_file(), f"{path} missing: python -m tests.clients.test_layouts"
        assert where.read_text(encoding="utf-8") == text, (
            f"{path} differs: python -m tests.clients.test_layouts"
        )


def write() -> None:
    for path, text in layouts.files().items():
        where = REPO_ROOT / path
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {path}\n")


if __name__ == "__main__":
    write()
