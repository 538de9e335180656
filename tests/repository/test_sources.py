"""Safe reads: confined, size-capped, text only; problems are values, never exceptions."""

from __future__ import annotations

import os
from pathlib import Path

from providers.repository.sources import SourceText, Unavailable, read_text


def test_reads_text_and_drops_bom(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes("\ufeffhello\n".encode())
    result = read_text(tmp_path, Path("a.md"))
    assert isinstance(result, SourceText)
    assert result.text == "hello\n" and result.path == "a.md"


def test_refusals_name_the_path_and_reason(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("secret")
    (tmp_path / "link.md").symlink_to(outside)
    (tmp_path / "bin.md").write_bytes(b"a\x00b")
    (tmp_path / "latin.md").write_bytes(b"\xff\xfe")
    (tmp_path / "dir.md").mkdir()
    (tmp_path / "big.md").write_bytes(b"x" * 101)
    cases = {
        "link.md": "resolves outside the repository",
        "../x.md": "resolves outside the repository",
        "bin.md": "binary content",
        "latin.md": "not valid UTF-8",
        "dir.md": "not a regular file",
        "missing.md": "does not exist",
        "big.md": "too large",
    }
    for name, reason in cases.items():
        result = read_text(tmp_path, Path(name), max_bytes=100)
        assert isinstance(result, Unavailable), name
        assert reason in result.reason, (name, result)
        assert result.describe().startswith(result.path)
    outside.unlink()


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    result = read_text(tmp_path, Path("pipe.md"))
    assert isinstance(result, Unavailable) and result.reason == "not a regular file"


def test_huge_file_is_never_loaded(tmp_path: Path) -> None:
    with (tmp_path / "huge.md").open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    result = read_text(tmp_path, Path("huge.md"))
    assert isinstance(result, Unavailable) and "too large" in result.reason
