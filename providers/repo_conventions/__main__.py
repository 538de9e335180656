"""``context-repo-conventions``: a plugin under the kernel, a preview command otherwise."""

from __future__ import annotations

PROVIDER = "providers.repo_conventions.provider:RepoConventionsProvider"


def main() -> None:
    from providers.goplugin.entry import run

    run(PROVIDER)


if __name__ == "__main__":
    main()
