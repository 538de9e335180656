"""What each client loads by itself (providers.clients.loaded), so the bridge never
sends it again: clients.md's table, nested files, and Claude's @imports."""

from __future__ import annotations

from pathlib import Path

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
