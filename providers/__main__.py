"""``python -m providers preview DIR``: the bundle's main job (see providers.host.preview)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in ("preview",):
        sys.stderr.write("usage: python -m providers preview DIR\n")
        return 2
    from providers.host.preview import main as preview_main

    return preview_main(args[1:])


if __name__ == "__main__":
    raise SystemExit(main())
