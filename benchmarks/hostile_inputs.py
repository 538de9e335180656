"""Issue 20's hostile inputs, made to measure: shared by ``bench_hostile.py`` and the fast
tests that keep each one honest (``tests/reliability/test_hostile_inputs.py``).

Each maker takes a scale: 1.0 is the size the issue reports (40,000 headings,
500,000 ``[``, a 10-way import fan-out 5 levels deep, 30,000 Cursor rules with
10,000 Copilot instructions and 3,000 nested ``AGENTS.md``, 100,000 files
touched, a path 2,000 directories deep).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

_NOTE = "<!-- maintained by hand -->\n"

MARKDOWN_SHAPES: dict[str, Callable[[float], str]] = {
    "40,000 headings": lambda s: (
        _NOTE + "".join(f"# heading {i}\n\ntext\n\n" for i in range(int(40_000 * s)))
    ),
    "500,000 brackets": lambda s: _NOTE + "# Rules\n\n" + "[" * int(500_000 * s) + "\n",
    "bare CR runs": lambda s: _NOTE + "# Rules\r\r" + "a rule\r\r\r" * int(100_000 * s),
}
"""Convention file texts shaped to be slow for a markdown parser (issue 20 item 5), each
with a comment at the top, so stripping it needs the parser too."""


def empty_repo(root: Path) -> Path:
    """A directory the providers take for a repository root (a ``.git`` directory)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    return root


def markdown_repo(root: Path, text: str, *, nested: bool = False) -> Path:
    """``text`` as the root's ``AGENTS.md`` (repo conventions) or as ``src/AGENTS.md``
    (scoped docs, activated by touching ``src/x.py``)."""
    empty_repo(root)
    target = root / "src" / "AGENTS.md" if nested else root / "AGENTS.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, newline="")
    return root


def import_fanout(root: Path, fan: int = 10, depth: int = 5) -> Path:
    """``AGENTS.md`` importing ``l1.md`` ``fan`` times, each level the next ``fan`` times:
    ``fan ** depth`` reads when nothing caps the expansion (issue 20 item 6)."""
    empty_repo(root)
    (root / "AGENTS.md").write_text("# Top\n\n" + "@l1.md\n\n" * fan)
    for level in range(1, depth + 1):
        imports = "".join(f"@l{level + 1}.md\n\n" for _ in range(fan)) if level < depth else ""
        (root / f"l{level}.md").write_text(f"Level {level} text.\n\n{imports}")
    return root


def rule_flood(root: Path, scale: float) -> list[str]:
    """Cursor rules (one in ten always on), Copilot instructions and nested ``AGENTS.md``
    at ``scale`` of 30,000 / 10,000 / 3,000 (issue 20 item 7); returns a file in each
    nested doc's directory, for ``files_touched``."""
    empty_repo(root)
    cursor, copilot, nested = (max(1, int(n * scale)) for n in (30_000, 10_000, 3_000))
    rules = root / ".cursor" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    for i in range(cursor):
        always = "true" if i % 10 == 0 else "false"
        (rules / f"r{i:05}.mdc").write_text(
            f'---\ndescription: rule {i}\nglobs: "src/d{i}/**"\nalwaysApply: {always}\n---\n'
            f"# Rule {i}\n\nText of rule {i}.\n"
        )
    instructions = root / ".github" / "instructions"
    instructions.mkdir(parents=True, exist_ok=True)
    for i in range(copilot):
        (instructions / f"c{i:05}.instructions.md").write_text(
            f'---\napplyTo: "src/d{i}/*.py"\n---\n# Copilot {i}\n\nText.\n'
        )
    touched = []
    for i in range(nested):
        directory = root / "src" / f"d{i}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "AGENTS.md").write_text(f"# Nested {i}\n\nText of doc {i}.\n")
        touched.append(f"src/d{i}/m.py")
    return touched


def touched_paths(scale: float, *, directories: int = 1_000) -> list[str]:
    """``100,000 * scale`` files touched inside the repository (issue 20 item 8)."""
    count = int(100_000 * scale)
    return [f"src/d{i % directories}/f{i}.py" for i in range(count)]


def deep_path(scale: float) -> str:
    """A file ``2,000 * scale`` directories deep (issue 20 item 8): 4,000 characters at
    1.0, just inside Linux's PATH_MAX."""
    return "/".join(["d"] * int(2_000 * scale)) + "/f.py"


def tree_files(root: Path, paths: list[str]) -> None:
    """Create ``paths`` (empty files) under ``root``."""
    made: set[str] = set()
    for rel in paths:
        parent = os.path.dirname(rel)
        if parent not in made:
            (root / parent).mkdir(parents=True, exist_ok=True)
            made.add(parent)
        (root / rel).touch()
