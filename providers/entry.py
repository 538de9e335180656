"""The console-script entry of every provider: a plugin when the kernel launches it, a
preview command otherwise.

Above both the plugin server (``goplugin``) and the preview (``host``), so
neither imports the other: the preview never loads grpc. Kept free of heavy
imports: the plugin path imports grpc only after the cookie check, and the
provider module only after the handshake.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

from providers.goplugin.handshake import is_launched_by_host
from providers.registry import by_package


def run(package: str, argv: list[str] | None = None) -> NoReturn:
    """Serve or preview the provider of ``providers/<package>``; exits the process."""
    entry = by_package(package)
    if is_launched_by_host(os.environ):
        from providers.goplugin.server import serve

        raise SystemExit(serve(entry.factory, os.environ))
    from providers.cli.console import run_command
    from providers.cli.standalone import main as standalone_main

    args = sys.argv[1:] if argv is None else argv
    raise SystemExit(run_command(lambda: standalone_main(entry, args)))
