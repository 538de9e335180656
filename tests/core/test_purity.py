"""design.md: the core is pure; importing it never imports grpc or the generated stubs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from providers.registry import PROVIDERS


def test_core_imports_no_grpc() -> None:
    code = (
        "import sys, pkgutil, importlib, providers.core as c\n"
        "for m in pkgutil.iter_modules(c.__path__):\n"
        "    importlib.import_module('providers.core.' + m.name)\n"
        "bad = [n for n in sys.modules if n == 'grpc' or n.startswith(('grpc.', 'providers._gen',"
        " 'providers.goplugin'))]\n"
        "print(bad)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("package", [entry.package for entry in PROVIDERS])
def test_entry_point_defers_heavy_imports(package: str) -> None:
    """Handshake before heavy imports: a console script's module imports neither grpc
    nor the provider's libraries at import time."""
    code = (
        f"import sys, providers.{package}.__main__\n"
        "heavy = ('grpc', 'markdown_it', 'watchfiles', 'yaml',"
        f" 'providers.{package}.provider')\n"
        "bad = [n for n in heavy if n in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
