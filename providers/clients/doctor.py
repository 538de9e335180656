"""``context-providers doctor``: what the bridge is doing, and what went wrong lately.

Four parts: the background processes running for this user (each asked for its
status on its socket), the settings in force for each client (project and user files:
our hooks in them, and where our MCP server is registered), whether the user trusts the
repository's ``agent.hcl`` (:mod:`providers.host.trust`), and the last problems from
the log (hooks and MCP servers that gave up, providers that failed). Reads only; never
starts anything.
"""

from __future__ import annotations

import glob
import json
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from providers.clients import facts, layouts, mcp_setup, places, wire
from providers.clients.mcp_session import SERVER_NAME
from providers.clients.setup import SetupError, is_ours, load, settings_path
from providers.host.trust import TrustStore

PROBLEM_WORDS = (" WARNING ", " ERROR ", " hook[", " mcp[")
"""Log lines worth showing: warnings, errors, and every line a hook or an MCP server
wrote (they write only when they gave up)."""


def running() -> Iterator[dict[str, Any]]:
    """The status of each background process that answers on its socket."""
    try:
        directory = places.runtime_dir(create=False)
    except OSError:
        return
    for path in sorted(glob.glob(os.path.join(directory, "*.sock"))):
        try:
            verb, _, body = wire.call(path, "status", timeout=1.0)
        except OSError:
            yield {"socket": path, "error": "does not answer (a process that was killed?)"}
            continue
        if verb == "ok":
            yield {"socket": path, **json.loads(body)}


def hooks_in(path: Path, client: str) -> list[str]:
    """Events at which ``path`` runs our hook."""
    try:
        settings = load(path, client)
    except SetupError as error:
        return [f"(unreadable: {error})"]
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    return [
        event
        for event, groups in hooks.items()
        if isinstance(groups, list)
        and any(
            isinstance(g, dict) and any(is_ours(h) for h in g.get("hooks") or []) for g in groups
        )
    ]


def mcp_registered(client: str, scope: str, repo: Path) -> Path | None:
    """The file in which our MCP server is registered for ``client`` at ``scope``."""
    plan = mcp_setup.plan_for(client, scope, repo)
    try:
        if client == "codex":
            text = plan.path.read_text(encoding="utf-8") if plan.path.exists() else ""
            servers = tomllib.loads(text).get("mcp_servers")
        else:
            servers = load(plan.path, client).get("mcpServers")
    except (OSError, ValueError):
        return None
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return plan.path if mcp_setup.is_ours(entry) else None


def our_plugins(client: str, repo: Path) -> dict[str, str]:
    """Our plugins (extensions) the client has installed and enabled: name to where that
    is recorded (``layouts``: ``context-providers`` the hooks, ``-mcp`` the server)."""
    found: dict[str, str] = {}
    names = (layouts.NAME, layouts.MCP_NAME)
    if client == "claude":
        for scope in ("project", "user"):
            path = settings_path(client, scope, repo)
            try:
                enabled = load(path, client).get("enabledPlugins") if path.exists() else None
            except SetupError:
                continue
            for name in names:
                key = f"{name}@{layouts.MARKETPLACE}"
                if isinstance(enabled, dict) and enabled.get(key) is True:
                    found.setdefault(name, f"{path}: {key}")
    elif client == "gemini":
        for name in names:
            manifest = Path.home() / ".gemini" / "extensions" / name / "gemini-extension.json"
            if manifest.is_file():
                found[name] = str(manifest.parent)
    else:
        config = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml"
        try:
            table = tomllib.loads(config.read_text(encoding="utf-8")).get("plugins")
        except (OSError, ValueError):
            table = None
        for name in names:
            key = f"{name}@{layouts.MARKETPLACE}"
            entry = table.get(key) if isinstance(table, dict) else None
            if isinstance(entry, dict) and entry.get("enabled", True) is not False:
                found[name] = f"{config}: {key}"
    return found


def twice(repo: Path) -> list[str]:
    """A warning for each client that has both our hooks and our MCP server registered
    (in either scope, or as our plugins): the convention files would reach its model
    twice."""
    warnings = []
    for client in facts.FACTS:
        installed = our_plugins(client, repo)
        hooks = [
            str(path)
            for scope in ("project", "user")
            if (path := settings_path(client, scope, repo)).exists() and hooks_in(path, client)
        ]
        hooks += [installed[layouts.NAME]] if layouts.NAME in installed else []
        servers = [
            str(server)
            for scope in ("project", "user")
            if (server := mcp_registered(client, scope, repo)) is not None
        ]
        servers += [installed[layouts.MCP_NAME]] if layouts.MCP_NAME in installed else []
        if hooks and servers:
            warnings.append(
                f"{client} has both the context-providers hooks ({hooks[0]}) and its MCP "
                f"server ({servers[0]}): the convention files reach the model twice; keep "
                f"one (setup {client} --remove, or setup {client} --mcp --remove)"
            )
    return warnings


def outside_git(repo: Path) -> str:
    """A warning when ``repo`` is in no git repository (the hooks and the MCP server add
    nothing there), else ''."""
    if places.repository_root(str(repo)) is not None:
        return ""
    return f"{repo} is in no git repository: the hooks and the MCP server add nothing there"


def problems(limit: int) -> list[str]:
    try:
        lines = Path(places.log_path()).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in lines.splitlines() if any(w in line for w in PROBLEM_WORDS)][-limit:]


def socket_place() -> list[str]:
    """Where the sockets are, and why each place before it was passed over."""
    try:
        directory, passed_over = places.find_runtime_dir(create=False)
    except OSError as error:
        return ["Socket directory: none usable", f"  ! {error}"]
    return [f"Socket directory: {directory}", *(f"  ! passed over: {p}" for p in passed_over)]


def report(repo: Path, limit: int = 20) -> str:
    out = [*socket_place(), ""]
    out.append("Background processes:")
    found = list(running())
    for status in found:
        if "error" in status:
            out.append(f"  {status['socket']}: {status['error']}")
            continue
        plugins = status.get("plugin_processes") or {}
        processes = ", ".join(f"{name} (pid {pid})" for name, pid in plugins.items())
        out.append(
            f"  {status['root']}: pid {status['pid']}, up {status['uptime_s']} s, idle "
            f"{status['idle_s']} of {status['idle_limit_s']} s, {status['sessions']} "
            f"session(s), providers: {', '.join(map(str, status['providers'])) or 'none'}; "
            f"plugin processes: {processes or 'none'}"
        )
        for warning in status.get("warnings") or []:
            out.append(f"    ! {warning}")
    if not found:
        out.append("  (none)")
    out.append("")
    out.append(f"Settings in force (for {repo}):")
    if outside_git(repo):
        out.append(f"  ! {outside_git(repo)}")
    for client in facts.FACTS:
        for scope in ("project", "user"):
            path = settings_path(client, scope, repo)
            events = hooks_in(path, client) if path.exists() else []
            state = ", ".join(events) if events else "no context-providers hooks"
            exists = "" if path.exists() else " (no such file)"
            out.append(f"  {client:<6} {scope:<7} {path}{exists}: {state}")
            server = mcp_registered(client, scope, repo)
            if server is not None:
                out.append(f"  {client:<6} {scope:<7} {server}: MCP server {SERVER_NAME}")
        for name, where in our_plugins(client, repo).items():
            out.append(f"  {client:<6} plugin  {where} ({name})")
    out.extend(f"  ! {warning}" for warning in twice(repo))
    out.append("")
    verdict = TrustStore().verdict(Path(places.repository_root(str(repo)) or repo))
    out.append(f"Trust (for {verdict.root}): {verdict.state.value}")
    if verdict.note():
        out.append(f"  {verdict.note()}")
    out.append("")
    out.append(f"Last problems ({places.log_path()}):")
    lines = problems(limit)
    out.extend(f"  {line}" for line in lines)
    if not lines:
        out.append("  (none)")
    return "\n".join(out) + "\n"
