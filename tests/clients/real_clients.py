"""Drive the real agent clients one-shot, offline, against the loopback stub model.

``run_client("claude" | "gemini" | "codex", repo, prompt, ...)`` starts a
:class:`~tests.clients.stub_model.StubModel`, writes the client's own settings into a
fresh temporary HOME (and CODEX_HOME) so nothing of the machine's user leaks in, runs
``claude -p`` / ``gemini -p`` / ``codex exec`` in ``repo`` and returns what the stub
recorded with the client's exit code and output. Hooks and MCP servers are registered
the way ``providers.clients.facts`` says the bridge will register them, so a passing run
is also evidence for those facts.

The clients come from ``.ci/install-clients.sh`` (``.clients/node_modules/.bin``) at the
versions pinned in ``versions.json`` beside this file.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.clients import facts, settings_snippets
from tests.clients.measured import MEASURED
from tests.clients.stub_model import Recorded, Reply, StubModel, Text

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
BIN_DIR = REPO_ROOT / ".clients" / "node_modules" / ".bin"
VERSIONS: dict[str, dict[str, str]] = json.loads((HERE / "versions.json").read_text())
CLIENTS = tuple(VERSIONS)

# The environment a client keeps from ours: enough to find node and a shell, nothing
# that could point it at a real model or a real account.
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")


@dataclass(frozen=True)
class Hook:
    """One command hook at ``event``; ``timeout_s`` is converted to the client's unit."""

    event: str
    command: str
    timeout_s: float = 30.0


@dataclass(frozen=True)
class McpServer:
    """A stdio MCP server the client starts itself."""

    name: str
    command: str
    args: tuple[str, ...] = ()


@dataclass
class Run:
    """What one client run left: the stub's requests and the process's outcome."""

    client: str
    exit_code: int | None
    stdout: str
    stderr: str
    requests: list[Recorded]
    unknown_routes: list[str]
    seconds: float
    home: Path
    timed_out: bool = False

    @property
    def model_requests(self) -> list[Recorded]:
        """The requests of the conversation itself (those that offered the model tools)."""
        return [r for r in self.requests if is_conversation_request(r)]

    def describe(self) -> str:
        """For assertion messages: enough to see why a run went wrong."""
        paths = [r.path for r in self.requests]
        return (
            f"{self.client} exit={self.exit_code} timed_out={self.timed_out} "
            f"in {self.seconds:.1f}s, requests={paths}, unknown={self.unknown_routes}\n"
            f"stdout: {self.stdout[-1500:]}\nstderr: {self.stderr[-3000:]}"
        )


def client_binary(client: str) -> Path:
    return BIN_DIR / VERSIONS[client]["bin"]


def installed_version(client: str) -> str | None:
    """The version of ``client`` under .clients/, or None when it is not installed."""
    package = VERSIONS[client]["package"]
    manifest = REPO_ROOT / ".clients" / "node_modules" / package / "package.json"
    try:
        version = json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return str(version) if client_binary(client).exists() else None


def missing_reason(client: str) -> str | None:
    """Why ``client`` cannot run here (None when it can): what a skip says."""
    pinned = VERSIONS[client]["version"]
    package = VERSIONS[client]["package"]
    if not any((Path(d) / "node").exists() for d in os.environ.get("PATH", "").split(":")):
        return f"node not found on PATH: {package} cannot run"
    found = installed_version(client)
    if found is None:
        return f"{package}@{pinned} not installed: run bash .ci/install-clients.sh"
    if found != pinned:
        return f"{package} is {found}, pinned {pinned}: run bash .ci/install-clients.sh"
    return None


def is_conversation_request(request: Recorded) -> bool:
    """A request of the agent's conversation (it offers tools), not a side call."""
    body = request.body
    if not isinstance(body, dict):
        return False
    extra = [
        item
        for item in body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "additional_tools"
    ]
    return bool(body.get("tools") or extra)


def reached(text: str, requests: Iterable[Recorded]) -> list[int]:
    """Indexes of the requests whose whole body carries ``text`` (JSON-escaped or not)."""
    escaped = json.dumps(text)[1:-1]
    return [
        i for i, request in enumerate(requests) if text in request.text or escaped in request.text
    ]


def reached_model(text: str, run: Run) -> bool:
    """Whether ``text`` is in any request the client sent to its model."""
    return bool(reached(text, run.requests))


# -- hook scripts -----------------------------------------------------------------------

HOOK_SCRIPT = """\
import json, sys, time
event, text, capture, delay, plain = sys.argv[1:6]
data = sys.stdin.read()
with open(capture, "a", encoding="utf-8") as out:
    out.write(json.dumps({"argv_event": event, "stdin": data}) + "\\n")
time.sleep(float(delay))
if plain == "plain":
    print(text)
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}))
"""


def context_hook(
    workdir: Path,
    event: str,
    text: str,
    *,
    delay_s: float = 0.0,
    timeout_s: float = 30.0,
    plain: bool = False,
) -> tuple[Hook, Path]:
    """A hook at ``event`` that answers ``text`` as additional context (or, ``plain``, as
    bare stdout) after ``delay_s``; and the file where it appends each JSON input it gets
    (one line per call), so a test can read what the client handed its hook."""
    script = workdir / "context_hook.py"
    if not script.exists():
        script.write_text(HOOK_SCRIPT, encoding="utf-8")
    capture = workdir / f"hook-input-{event}-{text}.jsonl"
    mode = "plain" if plain else "json"
    argv = [sys.executable, str(script), event, text, str(capture), str(delay_s), mode]
    return Hook(event, shlex.join(argv), timeout_s), capture


def hook_inputs(capture: Path) -> list[dict[str, Any]]:
    """The JSON inputs one context hook received, in order ([] when it never ran)."""
    if not capture.exists():
        return []
    lines = capture.read_text(encoding="utf-8").splitlines()
    return [json.loads(json.loads(line)["stdin"]) for line in lines if line.strip()]


# -- running ----------------------------------------------------------------------------


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _merge(path: Path, value: Mapping[str, Any]) -> None:
    current = json.loads(path.read_text()) if path.exists() else {}
    current.update(value)
    _write_json(path, current)


def _hook_settings(client: str, hooks: Sequence[Hook]) -> dict[str, Any]:
    return settings_snippets.hook_settings(
        client, [(h.event, h.command, h.timeout_s) for h in hooks]
    )


@dataclass(frozen=True)
class _Options:
    hooks: tuple[Hook, ...]
    hooks_in: str
    trust_hooks: bool
    mcp: tuple[McpServer, ...]
    claude_mcp: str
    codex_model: str | None
    extra_args: tuple[str, ...]


@dataclass
class _Prepared:
    argv: list[str]
    env: dict[str, str]
    home: Path


def _hook_file(info: facts.ClientFacts, repo: Path, user_root: Path, hooks_in: str) -> Path:
    if hooks_in == "project":
        return repo / info.hook_files.project
    return user_root / info.hook_files.user


def _prepare(
    client: str, stub: StubModel, work: Path, repo: Path, prompt: str, options: _Options
) -> _Prepared:
    hooks, hooks_in, mcp, claude_mcp = (
        options.hooks,
        options.hooks_in,
        options.mcp,
        options.claude_mcp,
    )
    extra_args: Sequence[str] = options.extra_args
    home = work / "home"
    home.mkdir()
    env = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    env.update(HOME=str(home), USERPROFILE=str(home), TMPDIR=str(work / "tmp"), NO_COLOR="1")
    (work / "tmp").mkdir()
    binary = str(client_binary(client))
    info = facts.FACTS[client]
    if client == "claude":
        env.update(
            ANTHROPIC_BASE_URL=stub.url,
            ANTHROPIC_API_KEY="sk-ant-stub",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
        )
        if hooks:
            _merge(_hook_file(info, repo, home, hooks_in), _hook_settings(client, hooks))
        if mcp:
            servers = settings_snippets.mcp_json(client, _mcp_triples(mcp))
            if claude_mcp == "flag":
                # -p waits for --mcp-config servers; those of ~/.claude.json (user scope)
                # connect in the background and may miss the first request.
                mcp_config = work / "mcp.json"
                _write_json(mcp_config, servers)
                extra_args = ["--mcp-config", str(mcp_config), *extra_args]
            else:
                _merge(home / ".claude.json", servers)
            allow = [f"mcp__{server.name}" for server in mcp]
            _merge(home / ".claude" / "settings.json", {"permissions": {"allow": allow}})
        argv = [binary, "-p", *([prompt] if prompt else []), *extra_args]
    elif client == "gemini":
        env.update(
            GOOGLE_GEMINI_BASE_URL=stub.url,
            GEMINI_API_KEY="stub",
            GEMINI_CLI_TRUST_WORKSPACE="true",
            # Not re-executing node with a larger heap saves 1.5 s a run, nothing else.
            GEMINI_CLI_NO_RELAUNCH="true",
        )
        user_settings = home / info.hook_files.user
        _merge(user_settings, {"security": {"auth": {"selectedType": "gemini-api-key"}}})
        if hooks:
            _merge(_hook_file(info, repo, home, hooks_in), _hook_settings(client, hooks))
        if mcp:
            _merge(user_settings, settings_snippets.mcp_json(client, _mcp_triples(mcp)))
        argv = [binary, "-p", prompt, *extra_args]
    elif client == "codex":
        codex_home = work / "codex_home"
        codex_home.mkdir()
        env.update(CODEX_HOME=str(codex_home), STUB_MODEL_KEY="stub")
        config = [
            *([f"model = {json.dumps(options.codex_model)}"] if options.codex_model else []),
            'model_provider = "stub"',
            "",
            "[model_providers.stub]",
            'name = "stub"',
            f'base_url = "{stub.url}/v1"',
            'env_key = "STUB_MODEL_KEY"',
            'wire_api = "responses"',
            "",
        ]
        if mcp:
            config.append(settings_snippets.codex_mcp_toml(_mcp_triples(mcp)))
        (codex_home / "config.toml").write_text("\n".join(config), encoding="utf-8")
        if hooks:
            _merge(_hook_file(info, repo, codex_home, hooks_in), _hook_settings(client, hooks))
        trust = list(MEASURED[client].hook_trust_args) if hooks and options.trust_hooks else []
        if hooks and options.trust_hooks and hooks_in == "project":
            trust += MEASURED[client].project_trust_args
        argv = [binary, "exec", "--skip-git-repo-check", *trust, *extra_args, prompt]
    else:
        raise ValueError(f"unknown client {client!r}")
    return _Prepared(argv, env, home)


def _mcp_triples(mcp: Sequence[McpServer]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(server.name, server.command, server.args) for server in mcp]


def run_client(
    client: str,
    repo: Path,
    prompt: str,
    *,
    script: Sequence[Reply] = (Text("stub final answer"),),
    hooks: Sequence[Hook] = (),
    hooks_in: str = "user",
    trust_hooks: bool = True,
    mcp: Sequence[McpServer] = (),
    extra_args: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
    codex_model: str | None = None,
    claude_mcp: str = "flag",
    timeout_s: float = 60.0,
    workdir: Path | None = None,
    prepare: Callable[[Mapping[str, str]], Sequence[str]] | None = None,
    stdin_text: str | None = None,
) -> Run:
    """Run ``client`` one-shot in ``repo`` against a fresh stub answering ``script``.

    ``claude_mcp`` is how Claude Code gets the MCP servers: "flag" (--mcp-config) or
    "user" (~/.claude.json).
    ``codex_model`` None keeps Codex's own default model (and so its default tool set).
    ``trust_hooks`` False leaves out what makes Codex run hooks it has not reviewed (and
    trust the project, for project hooks).
    ``hooks_in`` is "user" (the temporary HOME's, or CODEX_HOME's, settings) or "project"
    (the repository's). ``workdir`` holds HOME and the like (a new temporary directory
    when None; it is left for the caller to inspect). ``stdin_text`` is written to its
    standard input (``claude -p --input-format stream-json``: several prompts in one
    session); /dev/null otherwise.
    """
    work = Path(tempfile.mkdtemp(prefix=f"{client}-run-", dir=workdir))
    with StubModel(list(script)) as stub:
        options = _Options(
            tuple(hooks),
            hooks_in,
            trust_hooks,
            tuple(mcp),
            claude_mcp,
            codex_model,
            tuple(extra_args),
        )
        prepared = _prepare(client, stub, work, repo, prompt, options)
        prepared.env.update(extra_env or {})
        more = list(prepare(prepared.env)) if prepare is not None else []
        if more:  # the prompt stays last for Codex
            head, last = prepared.argv[:-1], prepared.argv[-1:]
            prepared.argv = [*head, *more, *last] if client == "codex" else [*prepared.argv, *more]
        started = time.monotonic()
        timed_out = False
        with subprocess.Popen(
            prepared.argv,
            cwd=repo,
            env=prepared.env,
            stdin=subprocess.DEVNULL if stdin_text is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        ) as process:
            try:
                stdout, stderr = process.communicate(stdin_text, timeout=timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(process.pid, signal.SIGKILL)
                stdout, stderr = process.communicate()
            finally:
                # Hooks and MCP servers the client started must not outlive the run.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
        seconds = time.monotonic() - started
        return Run(
            client=client,
            exit_code=None if timed_out else process.returncode,
            stdout=stdout,
            stderr=stderr,
            requests=stub.snapshot(),
            unknown_routes=list(stub.unknown),
            seconds=seconds,
            home=prepared.home,
            timed_out=timed_out,
        )
