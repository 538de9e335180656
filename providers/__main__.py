"""``context-providers`` (or ``python -m providers``): the bundle's own command.

Its subcommands: the main job, ``preview DIR`` (see providers.cli.preview); ``setup
CLIENT``, ``doctor``, ``trust``, ``hook CLIENT`` and ``mcp``, which serve the providers to Claude
Code, Gemini CLI and Codex CLI through their hooks or as an MCP server (see
providers.clients). The providers
themselves are each their own console script. Grpc is imported
only once a subcommand runs, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import textwrap

from providers.cli.console import CommandParser, command_name, run_command
from providers.core.identity import package_version
from providers.registry import PROVIDERS

SCRIPT = "context-providers"
COMMANDS = {
    "preview": "providers.cli.preview:main",
    "explain": "providers.cli.explain:main",
    "setup": "providers.clients.commands:setup_main",
    "doctor": "providers.clients.commands:doctor_main",
    "trust": "providers.clients.commands:trust_main",
    "hook": "providers.clients.commands:hook_command_main",
    "mcp": "providers.clients.mcp_server:main",
}
"""Each subcommand's ``module:function``, imported only when it runs."""

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
        "commands:\n  preview DIR   the main job: DIR/agent.hcl's providers run through the\n"
        "                reference host for a short session; each turn's prompt printed\n"
        "  explain [FILE ...]  why each convention file, rule, skill and ignore file is\n"
        "                sent or not, for the repository and FILEs as if touched\n"
        "  setup CLIENT  register the hooks that serve the providers to claude, gemini\n"
        "                or codex (--scope user|project, --print, --remove)\n"
        "  doctor        running background processes, hook settings, last problems\n"
        "  trust [DIR]   let the hooks and the MCP server use DIR's agent.hcl as it is now\n"
        "  hook CLIENT   what a client's hook runs (reads the hook input on stdin)\n"
        "  mcp           the providers as a stdio MCP server, in the working directory's\n"
        "                repository (clients start it: setup CLIENT --mcp registers it)\n\n"
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
        "command",
        nargs="?",
        choices=list(COMMANDS),
        metavar="command",
        help=f"{', '.join(COMMANDS)} (see below)",
    )
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parsed = parser.parse_args(args)
    if parsed.command is None:
        parser.error(f"a command is required: {', '.join(COMMANDS)}")
    module_name, _, function = COMMANDS[parsed.command].partition(":")
    command = getattr(importlib.import_module(module_name), function)
    code: int = command(parsed.arguments, prog=f"{prog} {parsed.command}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
