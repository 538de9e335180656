"""``context-providers setup CLIENT --mcp``: register the MCP server in a client's settings.

The same rules as the hooks' setup (:mod:`providers.clients.setup`): merged into what is
there, idempotent (our entry, the server named :data:`~sections.SERVER_NAME` that runs
``context-providers mcp``, or ``-m providers mcp`` as written before, is replaced in
place), ``--remove`` takes out exactly what it
added, ``--print`` shows it. Per client (``facts.mcp``):

- Claude Code: ``mcpServers`` in ``~/.claude.json`` (what ``claude mcp add --scope user``
  writes) or the repository's ``.mcp.json``; and the rule that lets ``-p`` call its tools,
  ``"permissions": {"allow": ["mcp__context_providers"]}``, in ``~/.claude/settings.json``
  or the repository's ``.claude/settings.local.json``.
- Gemini CLI: ``mcpServers`` in its settings, with ``"trust": true``.
- Codex CLI: a ``[mcp_servers.context_providers]`` table in ``$CODEX_HOME/config.toml``
  (or ``.codex/config.toml`` in a trusted project) with ``required = true``, its tools
  approved, and ``env_vars`` passing on the variables that place the background process
  (Codex gives servers only a few of its own); edited as text (``toml_text``: the user's
  comments and tables stay where they are), the result checked with ``tomllib``.

Every file is edited as text and written as the hooks' setup writes it: comments,
indentation, key order, mode, owner and symlinks kept; setup then ``--remove`` gives back
each file byte for byte.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.clients import (
    facts,
    hook,
    json_text,
    places,
    settings_file,
    settings_snippets,
    toml_text,
)
from providers.clients.mcp_session import ENV_START, ENV_WAIT, SERVER_NAME
from providers.clients.setup import (
    SetupError,
    comments_in,
    edit_json,
    launcher,
    parsed,
    path_note,
    update,
)

ENV_PASSED = (places.ENV_RUNTIME, places.ENV_STATE, hook.ENV_START, ENV_START, ENV_WAIT)
"""What Codex must pass on for the server to find the hooks' background process."""
CODEX_STARTUP_S = 40
"""Codex's wait for a required server: more than the server's own for its instructions
(sections.INSTRUCTIONS_WAIT_S; Codex's default is shorter)."""
MODULE_ARGS = ("-m", "providers", "mcp")
SAFE_PATH = "-P"
"""Python's safe-path flag: ``-m`` would put the working directory (the client starts the
server in the repository) first on ``sys.path``, so a ``providers.py``, ``providers/``
or ``argparse.py`` there would run as the user. The entries written before the console
script ran ``PYTHON -P -m providers mcp``; :func:`is_ours` still knows them."""
SCRIPT = "context-providers"
"""The console script the server runs as (``context-providers mcp``): its ``sys.path``
starts at the script's own directory, never the working directory, and its path stays
through a Python upgrade, a venv rebuild or ``pipx reinstall``."""


@dataclass(frozen=True)
class McpPlan:
    client: str
    path: Path
    """Where the server is registered."""
    approval: Path | None
    """Where the rule allowing its tools goes (Claude), else None."""
    command: str
    args: tuple[str, ...]
    required: bool = True
    """Codex: whether a session waits for the server, and fails without it (False for
    ``--scope project``: a teammate without the tool must not get sessions that fail)."""


def server_args(client: str, options: Sequence[str] = ()) -> tuple[str, ...]:
    return ("mcp", "--client", client, *options)


def plan_for(client: str, scope: str, repo: Path, options: Sequence[str] = ()) -> McpPlan:
    info = facts.FACTS[client].mcp

    def place(files: facts.SettingsFiles) -> Path:
        if scope == "project":
            return repo / files.project
        if files.user_root == "$CODEX_HOME":
            return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / files.user
        return Path.home() / files.user

    approval = place(info.approval_files) if info.approval_files else None
    command = launcher(SCRIPT, scope)
    args = server_args(client, options)
    required = scope != "project"
    return McpPlan(client, place(info.server_files), approval, command, args, required)


def is_ours(entry: Any) -> bool:
    """Our server's entry: it runs ``context-providers mcp``, or (written before the
    console script) ``PYTHON [-P] -m providers mcp``; both are replaced and removed."""
    args = entry.get("args") if isinstance(entry, dict) else None
    if not isinstance(args, list):
        return False
    command = str(entry.get("command", "")) if isinstance(entry, dict) else ""
    if os.path.basename(command) == SCRIPT and args[:1] == ["mcp"]:
        return True
    words = args[1:] if args[:1] == [SAFE_PATH] else args
    return tuple(words[: len(MODULE_ARGS)]) == MODULE_ARGS


RULE = f"mcp__{SERVER_NAME}"
"""Claude Code's permission rule for every tool of the server."""


# -- JSON settings (Claude Code, Gemini CLI) ------------------------------------------


def entry(plan: McpPlan) -> dict[str, Any]:
    servers = settings_snippets.mcp_json(plan.client, [(SERVER_NAME, plan.command, plan.args)])
    value: dict[str, Any] = servers["mcpServers"][SERVER_NAME]
    return value


def _object(root: json_text.Node, key: str, path: Path) -> json_text.Node | None:
    node = root.get(key)
    if node is not None and node.kind != "object":
        raise SetupError(f'{path}: "{key}" is not an object; left untouched')
    return node


def json_merged(text: str, plan: McpPlan, *, comments: bool) -> str:
    """``text`` with our server's entry (replaced where it stands when it differs)."""
    root = parsed(text, plan.path, comments=comments)
    servers = _object(root, "mcpServers", plan.path)
    wanted = entry(plan)
    if servers is None:
        return json_text.append(
            text, (), {SERVER_NAME: wanted}, key="mcpServers", comments=comments
        )
    current = servers.get(SERVER_NAME)
    if current is None:
        return json_text.append(text, ("mcpServers",), wanted, key=SERVER_NAME, comments=comments)
    if not is_ours(current.value()):
        raise SetupError(
            f"{plan.path}: a server named {SERVER_NAME} that is not ours; left untouched"
        )
    if current.value() == wanted:
        return text
    return json_text.replace(text, ("mcpServers", SERVER_NAME), wanted, comments=comments)


def json_removed(text: str, path: Path, *, comments: bool) -> str:
    """``text`` without our server's entry (nor ``mcpServers`` when it held only that)."""
    servers = parsed(text, path, comments=comments).get("mcpServers")
    current = servers.get(SERVER_NAME) if servers is not None else None
    if servers is None or current is None or not is_ours(current.value()):
        return text
    if all(m.key == SERVER_NAME for m in servers.members):
        return json_text.delete(text, ("mcpServers",), comments=comments)
    return json_text.delete(text, ("mcpServers", SERVER_NAME), comments=comments)


def _allow_list(root: json_text.Node, path: Path) -> json_text.Node | None:
    permissions = root.get("permissions")
    allow = permissions.get("allow") if permissions is not None else None
    if (permissions is not None and permissions.kind != "object") or (
        allow is not None and allow.kind != "array"
    ):
        raise SetupError(f'{path}: "permissions.allow" is not a list; left untouched')
    return allow


def allowed(text: str, path: Path, *, comments: bool) -> str:
    """``text`` with Claude Code's rule allowing our server's tools."""
    root = parsed(text, path, comments=comments)
    allow = _allow_list(root, path)
    if root.get("permissions") is None:
        return json_text.append(text, (), {"allow": [RULE]}, key="permissions", comments=comments)
    if allow is None:
        return json_text.append(text, ("permissions",), [RULE], key="allow", comments=comments)
    if RULE in allow.value():
        return text
    return json_text.append(text, ("permissions", "allow"), RULE, comments=comments)


def disallowed(text: str, path: Path, *, comments: bool) -> str:
    """``text`` without that rule (nor what held only it)."""
    root = parsed(text, path, comments=comments)
    permissions = root.get("permissions")
    allow = permissions.get("allow") if permissions is not None else None
    if permissions is None or permissions.kind != "object" or allow is None:
        return text
    rules = allow.value()
    if not isinstance(rules, list) or RULE not in rules:
        return text
    if len(rules) > 1:
        where: tuple[json_text.Key, ...] = ("permissions", "allow", rules.index(RULE))
    elif any(m.key != "allow" for m in permissions.members):
        where = ("permissions", "allow")
    else:
        where = ("permissions",)
    return json_text.delete(text, where, comments=comments)


# -- config.toml (Codex CLI) -------------------------------------------------------------

HEADER = f"[mcp_servers.{SERVER_NAME}]"


def toml_block(plan: McpPlan) -> str:
    block = settings_snippets.codex_mcp_toml(
        [(SERVER_NAME, plan.command, plan.args)],
        env_vars=ENV_PASSED,
        startup_timeout_s=CODEX_STARTUP_S,
    )
    return block if plan.required else block.replace("required = true", "required = false")


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


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without our server (nor an ``mcp_servers`` our table alone made)."""
    result = dict(data)
    servers = result.get("mcp_servers")
    if isinstance(servers, dict):
        servers = {k: v for k, v in servers.items() if k != SERVER_NAME}
        if servers:
            result["mcp_servers"] = servers
        else:
            del result["mcp_servers"]
    return result


def _toml_edited(before: str, after: str, path: Path, ours: dict[str, Any] | None) -> str:
    """``after``, checked: it reads as ``before`` with our server as ``ours`` (None: none),
    and nothing else changed."""
    expected = _without_ours(_toml_checked(before, path))
    try:
        data: dict[str, Any] | None = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        data = None
    servers = data.get("mcp_servers") if data is not None else None
    found = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    if data is None or _without_ours(data) != expected or found != ours:
        raise SetupError(
            f"{path}: {SERVER_NAME} is written in a form setup does not edit; left untouched"
        )
    return after


def toml_merged(text: str, plan: McpPlan) -> str:
    """``text`` with our table (replaced where it stands, else appended)."""
    _toml_checked(text, plan.path)
    block = toml_block(plan)
    try:
        after = toml_text.put(text, HEADER, block)
    except toml_text.TomlTextError as error:
        raise SetupError(f"{plan.path}: {error}; left untouched") from error
    ours: dict[str, Any] = tomllib.loads(block)["mcp_servers"][SERVER_NAME]
    return _toml_edited(text, after, plan.path, ours)


def toml_removed(text: str, path: Path) -> str:
    """``text`` without our table (and the separator setup put before it)."""
    _toml_checked(text, path)
    try:
        after = toml_text.drop(text, HEADER)
    except toml_text.TomlTextError as error:
        raise SetupError(f"{path}: {error}; left untouched") from error
    return _toml_edited(text, after, path, None)


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
    def change(text: str | None) -> settings_file.Edit | None:
        before = text or ""
        after = toml_removed(before, plan.path) if remove else toml_merged(before, plan)
        if after == before:
            return None
        return settings_file.Edit(after, empty=not after.strip())

    return [str(p) for p in update([(plan.path, change)])]


def _run_json(plan: McpPlan, remove: bool) -> list[str]:
    comments = comments_in(plan.client)

    def server(text: str) -> str:
        if remove:
            return json_removed(text, plan.path, comments=comments)
        return json_merged(text, plan, comments=comments)

    changes = [(plan.path, edit_json(server, plan.path, comments=comments))]
    if plan.approval is not None:
        approval = plan.approval

        def rule(text: str) -> str:
            if remove:
                return disallowed(text, approval, comments=comments)
            return allowed(text, approval, comments=comments)

        changes.append((approval, edit_json(rule, approval, comments=comments)))
    return [str(p) for p in update(changes)]


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
            "codex asks, or run codex with --trust once). The server is not required there "
            "(required = false: a session of a teammate without context-providers must not "
            "fail), so codex exec may send its first request before the server is up.\n"
        )
    note = path_note(SCRIPT, scope)
    if note:
        report += note + "\n"
    if plan.client == "claude" and scope == "project":
        report += (
            "Claude Code asks once whether to use the servers of .mcp.json (interactive "
            "sessions); claude -p starts them without asking.\n"
        )
    return report
