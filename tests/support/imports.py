"""Every absolute import in a tree of modules, read from the source (nothing is imported):
what the layer checks (``tests/test_layers.py``, ``tests/test_test_layout.py``) judge."""

from __future__ import annotations

import ast
from pathlib import Path


def imported_modules(package: Path, base: Path) -> set[tuple[str, str]]:
    """(file, module) for every absolute import in the package's modules (``package`` may
    be one module's file)."""
    found: set[tuple[str, str]] = set()
    for path in [package] if package.is_file() else package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            rel = path.relative_to(base).as_posix()
            found.update((rel, name) for name in names)
    return found
