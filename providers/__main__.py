"""``context-providers`` (or ``python -m providers``): the bundle's own command.

Its one subcommand is the main job, ``preview DIR`` (see providers.cli.preview);
the providers themselves are each their own console script. Grpc is imported
only once a subcommand runs, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from providers.cli.console import CommandParser, command_name, run_command
from providers.core.identity import package_version
from providers.registry import PROVIDERS

SCRIPT = "context-providers"

DESCRIPTION = """\
context-providers: file-based context providers for AI coding agents, built as
plugins for the PluggableHarness kernel (hashicorp/go-plugin over gRPC). Before
every model call the kernel asks each provider declared in agent.hcl for labelled
sections of the prompt."""


def _epilog() -> str:
    width = max(len(entry.script) for entry in PROVIDERS)
    indent = " " * (width + 4)
    rows = "\n".join(
        textwrap.fill(
            entry.summary,
            80,
            initial_indent=f"  {entry.script:<{width}}  ",
            subsequent_indent=indent,
        )
        for entry in PROVIDERS
    )
    return (
        "commands:\n  preview DIR  the main job: DIR/agent.hcl's providers run through the\n"
        "               reference host for a short session; each turn's prompt printed\n\n"
        f"the providers, each its own console script (the kernel launches them):\n{rows}"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run_command(lambda: _main(args))


def _main(args: list[str]) -> int:
    prog = command_name(SCRIPT, "providers")
    parser = CommandParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{SCRIPT} {package_version()}")
    parser.add_argument(
        "command", nargs="?", choices=["preview"], metavar="command", help="preview (see below)"
    )
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parsed = parser.parse_args(args)
    if parsed.command is None:
        parser.error("a command is required: preview DIR")
    from providers.cli.preview import main as preview_main

    return preview_main(parsed.arguments, prog=f"{prog} {parsed.command}")


if __name__ == "__main__":
    raise SystemExit(main())
