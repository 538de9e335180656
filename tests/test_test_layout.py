"""Tests mirror the source tree, and a test package stands alone: it imports its own
modules, ``tests.conftest`` and ``tests.support``, never another test package's (a helper
two packages need moves to ``tests/support/``, once). Checked on the source, import by
import, as ``tests/test_layers.py`` checks ``providers/``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.support.imports import imported_modules

TESTS = REPO_ROOT / "tests"
SHARED = ("tests.support",)


def owner(rel: str) -> str:
    """The test package a module (``tests/...``, relative to the checkout) belongs to:
    ``tests.file_tree`` for ``tests/file_tree/data/x.py``, ``tests`` for a top-level one."""
    parts = rel.split("/")
    return "tests" if len(parts) == 2 else f"tests.{parts[1]}"


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def allowed(where: str, module: str) -> bool:
    """Its own package's modules, the shared helpers, and (outside them) the root conftest."""
    package = owner(where)
    if package == "tests.support":
        return within(module, "tests.support")
    if within(module, "tests.conftest") or any(within(module, shared) for shared in SHARED):
        return True
    if package == "tests":  # top-level test modules: no package of their own to import
        return False
    return within(module, package)


def crossings(tests: Path, base: Path) -> list[tuple[str, str]]:
    return sorted(
        (where, module)
        for where, module in imported_modules(tests, base)
        if within(module, "tests") and module != "tests" and not allowed(where, module)
    )


def test_no_test_package_imports_another_test_packages_modules() -> None:
    bad = crossings(TESTS, REPO_ROOT)
    assert not bad, f"test modules reaching into another test package: {bad}"


def test_the_check_sees_a_crossing(tmp_path: Path) -> None:
    """The check can fail: one test package importing another's helper, a top-level test
    importing a package's test module, and the shared helpers importing a package."""
    for rel, text in {
        "tests/a/test_x.py": "from tests.b.helpers import make\nfrom tests.a.h import ok\n",
        "tests/test_top.py": "from tests.a import test_x\nfrom tests.conftest import REPO_ROOT\n",
        "tests/support/s.py": "import tests.a.h\nfrom tests.support import other\n",
    }.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert crossings(tmp_path / "tests", tmp_path) == [
        ("tests/a/test_x.py", "tests.b.helpers"),
        ("tests/a/test_x.py", "tests.b.helpers.make"),
        ("tests/support/s.py", "tests.a.h"),
        ("tests/test_top.py", "tests.a"),
        ("tests/test_top.py", "tests.a.test_x"),
    ]
