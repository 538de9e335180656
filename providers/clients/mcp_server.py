"""``context-providers mcp [--client CLIENT]``: the providers as a stdio MCP server.

For users who prefer MCP, or whose client has no hooks. Built on the official ``mcp``
SDK: ``MCPServer`` (2.x) or ``FastMCP``, its 1.x name, with the same decorators. What it
serves (the texts come from :mod:`providers.clients.mcp_session`):

- ``instructions``: the static context, which every client puts in front of every
  request (its first line alone where Codex keeps only that);
- tools ``scoped_docs(files, budget)``, ``file_tree(directory, budget)``,
  ``git_status(budget)`` and ``conventions(path)``;
- resources ``context://git-status``, ``context://file-tree``, ``context://conventions``
  and ``context://conventions/<path>`` for each convention file present at start.

The repository is the server's working directory (the clients start MCP servers in the
project's directory); the answers come from the same per-repository background process
as the hooks'. The server is one client session. Never in the way: when the background
process cannot answer, a tool answers an error text saying why, the server keeps
serving, and the reason is in the hooks' log.

Start-up: the SDK import takes seconds on a loaded machine, so the convention files
are fetched (and the background process started) on a thread meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from providers.cli.console import CommandParser
from providers.clients import facts, hook
from providers.clients.mcp_session import (
    DOCS_BUDGET,
    FIRST_LINE,
    INSTRUCTIONS_BUDGET,
    SERVER_NAME,
    McpSession,
    Unavailable,
)

DESCRIPTION = """\
Serve the providers as a stdio MCP server, in the repository of the working
directory: its instructions carry the convention files and always-on rules the
client does not load by itself; tools and resources give the scoped docs of
files, the file tree, git status and the conventions on request. Clients start
it themselves: register it with `context-providers setup CLIENT --mcp`."""

TOOLS: dict[str, str] = {
    "scoped_docs": (
        "The docs and rules that apply to the given files (nested AGENTS.md, CLAUDE.md, "
        "GEMINI.md, each tool's glob rules), each given once per session. Call it with "
        "the files you are about to read or edit. files: paths relative to the project "
        f"directory or absolute; budget: tokens at most (default {DOCS_BUDGET})."
    ),
    "file_tree": (
        "The repository's file tree, expanded around a directory and the files asked "
        "about. directory: relative to the project directory (default: the project "
        "directory); budget: tokens at most (default: the provider's own)."
    ),
    "git_status": (
        "Git status now: branch, upstream, changes, operations in progress, recent "
        "commits. budget: tokens at most (default: the provider's own)."
    ),
    "conventions": (
        "The repository's convention files and always-on rules (AGENTS.md, CLAUDE.md, "
        "GEMINI.md, Cursor, Copilot and other tools' rules), or only the one at path "
        "(repository-relative)."
    ),
}


def _sdk() -> tuple[Any, type[Exception]]:
    """The SDK's server class and its tool error, whichever major is installed.

    Imported by name so that the same source type-checks against both (``mcp`` 2.x
    replaced ``mcp.server.fastmcp`` with a module that raises on import)."""
    try:
        server = importlib.import_module("mcp.server.mcpserver")
        errors = importlib.import_module("mcp.server.mcpserver.exceptions")
        return server.MCPServer, errors.ToolError
    except ImportError:  # mcp 1.x
        server = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return server.FastMCP, errors.ToolError


def build(session: McpSession, instructions: str, paths: list[str]) -> Any:
    """The server, not yet running: its instructions, tools and resources."""
    server_class, tool_error = _sdk()
    server = server_class(SERVER_NAME, instructions=instructions, log_level="WARNING")

    async def answer(call: Callable[[], str]) -> str:
        try:
            return await asyncio.to_thread(call)
        except (Unavailable, ValueError) as error:
            raise tool_error(f"context-providers: {error}") from error
        except Exception as error:  # a bug: said and logged, the server goes on
            hook.log(f"{type(error).__name__}: {error}", "mcp")
            raise tool_error(f"context-providers failed: {type(error).__name__}") from error

    async def text_of(call: Callable[[], str]) -> str:
        """A resource's text; when it cannot be had, a text that says why."""
        try:
            return await answer(call)
        except tool_error as error:
            return f"({error})\n"

    async def scoped_docs(files: list[str], budget: int = DOCS_BUDGET) -> str:
        return await answer(lambda: session.scoped_docs(files, budget))

    async def file_tree(directory: str = "", budget: int = 0) -> str:
        return await answer(lambda: session.file_tree(directory, budget))

    async def git_status(budget: int = 0) -> str:
        return await answer(lambda: session.git_status(budget))

    async def conventions(path: str = "") -> str:
        return await answer(lambda: session.conventions(path))

    for function in (scoped_docs, file_tree, git_status, conventions):
        # Plain text, not also {"result": TEXT}: Claude Code shows the model the JSON.
        server.tool(description=TOOLS[function.__name__], structured_output=False)(function)

    def resource(uri: str, name: str, description: str, call: Callable[[], str]) -> None:
        async def read() -> str:
            return await text_of(call)

        server.resource(uri, name=name, description=description, mime_type="text/markdown")(read)

    resource("context://git-status", "git status", "Git status now.", session.git_status)
    resource("context://file-tree", "file tree", "The repository's file tree.", session.file_tree)
    resource(
        "context://conventions",
        "conventions",
        "Every convention file and always-on rule.",
        session.conventions,
    )
    for path in paths:
        uri = f"context://conventions/{quote(path, safe='/')}"
        resource(uri, path, f"The convention file {path}.", _one_file(session, path))
    return server


def _one_file(session: McpSession, path: str) -> Callable[[], str]:
    return lambda: session.conventions(path)


class _Prefetch(threading.Thread):
    """The instructions, fetched while the SDK is imported."""

    def __init__(self, session: McpSession, budget: int) -> None:
        super().__init__(name="instructions", daemon=True)
        self.session = session
        self.budget = budget
        self.result: tuple[str, list[str]] = ("", [])

    def run(self) -> None:
        try:
            self.result = self.session.instructions(self.budget)
        except Exception as error:  # never in the way: serve the tools regardless
            hook.log(f"instructions: {type(error).__name__}: {error}", "mcp")
            self.result = (f"{FIRST_LINE}\n", [])


def main(args: list[str], *, prog: str) -> int:
    parser = CommandParser(
        prog=prog, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--client",
        choices=sorted(facts.FACTS),
        help="the client that starts it: what that client loads by itself is left out "
        "of the instructions (setup --mcp passes it)",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=INSTRUCTIONS_BUDGET,
        metavar="N",
        help=f"tokens the instructions may take (default {INSTRUCTIONS_BUDGET})",
    )
    parsed = parser.parse_args(args)
    # The SDK's dependencies warn at import (pydantic-settings under mcp 1.x): nothing a
    # user of a client could act on, and it would sit in every client's server log.
    warnings.simplefilter("ignore")
    session = McpSession.here(os.getcwd(), parsed.client)
    prefetch = _Prefetch(session, max(parsed.budget, 0))
    prefetch.start()
    _sdk()  # the import, meanwhile
    prefetch.join()
    instructions, paths = prefetch.result
    server = build(session, instructions, paths)
    server.run("stdio")
    if sys.stdout.closed:  # mcp 1.x closes it when the client hangs up
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (for the caller's flush)
    return 0
