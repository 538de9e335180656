"""Discovery: rule dirs listed once, nested files looked up per directory, re-read on change."""

from __future__ import annotations

import os
from pathlib import Path

from providers.rules.catalog import Catalog
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS
from tests.support.files import CountingReader, make_repo, write

RULE_DIRS = {d: DIALECTS[n] for d, n in BUILTIN_RULE_DIRS}
NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")


def catalog(root: Path, reader: CountingReader) -> Catalog:
    return Catalog(root, RULE_DIRS, NAMES, reader)


def bump(path: Path, text: str) -> None:
    """Rewrite with a new size so the stat key surely changes."""
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_every_builtin_rule_dir_is_discovered(tmp_path: Path, reader: CountingReader) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".cursor/rules/sub/a.mdc", "---\nglobs: a/**\n---\nA\n")
    write(root, ".cursor/rules/notes.txt", "not a rule file\n")
    write(root, ".github/instructions/b.instructions.md", "---\napplyTo: b/**\n---\nB\n")
    write(root, ".github/instructions/plain.md", "not an instructions file\n")
    write(root, ".claude/rules/c.md", "---\npaths: [c/**]\n---\nC\n")
    write(root, ".clinerules/d.md", "---\npaths: d/**\n---\nD\n")
    write(root, ".windsurf/rules/e.md", "---\ntrigger: glob\nglobs: e/**\n---\nE\n")
    write(root, ".continue/rules/f.md", "---\nglobs: f/**\n---\nF\n")
    found = catalog(root, reader)
    changed = found.scan_rule_dirs()
    expected = {
        ".cursor/rules/sub/a.mdc",
        ".github/instructions/b.instructions.md",
        ".claude/rules/c.md",
        ".clinerules/d.md",
        ".windsurf/rules/e.md",
        ".continue/rules/f.md",
    }
    assert set(found.rules) == expected
    assert changed == expected
    assert {r.dialect for r in found.rules.values()} == {
        "cursor",
        "copilot",
        "claude",
        "cline",
        "windsurf",
        "continue",
    }


def test_rescan_reads_only_changed_files(tmp_path: Path, reader: CountingReader) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".clinerules/a.md", "---\npaths: a/**\n---\nA\n")
    b = write(root, ".clinerules/b.md", "---\npaths: b/**\n---\nB\n")
    found = catalog(root, reader)
    found.scan_rule_dirs()
    reader.calls.clear()
    assert found.refresh_all() == set()
    assert reader.calls == []
    bump(b, "---\npaths: b/**\n---\nB, edited\n")
    assert found.refresh_all() == {".clinerules/b.md"}
    assert reader.calls == [".clinerules/b.md"]
    assert found.rules[".clinerules/b.md"].text == "B, edited\n"


def test_removed_rule_file_is_forgotten(tmp_path: Path, reader: CountingReader) -> None:
    root = make_repo(tmp_path / "r")
    a = write(root, ".clinerules/a.md", "---\npaths: a/**\n---\nA\n")
    found = catalog(root, reader)
    found.scan_rule_dirs()
    a.unlink()
    assert found.apply_changes([str(a)]) == {".clinerules/a.md"}
    assert found.rules == {}


def test_changes_outside_rule_dirs_and_looked_up_dirs_read_nothing(
    tmp_path: Path, reader: CountingReader
) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".clinerules/a.md", "---\npaths: a/**\n---\nA\n")
    found = catalog(root, reader)
    found.scan_rule_dirs()
    reader.calls.clear()
    unrelated = write(root, "src/never/AGENTS.md", "never looked up\n")
    assert found.apply_changes([str(unrelated), str(root / "src/main.py"), "/elsewhere/x"]) == set()
    assert reader.calls == []


def test_nested_lookup_is_lazy_and_refreshed_on_change(
    tmp_path: Path, reader: CountingReader
) -> None:
    root = make_repo(tmp_path / "r")
    agents = write(root, "src/auth/AGENTS.md", "# auth\n\nOne.\n")
    found = catalog(root, reader)
    found.scan_rule_dirs()
    assert reader.calls == []
    assert [r.path for r in found.nested_rules("src/auth")] == ["src/auth/AGENTS.md"]
    assert found.nested_rules("src") == []
    reader.calls.clear()
    found.nested_rules("src/auth")
    assert reader.calls == []  # cached
    gemini = write(root, "src/auth/GEMINI.md", "# gemini\n\nTwo.\n")
    assert found.apply_changes([str(gemini)]) == {"src/auth/GEMINI.md"}
    assert [r.path for r in found.nested_rules("src/auth")] == [
        "src/auth/AGENTS.md",
        "src/auth/GEMINI.md",
    ]
    agents.unlink()
    assert "src/auth/AGENTS.md" in found.apply_changes([str(root / "src/auth")])
    assert [r.path for r in found.nested_rules("src/auth")] == ["src/auth/GEMINI.md"]


def test_nested_duplicate_of_an_earlier_name_is_skipped(
    tmp_path: Path, reader: CountingReader
) -> None:
    root = make_repo(tmp_path / "r")
    write(root, "pkg/AGENTS.md", "# pkg\n\nSame.\n")
    os.symlink("AGENTS.md", root / "pkg" / "CLAUDE.md")
    write(root, "pkg/GEMINI.md", "# pkg\n\nDifferent.\n")
    found = catalog(root, reader)
    assert [r.path for r in found.nested_rules("pkg")] == ["pkg/AGENTS.md", "pkg/GEMINI.md"]


def test_rule_dir_symlinked_outside_the_repo_is_refused(
    tmp_path: Path, reader: CountingReader
) -> None:
    root = make_repo(tmp_path / "r")
    write(tmp_path, "outside/rules/x.md", "---\npaths: a/**\n---\nOUTSIDE\n")
    os.symlink(tmp_path / "outside/rules", root / ".clinerules")
    found = catalog(root, reader)
    found.scan_rule_dirs()
    assert found.rules == {}
    assert reader.calls == []
    assert ".clinerules/" in found.problems
    assert "outside the repository" in found.problems[".clinerules/"].note


def test_clinerules_as_a_single_file_is_not_a_rule_dir(
    tmp_path: Path, reader: CountingReader
) -> None:
    root = make_repo(tmp_path / "r")
    write(root, ".clinerules", "root conventions belong to repo-conventions\n")
    found = catalog(root, reader)
    assert found.scan_rule_dirs() == set()
    assert found.rules == {} and found.problems == {}
