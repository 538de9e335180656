"""Helpers for the bridge's tests: real hook commands, fed the JSON each client sends
(clients.md: ``hook_event_name``, ``session_id``, ``cwd``; ``prompt``; ``tool_name`` and
``tool_input``), in an environment of their own (a short runtime directory for the
sockets, a state directory for the log, a short idle time)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.clients import facts, places, wire
from providers.host.trust import TrustStore
from tests.conftest import GIT_ENV, REPO_ROOT

HOOK = REPO_ROOT / "providers" / "clients" / "hook.py"


@dataclass
class HookRun:
    stdout: str
    stderr: str
    code: int
    seconds: float

    @property
    def output(self) -> dict[str, Any]:
        return json.loads(self.stdout) if self.stdout.strip() else {}

    @property
    def context(self) -> str:
        """The additionalContext the client would show the model ("" for none)."""
        return str(self.output.get("hookSpecificOutput", {}).get("additionalContext", ""))


class BridgeEnv:
    """An environment for hook commands, and the background processes they start."""

    def __init__(
        self,
        *,
        idle_s: float = 120,
        wait_s: float = 10,
        start_s: float = 90,
        base_dir: str = "/tmp",
    ) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="br", dir=base_dir))
        self.runtime = self.base / "run"
        self.runtime.mkdir(mode=0o700)
        self.state = self.base / "state"
        self.home = self.base / "home"
        self.home.mkdir()
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "XDG_STATE_HOME": str(self.state),
            "CONTEXT_PROVIDERS_IDLE_S": str(idle_s),
            "CONTEXT_PROVIDERS_HOOK_WAIT_S": str(wait_s),
            "CONTEXT_PROVIDERS_HOOK_START_S": str(start_s),
        }

    def hook(
        self,
        client: str,
        payload: Mapping[str, Any],
        *,
        cwd: Path,
        extra_env: Mapping[str, str] | None = None,
        options: tuple[str, ...] = (),
    ) -> HookRun:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-S", "-E", "-s", str(HOOK), client, *options],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=cwd,
            env={**self.env, **(extra_env or {})},
            timeout=120,
            check=False,
        )
        return HookRun(
            done.stdout.decode(), done.stderr.decode(), done.returncode, time.monotonic() - started
        )

    def for_client(self, *, console_scripts: bool = False) -> dict[str, str]:
        """What a real client run keeps of this environment (the bridge's places and
        bounds; the client gets its own HOME and PATH), with this interpreter's scripts
        first on PATH when ``console_scripts`` (a project's settings name them bare)."""
        env = {k: v for k, v in self.env.items() if k not in ("PATH", "HOME")}
        if console_scripts:
            env["PATH"] = f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        return env

    def trust(self, root: Path) -> None:
        """Trust ``root``'s agent.hcl as ``context-providers trust`` does, in this
        environment's own config (its HOME's ``.config``)."""
        TrustStore(self.home / ".config" / "context-providers" / "trusted.json").trust(root)

    def socket(self, root: Path) -> str:
        return places.socket_path(str(self.runtime / places.APP), str(root.resolve()))

    def log(self) -> str:
        path = self.state / places.APP / "bridge.log"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def status(self, root: Path) -> dict[str, Any]:
        verb, _, body = wire.call(self.socket(root), "status", timeout=5)
        assert verb == "ok"
        return dict(json.loads(body))

    def close(self) -> None:
        """Stop every background process of this environment; remove its files."""
        for pid in daemon_pids(self.base):
            _stop(pid)
        for pid in daemon_pids(self.base):
            _stop(pid, signal.SIGKILL)
        shutil.rmtree(self.base, ignore_errors=True)


def _stop(pid: int, sig: int = signal.SIGTERM) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return
    wait_until(lambda: not _alive(pid), 15)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return False


def daemon_pids(marker: Path | str) -> list[int]:
    """Background processes whose environment or command line names ``marker`` (the
    environment's base directory, or a repository root)."""
    found = []
    needle = os.fsencode(str(marker))
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
            if b"providers.clients.daemon" not in cmdline:
                continue
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if (needle in cmdline or needle in environ) and _alive(int(entry)):
            found.append(int(entry))
    return found


def wait_until(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def make_repo(root: Path, files: Mapping[str, str]) -> Path:
    """A git repository with one commit holding ``files``; its resolved root."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    env = {**GIT_ENV, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-C", str(root), *argv], check=True, env=env)
    return root.resolve()


# -- the JSON each client sends (clients.md, "Hook input") ----------------------------


FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker A1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker C1.\n",
    ".cursor/rules/python.mdc": '---\nglobs: "**/*.py"\n---\nPython marker G1.\n',
    "src/auth/AGENTS.md": "# auth\n\nAuth marker N1.\n",
    "src/auth/login.py": "def login():\n    return None\n",
    "src/auth/tokens.py": "TOKENS = {}\n",
    "src/app.py": "print('app')\n",
}
"""A small repository of every kind of context: a convention file, an always-on rule,
a glob rule, a nested doc, files for them to apply to."""


def session_start(client: str, session: str, cwd: Path, source: str = "startup") -> dict[str, Any]:
    return {
        "hook_event_name": facts.FACTS[client].events.session_start,
        "session_id": session,
        "cwd": str(cwd),
        "transcript_path": str(cwd / ".transcript.jsonl"),
        "source": source,
    }


def prompt(client: str, session: str, cwd: Path, text: str = "go on") -> dict[str, Any]:
    return {
        "hook_event_name": facts.FACTS[client].events.per_prompt,
        "session_id": session,
        "cwd": str(cwd),
        "transcript_path": str(cwd / ".transcript.jsonl"),
        "prompt": text,
    }


def read_file(client: str, session: str, cwd: Path, rel: str) -> dict[str, Any]:
    """The after-tool input of a read of ``rel``, as each client's file tool says it."""
    tool: dict[str, Any]
    if client == "claude":
        tool = {"tool_name": "Read", "tool_input": {"file_path": str(cwd / rel)}}
    elif client == "gemini":
        tool = {"tool_name": "read_file", "tool_input": {"file_path": rel}}
    else:
        tool = {"tool_name": "Bash", "tool_input": {"command": f"sed -n '1,80p' {rel}"}}
    return {
        "hook_event_name": facts.FACTS[client].events.after_tool,
        "session_id": session,
        "cwd": str(cwd),
        "transcript_path": str(cwd / ".transcript.jsonl"),
        "tool_response": {"ok": True},
        **tool,
    }


def session_end(session: str, cwd: Path) -> dict[str, Any]:
    return {"hook_event_name": "SessionEnd", "session_id": session, "cwd": str(cwd)}
