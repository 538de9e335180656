"""One entry point per provider: a plugin when the kernel launches it, a command otherwise.

Kept free of heavy imports: the plugin path imports grpc only after the
cookie check, and the provider module only after the handshake.
"""

from __future__ import annotations

import os
import sys


def run(provider_spec: str, argv: list[str] | None = None) -> None:
    """``provider_spec`` is ``module:Factory``; exits the process."""
    from providers.goplugin.handshake import is_launched_by_host

    if is_launched_by_host(os.environ):
        from providers.goplugin.server import serve

        raise SystemExit(serve(provider_spec, os.environ))
    from providers.host.standalone import main as standalone_main

    raise SystemExit(standalone_main(provider_spec, sys.argv[1:] if argv is None else argv))
