"""design.md: layers point one way. No provider imports another provider's package, and the
neutral layers (core, repository) import no provider; checked on the source, import by import."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.registry import PROVIDERS
from tests.conftest import REPO_ROOT
from tests.support.imports import imported_modules

SOURCE_ROOT = REPO_ROOT / "providers"
PROVIDER_PACKAGES = tuple(entry.package for entry in PROVIDERS)


def reaches(module: str, package: str) -> bool:
    return module == f"providers.{package}" or module.startswith(f"providers.{package}.")


@pytest.mark.parametrize("package", PROVIDER_PACKAGES)
def test_no_provider_imports_another_provider(package: str) -> None:
    others = [p for p in PROVIDER_PACKAGES if p != package]
    bad = sorted(
        (where, module)
        for where, module in imported_modules(SOURCE_ROOT / package, REPO_ROOT)
        if any(reaches(module, other) for other in others)
    )
    assert not bad, f"providers/{package}/ reaches into another provider: {bad}"


@pytest.mark.parametrize("layer", ["core", "repository", "rules"])
def test_neutral_layers_import_no_provider(layer: str) -> None:
    bad = sorted(
        (where, module)
        for where, module in imported_modules(SOURCE_ROOT / layer, REPO_ROOT)
        if any(reaches(module, p) for p in (*PROVIDER_PACKAGES, "goplugin", "host"))
    )
    assert not bad, f"providers/{layer}/ imports a layer above it: {bad}"


def test_the_check_sees_a_cross_import(tmp_path: Path) -> None:
    """The check can fail: a module importing another provider is found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "m.py").write_text("from providers.file_tree.tree import Tree\n")
    found = {m for _, m in imported_modules(package, tmp_path)}
    assert any(reaches(m, "file_tree") for m in found)
