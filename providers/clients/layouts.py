"""The clients' own install channels: the files that let each client install us itself.

- Claude Code: a marketplace (``.claude-plugin/marketplace.json`` at the repository's
  root: ``claude plugin marketplace add PATH|owner/repo``) listing two plugins,
  ``context-providers`` (the hooks) and ``context-providers-mcp`` (the MCP server), each
  a folder under ``integrations/`` with its ``.claude-plugin/plugin.json``
  (``claude plugin install context-providers@context-providers``).
- Codex CLI: a marketplace (``.agents/plugins/marketplace.json``: ``codex plugin
  marketplace add PATH|owner/repo``) listing its two plugins (``.codex-plugin/plugin.json``
  each; ``codex plugin add context-providers@context-providers``).
- Gemini CLI: two extensions (``gemini-extension.json`` each: ``gemini extensions install
  PATH/integrations/gemini-cli``); the hooks one also at the repository's root, which is
  what ``gemini extensions install https://github.com/OWNER/REPO`` installs.

Each runs exactly what ``setup --scope project`` writes (:func:`setup.hook_command`,
the MCP server's console script; by name, found on PATH, inside the fail-open guard):
installing the plugin needs ``context-providers`` installed (``pipx install``, ``uv tool
install``) and, without it, does nothing and fails nothing. The hooks and the MCP server
are separate plugins: with both, the convention files would reach the model twice.

Pure: :func:`files` is every file's path (relative to the repository) and text;
``tests/clients/test_layouts.py`` checks the committed files are these, and writes them
(``python -m tests.clients.test_layouts``).
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path
from typing import Any

from providers.clients import mcp_setup, settings_snippets, setup
from providers.clients.mcp_session import SERVER_NAME

NAME = "context-providers"
MCP_NAME = "context-providers-mcp"
MARKETPLACE = "context-providers"
"""The marketplace's name: ``claude plugin install context-providers@context-providers``."""
VERSION = "0.1.0"
DESCRIPTION = (
    "The convention files and rules your agent does not load by itself, git status, the "
    "file tree and each file's scoped docs, added to the session by hooks"
)
MCP_DESCRIPTION = (
    "The same context as an MCP server: convention files in its instructions, scoped "
    "docs, the file tree and git status as tools (use it or the hooks, not both)"
)
HOMEPAGE = "https://github.com/context-providers/context-providers"
AUTHOR = {"name": "the context-providers authors"}
FOLDERS = {"claude": "claude-code", "gemini": "gemini-cli", "codex": "codex"}
"""Each client's folders under ``integrations/``: FOLDER (hooks) and FOLDER-mcp."""


def folder(client: str, mcp: bool = False) -> str:
    return f"integrations/{FOLDERS[client]}" + ("-mcp" if mcp else "")


def _json(value: Any) -> str:
    return json.dumps(value, indent=2) + "\n"


def hooks(client: str) -> dict[str, Any]:
    """The hooks file (``hooks/hooks.json``): what ``setup CLIENT --scope project``
    writes into the client's settings."""
    command = setup.hook_command(client, scope="project")
    events = setup.events_for(client)
    return settings_snippets.hook_settings(
        client, [(e, command, setup.HOOK_TIMEOUT_S) for e in events]
    )


def _plan(client: str) -> mcp_setup.McpPlan:
    return mcp_setup.plan_for(client, "project", Path("."))  # the path is not used


def server(client: str) -> tuple[str, tuple[str, ...]]:
    """The MCP server's command and arguments, as ``setup CLIENT --mcp --scope project``
    writes them."""
    plan = _plan(client)
    return plan.command, plan.args


def _manifest(client: str, mcp: bool) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "name": MCP_NAME if mcp else NAME,
        "version": VERSION,
        "description": MCP_DESCRIPTION if mcp else DESCRIPTION,
        "author": AUTHOR,
        "homepage": HOMEPAGE,
        "license": "MIT",
    }
    if mcp:
        command, args = server(client)
        entry: dict[str, Any] = {"command": command, "args": list(args)}
        if (
            client == "codex"
        ):  # what setup writes into config.toml (settings_snippets.codex_mcp_toml)
            # required: who installs the plugin installs the tool (docs/install.md)
            plan = dataclasses.replace(_plan(client), required=True)
            table = tomllib.loads(mcp_setup.toml_block(plan))
            entry = table["mcp_servers"][SERVER_NAME]
        manifest["mcpServers"] = {SERVER_NAME: entry}
    return manifest


def _gemini_extension(mcp: bool) -> dict[str, Any]:
    extension: dict[str, Any] = {"name": MCP_NAME if mcp else NAME, "version": VERSION}
    if mcp:
        command, args = server("gemini")
        extension["mcpServers"] = {
            SERVER_NAME: {"command": command, "args": list(args), "trust": True}
        }
    return extension


def _marketplace(client: str) -> dict[str, Any]:
    plugins = [
        {
            "name": MCP_NAME if mcp else NAME,
            "source": "./" + folder(client, mcp),
            "description": MCP_DESCRIPTION if mcp else DESCRIPTION,
            "version": VERSION,
        }
        for mcp in (False, True)
    ]
    description = "context-providers: the context your agent does not load by itself"
    return {"name": MARKETPLACE, "owner": AUTHOR, "description": description, "plugins": plugins}


def files() -> dict[str, str]:
    """Every file of the install channels: path (relative to the repository) to text."""
    out = {
        ".claude-plugin/marketplace.json": _json(_marketplace("claude")),
        ".agents/plugins/marketplace.json": _json(_marketplace("codex")),
    }
    for client, manifest in (("claude", ".claude-plugin"), ("codex", ".codex-plugin")):
        out[f"{folder(client)}/{manifest}/plugin.json"] = _json(_manifest(client, False))
        out[f"{folder(client)}/hooks/hooks.json"] = _json(hooks(client))
        out[f"{folder(client, True)}/{manifest}/plugin.json"] = _json(_manifest(client, True))
    for root in ("", f"{folder('gemini')}/"):  # the repository's root: installs by URL
        out[f"{root}gemini-extension.json"] = _json(_gemini_extension(False))
        out[f"{root}hooks/hooks.json"] = _json(hooks("gemini"))
    out[f"{folder('gemini', True)}/gemini-extension.json"] = _json(_gemini_extension(True))
    return out
