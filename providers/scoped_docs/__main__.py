"""``context-scoped-docs``: serves the kernel, previews otherwise (``providers.entry``)."""

from __future__ import annotations


def main() -> None:
    from providers.entry import run

    run("scoped_docs")


if __name__ == "__main__":
    main()
