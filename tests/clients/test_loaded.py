"""What each client loads by itself (providers.clients.loaded), so the bridge never
sends it again: clients.md's table, nested files, and Claude's @imports."""

from __future__ import annotations

from pathlib import Path

from providers.clients.deltas import Piece
from providers.clients.loaded import own_loads


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root.resolve()


def test_claude_loads_claude_md_its_imports_and_rules_not_agents_md(tmp_path: Path) -> None:
    root = make(tmp_path, {"CLAUDE.md": "@docs/a.md\n", "docs/a.md": "x\n", "AGENTS.md": "y\n"})
    own = own_loads("claude", root)
    assert own.covers("CLAUDE.md") and own.covers("docs/a.md")
    assert own.covers("src/CLAUDE.md") and own.covers(".claude/rules/x.md")
    assert own.covers("CLAUDE.local.md")
    assert not own.covers("AGENTS.md") and not own.covers("GEMINI.md")
    assert not own.covers(".cursor/rules/a.mdc")


def test_claude_without_claude_md_loads_agents_md(tmp_path: Path) -> None:
    own = own_loads("claude", make(tmp_path, {"AGENTS.md": "y\n"}))
    assert own.covers("AGENTS.md") and own.covers("src/AGENTS.md")


def test_a_claude_md_importing_agents_md_covers_it(tmp_path: Path) -> None:
    own = own_loads("claude", make(tmp_path, {"CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "y\n"}))
    assert own.covers("AGENTS.md")


def test_gemini_loads_gemini_md_everywhere(tmp_path: Path) -> None:
    own = own_loads("gemini", make(tmp_path, {"GEMINI.md": "g\n", "AGENTS.md": "a\n"}))
    assert own.covers("GEMINI.md") and own.covers("src/GEMINI.md")
    assert not own.covers("AGENTS.md") and not own.covers("CLAUDE.md")


def test_codex_loads_agents_md_from_the_root_to_its_directory_only(tmp_path: Path) -> None:
    root = make(tmp_path, {"AGENTS.md": "a\n", "src/AGENTS.md": "b\n", "lib/AGENTS.md": "c\n"})
    own = own_loads("codex", root, root / "src")
    assert own.covers("AGENTS.md") and own.covers("src/AGENTS.md")
    assert not own.covers("lib/AGENTS.md") and not own.covers("GEMINI.md")


def test_imports_never_leave_the_repository(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("secret\n")
    root = make(tmp_path / "repo", {"CLAUDE.md": "@../outside.md\n"})
    assert own_loads("claude", root).paths == frozenset({"CLAUDE.local.md", ".claude/CLAUDE.md"})


def test_a_file_too_complex_to_parse_imports_nothing(tmp_path: Path) -> None:
    """Issue 20 item 5: a CLAUDE.md past the parser's work cap is not parsed for imports
    (MarkdownTooComplex); the files it would import are left for the bridge to send."""
    hostile = "".join(f"# h{i}\n" for i in range(50_000)) + "@docs/a.md\n"
    root = make(tmp_path, {"CLAUDE.md": hostile, "docs/a.md": "x\n"})
    own = own_loads("claude", root)
    assert own.covers("CLAUDE.md") and not own.covers("docs/a.md")


def test_a_symlink_or_copy_of_a_loaded_file_is_covered(tmp_path: Path) -> None:
    """Issue 29 item 3: CLAUDE.md a symlink to AGENTS.md: Claude loads CLAUDE.md (so,
    AGENTS.md's text), AGENTS.md is not sent again; a copy under another name neither."""
    root = make(tmp_path, {"AGENTS.md": "same\n", "src/AGENTS.md": "nested\n"})
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    (root / "src" / "CLAUDE.md").write_text("nested\n")  # a copy
    own = own_loads("claude", root)
    assert own.covers("AGENTS.md") and own.covers("src/AGENTS.md")
    assert not own_loads("gemini", root).covers("AGENTS.md")


def test_claude_attaches_nested_files_only_as_it_reads(tmp_path: Path) -> None:
    """After Read: nested CLAUDE.md, nested AGENTS.md and paths: rules; after a Bash read
    it recognises, no nested AGENTS.md; after one it does not, none of them."""
    root = make(tmp_path, {"AGENTS.md": "a\n", "src/AGENTS.md": "b\n", "src/b/CLAUDE.md": "c\n"})
    own = own_loads("claude", root)
    read = own.during(starting=False)
    assert read.covers("src/AGENTS.md") and read.covers("src/b/CLAUDE.md")
    assert read.covers(".claude/rules/py.md")
    bash = own.during(starting=False, scoped="all", followed=("src/b/a.py",), shell=True)
    assert bash.covers("src/b/CLAUDE.md") and not bash.covers("src/AGENTS.md")
    missed = own.during(starting=False, scoped="none", shell=True)
    assert not missed.covers("src/b/CLAUDE.md") and not missed.covers(".claude/rules/py.md")
    assert missed.covers("AGENTS.md")  # the root's: loaded at the start
    some = own.during(starting=False, scoped="some", followed=("lib/b.py",), shell=True)
    assert not some.covers("src/b/CLAUDE.md") and not some.covers(".claude/rules/py.md")


def test_claude_git_snapshot_and_gemini_listing_at_start_only(tmp_path: Path) -> None:
    root = make(tmp_path, {"a.py": "x\n"})
    git = Piece("git_status", "git status", "On branch main\n")
    small = Piece("file_tree", "file tree", "r/\n  a.py\n(shown: 1 of 1 files, 0 of 0 dirs)\n")
    big = Piece("file_tree", "file tree", "r/\n(shown: 90 of 536 files, 39 of 102 dirs)\n")
    claude, gemini = own_loads("claude", root), own_loads("gemini", root)
    assert claude.during(starting=True)(git) and not claude.during(starting=False)(git)
    assert not gemini.during(starting=True)(git) and not claude.during(starting=True)(small)
    assert gemini.during(starting=True)(small) and not gemini.during(starting=False)(small)
    assert not gemini.during(starting=True)(big)  # its 200 items miss most of it
    (root / "sub").mkdir()
    below = own_loads("gemini", root, root / "sub").during(starting=True)
    assert not below(small)  # it lists its working directory, not the repository


def test_skills_the_client_lists_are_not_listed_again(tmp_path: Path) -> None:
    skill = "---\nname: {0}\ndescription: does {0}\n---\nbody\n"
    root = make(
        tmp_path,
        {
            ".claude/skills/deploy/SKILL.md": skill.format("deploy"),
            ".agents/skills/deploy/SKILL.md": skill.format("deploy"),
            ".agents/skills/lint/SKILL.md": skill.format("lint"),
            ".github/skills/docs/SKILL.md": skill.format("docs"),
        },
    )
    catalog = (
        "[Skills: when a task matches one, read its SKILL.md and follow it.]\n"
        "- deploy: does deploy (.agents/skills/deploy/SKILL.md)\n"
        "- docs: does docs (.github/skills/docs/SKILL.md)\n"
        "- lint: does lint (.agents/skills/lint/SKILL.md)"
    )
    piece = Piece("conventions", "skills", catalog)
    (claude,) = own_loads("claude", root).trim([piece])
    assert "deploy" not in claude.text and "- docs" in claude.text and "- lint" in claude.text
    (codex,) = own_loads("codex", root).trim([piece])
    assert codex.text.splitlines()[1:] == ["- docs: does docs (.github/skills/docs/SKILL.md)"]
    only = Piece(
        "conventions", "skills", catalog.replace("- docs: does docs (.github/", "- x (.agents/")
    )
    assert own_loads("gemini", root).trim([only]) == []


def test_a_nested_agents_md_beside_a_claude_md_is_not_claudes(tmp_path: Path) -> None:
    """Claude Code reads a folder's CLAUDE.md, not the AGENTS.md beside it (measured:
    after a Read of src/a.py only src/CLAUDE.md arrives)."""
    root = make(tmp_path, {"AGENTS.md": "a\n", "src/AGENTS.md": "b\n", "src/CLAUDE.md": "c\n"})
    read = own_loads("claude", root).during(starting=False)
    assert read.covers("src/CLAUDE.md") and not read.covers("src/AGENTS.md")
    (root / "lib").mkdir()
    (root / "lib" / "AGENTS.md").write_text("d\n")
    assert read.covers("lib/AGENTS.md")
