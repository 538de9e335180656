"""``context-providers setup CLIENT --mcp``: register the MCP server in a client's settings.

The same rules as the hooks' setup (:mod:`providers.clients.setup`): merged into what is
there, idempotent (our entry, the server named :data:`~sections.SERVER_NAME` that runs
``-m providers mcp``, is replaced in place), ``--remove`` takes out exactly what it
added, ``--print`` shows it. Per client (``facts.mcp``):

- Claude Code: ``mcpServers`` in ``~/.claude.json`` (what ``claude mcp add --scope user``
  writes) or the repository's ``.mcp.json``; and the rule that lets ``-p`` call its tools,
  ``"permissions": {"allow": ["mcp__context_providers"]}``, in ``~/.claude/settings.json``
  or the repository's ``.claude/settings.local.json``.
- Gemini CLI: ``mcpServers`` in its settings, with ``"trust": true``.
- Codex CLI: a ``[mcp_servers.context_providers]`` table in ``$CODEX_HOME/config.toml``
  (or ``.codex/config.toml`` in a trusted project) with ``required = true``, its tools
  approved, and ``env_vars`` passing on the variables that place the background process
  (Codex gives servers only a few of its own); edited as text, checked with ``tomllib``.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.clients import facts, hook, places
from providers.clients.sections import ENV_START, ENV_WAIT, SERVER_NAME
from providers.clients.setup import SetupError, load, write

ENV_PASSED = (places.ENV_RUNTIME, places.ENV_STATE, hook.ENV_START, ENV_START, ENV_WAIT)
"""What Codex must pass on for the server to find the hooks' background process."""
CODEX_STARTUP_S = 40
"""Codex's wait for a required server: more than the server's own for its instructions
(sections.INSTRUCTIONS_WAIT_S; Codex's default is shorter)."""
MODULE_ARGS = ("-m", "providers", "mcp")
SAFE_PATH = "-P"
"""Python's safe-path flag: ``-m`` would put the working directory (the client starts the
server in the repository) first on ``sys.path``, so a ``providers.py``, ``providers/``
or ``argparse.py`` there would run as the user."""


@dataclass(frozen=True)
class McpPlan:
    client: str
    path: Path
    """Where the server is registered."""
    approval: Path | None
    """Where the rule allowing its tools goes (Claude), else None."""
    command: str
    args: tuple[str, ...]


def server_args(client: str, options: Sequence[str] = ()) -> tuple[str, ...]:
    return (SAFE_PATH, *MODULE_ARGS, "--client", client, *options)


def plan_for(client: str, scope: str, repo: Path, options: Sequence[str] = ()) -> McpPlan:
    info = facts.FACTS[client].mcp

    def place(files: facts.SettingsFiles) -> Path:
        if scope == "project":
            return repo / files.project
        if files.user_root == "$CODEX_HOME":
            return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / files.user
        return Path.home() / files.user

    approval = place(info.approval_files) if info.approval_files else None
    return McpPlan(
        client, place(info.server_files), approval, sys.executable, server_args(client, options)
    )


def is_ours(entry: Any) -> bool:
    """Our server's entry: it runs ``-m providers mcp`` (after ``-P`` since it must; an
    entry written before without it is ours too, and is replaced)."""
    args = entry.get("args") if isinstance(entry, dict) else None
    if not isinstance(args, list):
        return False
    words = args[1:] if args[:1] == [SAFE_PATH] else args
    return tuple(words[: len(MODULE_ARGS)]) == MODULE_ARGS


RULE = f"mcp__{SERVER_NAME}"
"""Claude Code's permission rule for every tool of the server."""


# -- JSON settings (Claude Code, Gemini CLI) ------------------------------------------


def entry(plan: McpPlan) -> dict[str, Any]:
    servers = facts.mcp_json(plan.client, [(SERVER_NAME, plan.command, plan.args)])
    value: dict[str, Any] = servers["mcpServers"][SERVER_NAME]
    return value


def _servers_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise SetupError(f'{path}: "mcpServers" is not an object; left untouched')
    current = servers.get(SERVER_NAME)
    if current is not None and not is_ours(current):
        raise SetupError(f"{path}: a server named {SERVER_NAME} that is not ours; left untouched")
    return servers


def json_merged(settings: dict[str, Any], plan: McpPlan) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(settings))
    _servers_of(result, plan.path)[SERVER_NAME] = entry(plan)
    return result


def json_removed(settings: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(settings))
    servers = result.get("mcpServers")
    if isinstance(servers, dict) and is_ours(servers.get(SERVER_NAME)):
        del servers[SERVER_NAME]
        if not servers:
            del result["mcpServers"]
    return result


def allowed(settings: dict[str, Any], plan: McpPlan) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(settings))
    permissions = result.setdefault("permissions", {})
    allow = permissions.setdefault("allow", []) if isinstance(permissions, dict) else None
    if not isinstance(allow, list):
        raise SetupError(f'{plan.approval}: "permissions.allow" is not a list; left untouched')
    if RULE not in allow:
        allow.append(RULE)
    return result


def disallowed(settings: dict[str, Any], plan: McpPlan) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(settings))
    permissions = result.get("permissions")
    allow = permissions.get("allow") if isinstance(permissions, dict) else None
    if isinstance(permissions, dict) and isinstance(allow, list) and RULE in allow:
        allow.remove(RULE)
        if not allow:
            del permissions["allow"]
        if not permissions:
            del result["permissions"]
    return result


# -- config.toml (Codex CLI) -------------------------------------------------------------

HEADER = f"[mcp_servers.{SERVER_NAME}]"


def toml_block(plan: McpPlan) -> str:
    return facts.codex_mcp_toml(
        [(SERVER_NAME, plan.command, plan.args)],
        env_vars=ENV_PASSED,
        startup_timeout_s=CODEX_STARTUP_S,
    )


def _toml_checked(text: str, path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SetupError(f"{path}: not valid TOML ({error}); left untouched") from error
    servers = data.get("mcp_servers")
    current = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if current is not None and not is_ours(current):
        raise SetupError(f"{path}: a server named {SERVER_NAME} that is not ours; left untouched")
    return data


def _block_span(lines: list[str], path: Path) -> tuple[int, int] | None:
    """Lines ``[start, end)`` of our table (and its sub-tables), trailing blank lines
    excluded; None when there is none."""
    starts = [i for i, line in enumerate(lines) if line.strip() == HEADER]
    if not starts:
        return None
    if len(starts) > 1:
        raise SetupError(f"{path}: {HEADER} twice; left untouched")
    start = starts[0]
    end = start + 1
    while end < len(lines):
        stripped = lines[end].strip()
        if stripped.startswith("[") and not stripped.startswith(f"{HEADER[:-1]}."):
            break
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end


def toml_merged(text: str, plan: McpPlan) -> str:
    data = _toml_checked(text, plan.path)
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, plan.path)
    block = toml_block(plan)
    if span is None:
        if SERVER_NAME in (data.get("mcp_servers") or {}):
            raise SetupError(f"{plan.path}: {SERVER_NAME} is defined in a form setup does not edit")
        if not text:
            return block
        return text + ("" if text.endswith("\n") else "\n") + "\n" + block
    start, end = span
    return "".join(lines[:start]) + block + "".join(lines[end:])


def toml_removed(text: str, path: Path) -> str:
    _toml_checked(text, path)
    lines = text.splitlines(keepends=True)
    span = _block_span(lines, path)
    if span is None:
        return text
    start, end = span
    if start > 0 and not lines[start - 1].strip():
        start -= 1  # the blank line put before it
    return "".join(lines[:start]) + "".join(lines[end:])


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _write_text(path: Path, text: str) -> None:
    if not text.strip():
        if path.exists():
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


# -- what setup does ------------------------------------------------------------------


def shown(plan: McpPlan) -> str:
    if plan.client == "codex":
        return f"# {plan.path}\n{toml_block(plan)}"
    out = f"# {plan.path}\n" + json.dumps({"mcpServers": {SERVER_NAME: entry(plan)}}, indent=2)
    if plan.approval is not None:
        snippet = {"permissions": {"allow": [RULE]}}
        out += f"\n# {plan.approval}\n" + json.dumps(snippet, indent=2)
    return out + "\n"


def run(plan: McpPlan, *, remove: bool = False, show: bool = False, scope: str = "user") -> str:
    """Do what was asked; the report for the user."""
    if show:
        return shown(plan)
    changed = _run_toml(plan, remove) if plan.client == "codex" else _run_json(plan, remove)
    return _report(plan, changed, remove=remove, scope=scope)


def _run_toml(plan: McpPlan, remove: bool) -> list[str]:
    before = _read(plan.path)
    after = toml_removed(before, plan.path) if remove else toml_merged(before, plan)
    if after == before:
        return []
    _write_text(plan.path, after)
    return [str(plan.path)]


def _run_json(plan: McpPlan, remove: bool) -> list[str]:
    Change = Callable[[dict[str, Any]], dict[str, Any]]
    changes: list[tuple[Path, Change]] = [
        (plan.path, json_removed if remove else lambda s: json_merged(s, plan))
    ]
    if plan.approval is not None:
        change: Change = (lambda s: disallowed(s, plan)) if remove else (lambda s: allowed(s, plan))
        changes.append((plan.approval, change))
    # Every file is read and changed before any is written: one that is not JSON leaves
    # them all untouched.
    results = [
        (path, before, change(before)) for path, change in changes for before in [load(path)]
    ]
    changed = []
    for path, before, after in results:
        if after != before:
            write(path, after)
            changed.append(str(path))
    return changed


def _report(plan: McpPlan, changed: list[str], *, remove: bool, scope: str) -> str:
    if remove:
        if not changed:
            return f"{plan.path}: no context-providers MCP server to remove\n"
        return "".join(f"{path}: context-providers MCP server removed\n" for path in changed)
    if not changed:
        return f"{plan.path}: MCP server {SERVER_NAME} already set up\n"
    report = "".join(f"{path}: MCP server {SERVER_NAME} added\n" for path in changed)
    if plan.client == "codex" and scope == "project":
        report += (
            "Codex CLI reads .codex/config.toml only in a trusted project (trust it when "
            "codex asks, or run codex with --trust once).\n"
        )
    if plan.client == "claude" and scope == "project":
        report += (
            "Claude Code asks once whether to use the servers of .mcp.json (interactive "
            "sessions); claude -p starts them without asking.\n"
        )
    return report
