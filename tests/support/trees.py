"""Random trees with ``.gitignore`` files: the differential tests' inputs (listing, rules).

The same seed gives the same tree; names and patterns cover the corner cases
of git's rules (negation, anchoring, escapes, trailing spaces, non-ASCII).
"""

from __future__ import annotations

import random
from pathlib import Path

NAMES = (
    "a", "b", "build", "gen", "doc", "sub", "tmp", "z", "x.py", "y.log", "keep.log",
    "a.o", "important.o", "root_only.txt", "a.txt", "d.md", "#hash", "name ", "sp ace.txt",
    "ünï.txt", "c.txt", "deep", "[x]", "node_modules", "out",
)  # fmt: skip
PATTERNS = (
    "*.log", "!keep.log", "build/", "/root_only.txt", "tmp", "**/gen/*.py", "a/**/z", "*.o",
    "!important.o", "doc/*.md", "[abc].txt", "\\#hash", "name\\ ", "sub/", "!sub/", "deep/*",
    "!deep/x.py", "node_modules", "out/", "!out/keep.log", "*.txt", "!ünï.txt", "/a", "z/",
    "# comment", "", "\\[x\\]", "**/b", "x.py  ", "!*.py", "sub/**", "!sub/**/a.txt",
    "**/z/**", "?.o", "[!a].txt", "*/", "!*/", "/*", "!/b", "gen/", "!gen/*.py", "*.t?t",
    "doc/**/*.md", "\\!x", "a/b/", "**/tmp/", "z/*/", "[a-c]", "**",
)  # fmt: skip


def generate_tree(root: Path, seed: int, *, gitignores: bool = True) -> None:
    """A random tree of files and directories with ``.gitignore`` files sprinkled in."""
    rng = random.Random(seed)

    def fill(directory: Path, depth: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        if gitignores and rng.random() < 0.6:
            lines = rng.sample(PATTERNS, rng.randint(1, 5))
            (directory / ".gitignore").write_text("\n".join(lines) + "\n")
        for name in rng.sample(NAMES, rng.randint(3, 9)):
            if depth < 4 and rng.random() < 0.5 and "." not in name:
                fill(directory / name, depth + 1)
            elif not (directory / name).exists():
                (directory / name).write_text(name)

    fill(root, 0)


def random_patterns(seed: int, count: int) -> str:
    rng = random.Random(seed * 7919 + 1)
    return "\n".join(rng.sample(PATTERNS, count)) + "\n"
