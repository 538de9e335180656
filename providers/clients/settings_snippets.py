"""The settings fragments that register our hook command and MCP server in each client's
own format (the same hook shape in all three, the timeout unit aside; MCP servers in JSON
for Claude Code and Gemini CLI, in TOML for Codex CLI): what ``setup`` merges, what the
plugin and extension layouts carry, what the tests write. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from providers.clients.facts import FACTS


def timeout_value(client: str, seconds: float) -> int:
    """A hook timeout in the client's unit (Gemini counts milliseconds, the others seconds)."""
    unit = FACTS[client].timeout_unit
    return round(seconds * 1000) if unit == "ms" else max(1, round(seconds))


def hook_settings(client: str, hooks: Sequence[tuple[str, str, float]]) -> dict[str, Any]:
    """The settings object registering command hooks, one ``(event, command, timeout_s)``
    each; the same shape in all three clients, only the timeout unit differs."""
    by_event: dict[str, list[dict[str, Any]]] = {}
    for event, command, seconds in hooks:
        entry = {"type": "command", "command": command, "timeout": timeout_value(client, seconds)}
        by_event.setdefault(event, []).append(entry)
    return {
        "hooks": {
            event: [{"matcher": "*", "hooks": entries}] for event, entries in by_event.items()
        }
    }


def mcp_json(client: str, servers: Sequence[tuple[str, str, tuple[str, ...]]]) -> dict[str, Any]:
    """The JSON settings fragment registering stdio MCP servers ``(name, command, args)``
    for Claude Code (``~/.claude.json`` or ``.mcp.json``) or Gemini CLI (settings)."""
    entries: dict[str, Any] = {}
    for name, command, args in servers:
        if client == "claude":
            entries[name] = {"type": "stdio", "command": command, "args": list(args), "env": {}}
        elif client == "gemini":
            entries[name] = {"command": command, "args": list(args), "trust": True}
        else:
            raise ValueError(f"{client} registers MCP servers in TOML: codex_mcp_toml")
    return {"mcpServers": entries}


def codex_mcp_toml(
    servers: Sequence[tuple[str, str, tuple[str, ...]]],
    *,
    env_vars: Sequence[str] = (),
    startup_timeout_s: int | None = None,
) -> str:
    """The ``config.toml`` tables registering stdio MCP servers for Codex CLI; ``env_vars``
    names variables of Codex's environment to pass on (it passes few by itself)."""
    out = []
    for name, command, args in servers:
        out += [
            f"[mcp_servers.{name}]",
            f"command = {json.dumps(command)}",
            f"args = [{', '.join(json.dumps(a) for a in args)}]",
            "required = true",
            'default_tools_approval_mode = "approve"',
        ]
        if env_vars:
            out.append(f"env_vars = [{', '.join(json.dumps(v) for v in env_vars)}]")
        if startup_timeout_s is not None:
            out.append(f"startup_timeout_sec = {startup_timeout_s}")
        out.append("")
    return "\n".join(out)
