"""``context-repo-conventions``: serves the kernel, previews otherwise (``providers.entry``)."""

from __future__ import annotations


def main() -> None:
    from providers.entry import run

    run("repo_conventions")


if __name__ == "__main__":
    main()
