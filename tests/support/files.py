"""Real files for tests: write one, mark a repository root, count what a provider reads."""

from __future__ import annotations

from pathlib import Path

from providers.repository.sources import SourceText, Unavailable, read_text


def write(root: Path, rel: str, text: str = "x\n") -> Path:
    """``root/rel`` with ``text`` (UTF-8), its directories made as needed."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_repo(root: Path) -> Path:
    """An empty repository root (``.git`` marks it; no git needed)."""
    (root / ".git").mkdir(parents=True)
    return root


class CountingReader:
    """``read_text`` that remembers every path it was asked for."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, root: Path, path: Path) -> SourceText | Unavailable:
        self.calls.append(path.as_posix())
        return read_text(root, path)
