"""``context-providers setup CLIENT``: register the hook command in a client's settings.

Merges, never overwrites: the user's other hooks, servers and keys stay as they are,
byte for byte in meaning (the file is rewritten as indented JSON). Idempotent: our
entry is recognised by its command (it runs ``providers/clients/hook.py``) and
replaced in place, never added twice. ``--remove`` takes out exactly our entries, and
the containers that only held them. ``--print`` shows the snippet instead.

Events (``facts``): each client's session start, per-prompt and after-tool events, and
``SessionEnd`` where the client has one (Claude Code, Gemini CLI), which lets the
background process stop when the last session ends. Codex CLI has none: its process
stops when idle.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.clients import facts
from providers.clients import hook as hook_module

HOOK_TIMEOUT_S = 15.0
"""What the client allows our hook (it keeps its own, shorter bounds: see hook.py)."""
SESSION_END = {"claude": "SessionEnd", "gemini": "SessionEnd"}
"""The clients whose session end a hook sees."""
MARK = "providers/clients/hook.py"
PARTS = ("start", "prompt", "tool")


class SetupError(ValueError):
    """A settings file we must not touch (not JSON, not an object)."""


@dataclass(frozen=True)
class Plan:
    client: str
    path: Path
    command: str
    events: tuple[str, ...]


GUARD = '[ -x "$0" ] && [ -f "$4" ] || exit 0; "$0" "$@" 2>/dev/null; exit 0'
"""The shell words around the hook: the clients run a hook command through a shell and
treat a failing one as a reason to stop (Claude Code blocks the prompt on exit 127;
Gemini CLI and Codex CLI send no request), so when the interpreter or the hook file is
gone (``pip uninstall`` without ``setup --remove``, a venv rebuilt on another Python) the
command exits 0 and prints nothing; and whatever the hook does, it exits 0. Run by
``/bin/sh`` whatever the user's shell is: only the ``/bin/sh -c '...'`` words meet it."""


def hook_command(client: str, options: Sequence[str] = ()) -> str:
    """The command line: ``/bin/sh`` running :data:`GUARD` around this interpreter,
    without ``site`` (the hook needs none), on the hook file itself."""
    hook_file = os.path.realpath(hook_module.__file__)
    words = ["/bin/sh", "-c", GUARD, sys.executable, "-S", "-E", "-s", hook_file, client]
    return shlex.join([*words, *options])


def events_for(client: str, parts: Sequence[str] = PARTS) -> tuple[str, ...]:
    info = facts.FACTS[client].events
    by_part = {"start": info.session_start, "prompt": info.per_prompt, "tool": info.after_tool}
    events = [by_part[p] for p in PARTS if p in parts]
    if client in SESSION_END:
        events.append(SESSION_END[client])
    return tuple(events)


def settings_path(client: str, scope: str, repo: Path) -> Path:
    files = facts.FACTS[client].hook_files
    if scope == "project":
        return repo / files.project
    if files.user_root == "$CODEX_HOME":
        base = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    else:
        base = Path.home()
    return base / files.user


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and MARK in str(entry.get("command", ""))


def snippet(plan: Plan) -> dict[str, Any]:
    return facts.hook_settings(
        plan.client, [(event, plan.command, HOOK_TIMEOUT_S) for event in plan.events]
    )


def load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError as error:
        raise SetupError(f"{path}: not valid JSON ({error}); left untouched") from error
    if not isinstance(data, dict):
        raise SetupError(f"{path}: not a JSON object; left untouched")
    return data


def _hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError(f'{path}: "hooks" is not an object; left untouched')
    return hooks


def merged(settings: dict[str, Any], plan: Plan) -> dict[str, Any]:
    """``settings`` with our hook at each planned event (and at no other)."""
    result = removed(json.loads(json.dumps(settings)), plan.path)
    hooks = _hooks_of(result, plan.path)
    for event, groups in snippet(plan)["hooks"].items():
        existing = hooks.setdefault(event, [])
        if not isinstance(existing, list):
            raise SetupError(f'{plan.path}: hooks "{event}" is not a list; left untouched')
        existing.extend(groups)
    return result


def removed(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    """``settings`` without our entries, and without what held only them."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                before = group["hooks"]
                after = [h for h in before if not is_ours(h)]
                if len(after) != len(before):
                    if not after:
                        continue
                    group = {**group, "hooks": after}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    return settings


def write(path: Path, settings: dict[str, Any]) -> None:
    if not settings:
        if path.exists():
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)


def trust_note(client: str, scope: str, path: Path) -> str:
    if client != "codex":
        return ""
    where = "this project (trusted)" if scope == "project" else "every project"
    return (
        f"Codex CLI runs hooks only once you trust them: start `codex` in {where}, type "
        "/hooks and approve the context-providers hooks (or run codex with "
        f"--dangerously-bypass-hook-trust). Hooks file: {path}"
    )


def run(
    client: str,
    *,
    scope: str,
    repo: Path,
    remove: bool = False,
    show: bool = False,
    parts: Sequence[str] = PARTS,
    options: Sequence[str] = (),
) -> str:
    """Do what was asked; the report for the user."""
    path = settings_path(client, scope, repo)
    plan = Plan(client, path, hook_command(client, options), events_for(client, parts))
    if show:
        return f"# {path}\n" + json.dumps(snippet(plan), indent=2) + "\n"
    current = load(path)
    if remove:
        after = removed(json.loads(json.dumps(current)), path)
        if after == current:
            return f"{path}: no context-providers hooks to remove\n"
        write(path, after)
        return f"{path}: context-providers hooks removed\n"
    after = merged(current, plan)
    if after == current:
        report = f"{path}: already set up ({', '.join(plan.events)})\n"
    else:
        write(path, after)
        report = f"{path}: context-providers hooks added at {', '.join(plan.events)}\n"
    note = trust_note(client, scope, path)
    return report + (note + "\n" if note else "")
