"""``context-scoped-docs``: a plugin under the kernel, a preview command otherwise."""

from __future__ import annotations

PROVIDER = "providers.scoped_docs.provider:ScopedDocsProvider"


def main() -> None:
    from providers.goplugin.entry import run

    run(PROVIDER)


if __name__ == "__main__":
    main()
