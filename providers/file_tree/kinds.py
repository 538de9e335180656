"""What an entry is, by its name and its directories' names: how much it is worth showing.
Pure.

Source counts in full; dot directories, assets, fixtures and translated docs
little; generated and vendored files and lock files almost nothing
(:func:`kind_factor`). Documentation, examples, tests and benchmarks are
whole in kind (a busy test file is as worth showing as a busy module) but count
half their size when directories share the budget (:func:`role_factor`).
"""

from __future__ import annotations

import re

_GENERATED_DIRS = frozenset(
    {
        "node_modules", "vendor", "vendored", "third_party", "third-party", "_gen", "gen",
        "generated", "__generated__", "dist", "build", "target", "out", ".venv", "venv",
        "__pycache__", "bower_components", "Pods", "coverage", ".next", ".nuxt",
    }
)  # fmt: skip
_LOCK_FILES = frozenset(
    {
        "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "go.sum", "Cargo.lock",
        "poetry.lock", "uv.lock", "composer.lock", "Gemfile.lock", "Pipfile.lock",
        "bun.lockb", "flake.lock", "mix.lock", "pubspec.lock", "Podfile.lock",
    }
)  # fmt: skip
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", ".snap", ".pb.go", "_pb2.py", "_pb2.pyi")
_SIDE_DIRS = frozenset(
    {
        "assets", "images", "img", "static", "public", "fixtures", "fixture", "testdata",
        "test_data", "__snapshots__", "snapshots", "locales", "locale", "i18n", "l10n",
        "translations", "media", "fonts", "icons",
    }
)  # fmt: skip
ROLE_DIRS = frozenset(
    {
        "docs", "doc", "documentation", "docs_src", "docs-src", "examples", "example",
        "samples", "sample", "demo", "demos", "tests", "test", "__tests__", "testing",
        "spec", "specs", "e2e", "integration-tests", "integration_tests", "benchmarks",
        "benchmark", "benches", "bench",
    }
)  # fmt: skip
"""Directories that explain, try or check the code rather than hold it: each counts half
its size when directories share the budget (activity counts in full)."""
ROLE_FACTOR = 0.5
_LOCALE = re.compile(r"^[a-z]{2}(?:[-_][A-Za-z]{2,4})?$")
ENTRY_NAMES = frozenset(
    {
        "README.md", "README", "README.rst", "main.py", "__init__.py", "index.ts", "index.js",
        "main.go", "main.rs", "lib.rs", "mod.rs", "package.json", "pyproject.toml",
        "Cargo.toml", "go.mod", "Makefile", "setup.py", "AGENTS.md", "CLAUDE.md",
    }
)  # fmt: skip


def kind_factor(path: str, is_dir: bool) -> float:
    """How much an entry is worth showing, by what it and its directories are (1: source;
    near 0: generated). The lowest of its own and each ancestor directory's factor."""
    parts = path.split("/")
    factor = own_factor(parts[-1], parts[-2] if len(parts) > 1 else "", is_dir)
    for depth in range(len(parts) - 1):
        parent = parts[depth - 1] if depth else ""
        factor = min(factor, own_factor(parts[depth], parent, True))
    return factor


def own_factor(name: str, parent: str, is_dir: bool) -> float:
    """One name's factor, whatever its directories are (``parent``, its directory's name,
    tells a translation: ``docs/de``)."""
    if (is_dir and name in _GENERATED_DIRS) or (not is_dir and _generated_file(name)):
        return 0.02
    if is_dir and parent in ("docs", "doc", "i18n", "locales") and _LOCALE.match(name):
        return 1.0 if name in ("en", "en-US", "en_US") else 0.05  # translated docs
    if name.startswith(".") or (is_dir and name in _SIDE_DIRS):
        return 0.3
    return 1.0


def _generated_file(name: str) -> bool:
    return name in _LOCK_FILES or name.endswith(_GENERATED_SUFFIXES)


def role_factor(name: str) -> float:
    """How much of its size a directory named ``name`` counts when directories share the
    budget: half for one that explains, tries or checks the code (docs, examples, tests,
    benchmarks), so that a small source package is not outweighed by them."""
    return ROLE_FACTOR if name in ROLE_DIRS else 1.0
