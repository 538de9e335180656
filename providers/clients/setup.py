"""``context-providers setup CLIENT``: register the hook command in a client's settings.

Merges, never overwrites: the file is edited as text (``json_text``), so the user's
other hooks, servers and keys, their comments (Gemini CLI's settings may hold some),
indentation and key order stay byte for byte; it is written atomically, keeping its
mode, owner and symlink, under a lock (``settings_file``). Idempotent: our entry is
recognised by its command (it runs the ``context-providers-hook`` launcher, or, written
before it, ``providers/clients/hook.py``), never added twice.
``--remove`` takes out exactly our entries, and the containers that only held them:
setup then ``--remove`` gives back the file byte for byte (and deletes a file, and
directories, that setup created). ``--print`` shows the snippet instead.

Events (``facts``): each client's session start, per-prompt and after-tool events, and
``SessionEnd`` where the client has one (Claude Code, Gemini CLI), which lets the
background process stop when the last session ends. Codex CLI has none: its process
stops when idle.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.clients import facts, hook, json_text, settings_file, settings_snippets

HOOK_TIMEOUT_S = 15.0
"""What the client allows our hook (it keeps its own, shorter bounds: see hook.py)."""
SESSION_END = {"claude": "SessionEnd", "gemini": "SessionEnd"}
"""The clients whose session end a hook sees."""
LAUNCHER = "context-providers-hook"
"""The hook command's launcher (``bin/context-providers-hook``, installed beside the
``context-providers`` console script): a plain script on the interpreter of the
environment it is installed in, which survives a Python upgrade, a venv rebuild and
``pipx reinstall`` (its path stays; only its first line changes)."""
MARK = "providers/clients/hook.py"
"""What the hook commands written before the launcher ran (recognised, replaced, removed)."""
MARKS = (LAUNCHER, MARK)
PARTS = hook.OPTIONS
"""The parts ``--only`` chooses from, each the hook option of its budget."""


class SetupError(ValueError):
    """A settings file we must not touch (not what its client reads, not an object, not
    writable without damage)."""


@dataclass(frozen=True)
class Plan:
    client: str
    path: Path
    command: str
    events: tuple[str, ...]


GUARD = 'command -v "$0" >/dev/null 2>&1 || exit 0; "$0" "$@" 2>/dev/null; exit 0'
"""The shell words around the hook: the clients run a hook command through a shell and
treat a failing one as a reason to stop (Claude Code blocks the prompt on exit 127;
Gemini CLI and Codex CLI send no request), so when the launcher is not there (not
installed on this machine, ``pip uninstall`` without ``setup --remove``) or its
interpreter is gone (a venv rebuilt on another Python) the command exits 0 and prints
nothing; and whatever the hook does, it exits 0. Run by ``/bin/sh`` whatever the user's
shell is: only the ``/bin/sh -c '...'`` words meet it."""
OLD_GUARD = '[ -x "$0" ] && [ -f "$4" ] || exit 0; "$0" "$@" 2>/dev/null; exit 0'
"""The guard of the commands written before the launcher (``PYTHON -S -E -s hook.py``)."""


def installed_launcher(name: str) -> Path:
    """``name`` as installed beside this interpreter (``VENV/bin/NAME``; unresolved: a
    venv's ``python`` is a link into the base Python, its scripts are not)."""
    return Path(sys.executable).parent / name


def launcher(name: str, scope: str) -> str:
    """How settings name our launcher ``name`` (``context-providers-hook``, or
    ``context-providers`` for the MCP server): for ``--scope project`` by its bare name,
    found on each user's PATH (nothing of this machine goes into a file a team commits);
    for ``--scope user`` the path PATH finds it at when that is ours (``pipx``'s
    ``~/.local/bin/NAME``, which a reinstall keeps), else its path beside this interpreter
    (a venv's ``bin``, which a rebuild keeps)."""
    if scope == "project":
        return name
    ours = installed_launcher(name)
    found = shutil.which(name)
    if found is not None and os.path.realpath(found) == os.path.realpath(ours):
        return found
    return str(ours)


def on_path(name: str) -> bool:
    """Whether ``name`` on PATH is ours (the one beside this interpreter)."""
    found = shutil.which(name)
    ours = installed_launcher(name)
    return found is not None and os.path.realpath(found) == os.path.realpath(ours)


def hook_command(
    client: str, options: Sequence[str] = (), *, scope: str = "user", command: str | None = None
) -> str:
    """The command line: ``/bin/sh`` running :data:`GUARD` around the launcher
    (``command``, else :func:`launcher`'s choice for ``scope``)."""
    word = command if command is not None else launcher(LAUNCHER, scope)
    return shlex.join(["/bin/sh", "-c", GUARD, word, client, *options])


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
    """Our hook: it runs the launcher, or (written before it) ``hook.py``."""
    if not isinstance(entry, dict):
        return False
    command = str(entry.get("command", ""))
    return any(mark in command for mark in MARKS)


def snippet(plan: Plan) -> dict[str, Any]:
    return settings_snippets.hook_settings(
        plan.client, [(event, plan.command, HOOK_TIMEOUT_S) for event in plan.events]
    )


def comments_in(client: str) -> bool:
    """Whether ``client`` reads its JSON settings with comments (setup accepts exactly
    what the client accepts, and keeps the comments)."""
    return facts.FACTS[client].settings_comments


def parsed(text: str, path: Path, *, comments: bool) -> json_text.Node:
    """The settings object of ``text``; :class:`SetupError` when the client could not read
    it, or it is not an object."""
    try:
        root = json_text.parse(text, comments=comments)
    except json_text.JsonTextError as error:
        raise SetupError(f"{path}: not valid JSON ({error}); left untouched") from error
    if root.kind != "object":
        raise SetupError(f"{path}: not a JSON object; left untouched")
    return root


def starting(text: str | None) -> str:
    """What an edit starts from: the file's text, or for no file (or a blank one) the
    empty object a new file grows from (written as the clients write theirs)."""
    return "{}\n" if text is None or not text.strip() else text


def load(path: Path, client: str | None = None) -> dict[str, Any]:
    """The settings in ``path`` ({} when there is none), read as ``client`` reads them
    (with comments when no client is named)."""
    comments = comments_in(client) if client is not None else True
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as error:
        raise SetupError(f"{path}: unreadable ({error}); left untouched") from error
    value: dict[str, Any] = parsed(starting(text), path, comments=comments).value()
    return value


def edit_json(change: Callable[[str], str], path: Path, *, comments: bool) -> settings_file.Change:
    """A JSON settings file's change for :func:`settings_file.update`: ``change`` edits
    the text (checked first), and the file holds nothing when no member is left."""

    def apply(text: str | None) -> settings_file.Edit | None:
        before = starting(text)
        parsed(before, path, comments=comments)
        after = change(before)
        if after == before:
            return None
        empty = not parsed(after, path, comments=comments).members
        return settings_file.Edit(after, empty)

    return apply


def update(changes: Sequence[tuple[Path, settings_file.Change]]) -> list[Path]:
    """:func:`settings_file.update`, its refusals as :class:`SetupError`."""
    try:
        return settings_file.update(changes)
    except (settings_file.SettingsFileError, KeyError) as error:
        raise SetupError(str(error)) from error


def _last_members(node: json_text.Node) -> list[json_text.Member]:
    """An object's members as the client sees them: of a repeated key, the last."""
    last = {m.key: m for m in node.members}
    return [m for m in node.members if last[m.key] is m]


def _our_entry(root: json_text.Node) -> tuple[json_text.Key, ...] | None:
    """Where the first of our hooks is, as the outermost thing that holds only ours
    (the hook, its group, its event, or ``hooks`` itself); None when there is none."""
    hooks = root.get("hooks")
    if hooks is None or hooks.kind != "object":
        return None
    events = _last_members(hooks)
    for event in events:
        groups = event.node
        if groups.kind != "array":
            continue
        for index, group in enumerate(groups.items):
            inner = group.get("hooks") if group.kind == "object" else None
            if inner is None or inner.kind != "array":
                continue
            ours = [i for i, h in enumerate(inner.items) if is_ours(h.value())]
            if not ours:
                continue
            if len(ours) < len(inner.items):
                return ("hooks", event.key, index, "hooks", ours[0])
            if len(groups.items) > 1:
                return ("hooks", event.key, index)
            if len(events) > 1 or len(hooks.members) > 1:
                return ("hooks", event.key)
            return ("hooks",)
    return None


def removed(text: str, path: Path, *, comments: bool) -> str:
    """``text`` without our hooks, and without what held only them."""
    while (where := _our_entry(parsed(text, path, comments=comments))) is not None:
        shorter = json_text.delete(text, where, comments=comments)
        if len(shorter) >= len(text):  # never loop on an entry that will not go
            raise SetupError(
                f"{path}: our hook at {list(where)} cannot be taken out; left untouched"
            )
        text = shorter
    return text


def merged(text: str, plan: Plan, *, comments: bool) -> str:
    """``text`` with our hook at each planned event (and at no other), each last."""
    text = removed(text, plan.path, comments=comments)
    wanted: dict[str, list[Any]] = snippet(plan)["hooks"]
    hooks = parsed(text, plan.path, comments=comments).get("hooks")
    if hooks is None:
        return json_text.append(text, (), wanted, key="hooks", comments=comments)
    if hooks.kind != "object":
        raise SetupError(f'{plan.path}: "hooks" is not an object; left untouched')
    for event, groups in wanted.items():
        current = parsed(text, plan.path, comments=comments).get("hooks")
        existing = current.get(event) if current is not None else None
        if existing is None:
            text = json_text.append(text, ("hooks",), groups, key=event, comments=comments)
            continue
        if existing.kind != "array":
            raise SetupError(f'{plan.path}: hooks "{event}" is not a list; left untouched')
        for group in groups:
            text = json_text.append(text, ("hooks", event), group, comments=comments)
    return text


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
    plan = Plan(client, path, hook_command(client, options, scope=scope), events_for(client, parts))
    if show:
        return f"# {path}\n" + json.dumps(snippet(plan), indent=2) + "\n"
    comments = comments_in(client)
    if remove:
        change = edit_json(lambda t: removed(t, path, comments=comments), path, comments=comments)
        if not update([(path, change)]):
            return f"{path}: no context-providers hooks to remove\n"
        return f"{path}: context-providers hooks removed\n"
    change = edit_json(lambda t: merged(t, plan, comments=comments), path, comments=comments)
    if not update([(path, change)]):
        report = f"{path}: already set up ({', '.join(plan.events)})\n"
    else:
        report = f"{path}: context-providers hooks added at {', '.join(plan.events)}\n"
    notes = [trust_note(client, scope, path), path_note(LAUNCHER, scope)]
    return report + "".join(note + "\n" for note in notes if note)


def path_note(name: str, scope: str) -> str:
    """For ``--scope project``: the settings name ``name`` as found on PATH; say so, and
    whether it is found here. For ``--scope user``, when ``name`` is not on PATH: the
    settings name it inside this environment, which may not last (``uvx`` runs from a
    cache)."""
    if scope != "project":
        if on_path(name):
            return ""
        return (
            f"note: {name} is not on your PATH: the settings name it at "
            f"{installed_launcher(name)}; if that environment is temporary (uvx), install "
            "context-providers (pipx install, uv tool install) and run setup again."
        )
    where = "it is on your PATH" if on_path(name) else "it is NOT on your PATH here"
    return (
        f"note: the project's settings run {name} as found on PATH ({where}): each "
        "teammate who installs context-providers (pipx install, uv tool install) gets it; "
        "for one who has not, it does nothing and fails nothing. Commit the file."
    )
