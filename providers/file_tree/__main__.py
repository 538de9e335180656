"""``context-file-tree``: a plugin under the kernel, a preview command otherwise."""

from __future__ import annotations

PROVIDER = "providers.file_tree.provider:FileTreeProvider"


def main() -> None:
    from providers.goplugin.entry import run

    run(PROVIDER)


if __name__ == "__main__":
    main()
