"""design.md: the core is pure; importing it never imports grpc or the generated stubs."""

from __future__ import annotations

import subprocess
import sys


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


def test_entry_point_defers_heavy_imports() -> None:
    """Handshake before heavy imports: the console script module imports neither grpc
    nor markdown-it at import time."""
    code = (
        "import sys, providers.repo_conventions.__main__\n"
        "bad = [n for n in ('grpc', 'markdown_it', 'pathspec', 'watchfiles') if n in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
