"""Confinement and files_touched normalisation (one copy of each rule)."""

from __future__ import annotations

from pathlib import Path

from providers.repository.paths import ancestors, confine, normalise_touched


def test_confine_follows_symlinks_before_deciding(tmp_path: Path) -> None:
    root = (tmp_path / "root").resolve()
    root.mkdir()
    (tmp_path / "out.txt").write_text("x")
    (root / "in.txt").write_text("x")
    (root / "escape").symlink_to(tmp_path / "out.txt")
    assert confine(root, Path("in.txt")) == root / "in.txt"
    assert confine(root, Path("escape")) is None
    assert confine(root, Path("../out.txt")) is None
    assert confine(root, Path("../out.txt"), allowed=(tmp_path.resolve(),)) is not None


def test_files_touched_normalised_and_outside_ignored(tmp_path: Path) -> None:
    root = (tmp_path / "repo").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("")
    touched = normalise_touched(
        root,
        root / "src",
        [
            "a.py",
            str(root / "src" / "a.py"),
            "../README.md",
            "new/file.py",
            "/etc/passwd",
            "../../x",
            "",
        ],
    )
    assert touched.inside == ("src/a.py", "README.md", "src/new/file.py")
    assert set(touched.outside) == {"/etc/passwd", "../../x", ""}


def test_ancestors_are_deepest_first_without_the_root() -> None:
    assert ancestors("a/b/c.py") == ["a/b", "a"]
    assert ancestors("top.py") == []
