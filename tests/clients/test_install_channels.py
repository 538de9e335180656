"""Issue 30 item 2: each client installs us through its own command, offline, from a
local copy of the repository's install-channel files (``providers.clients.layouts``),
into a temporary HOME: ``claude plugin marketplace add PATH`` + ``claude plugin install
context-providers@context-providers``, ``gemini extensions install PATH``, ``codex
plugin marketplace add PATH`` + ``codex plugin add``; then the real client, run
one-shot against the stub model, puts our context in its request. The plugins run what
``setup --scope project`` writes: the launcher by name, found on PATH (the test's
environment's ``bin``).

Also (item 3): a project's settings written by ``setup --scope project`` in one clone,
copied unchanged into a second clone at another path whose PATH finds another install
(another venv), work there; with no install on PATH, the client still answers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from providers.clients import facts, layouts
from providers.clients.mcp_session import FIRST_LINE
from tests.clients.bridge import BridgeEnv, make_repo
from tests.clients.measured import MEASURED
from tests.clients.real_clients import Run, client_binary, missing_reason, reached, run_client
from tests.clients.stub_model import ReadFile, Text
from tests.conftest import REPO_ROOT

FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker IC-A1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker IC-C1.\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
}
PROMPT = "Say what this repository is. MARK-PROMPT-IC"
BIN = str(Path(sys.executable).parent)
"""Where this environment's ``context-providers-hook`` and ``context-providers`` are."""


def channel_copy(where: Path) -> Path:
    """The repository's install-channel files as committed, alone in ``where`` (what a
    clone holds of them)."""
    for path in layouts.files():
        target = where / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO_ROOT / path, target)
    return where


def installing(client: str, source: Path, mcp: bool = False, root: bool = True) -> list[list[str]]:
    """The client's own commands that install our hooks plugin (or ``mcp``: our MCP
    server's) from ``source`` (Gemini CLI's hooks extension from the root, or not
    ``root``: from its folder)."""
    binary = str(client_binary(client))
    name = f"{layouts.MCP_NAME if mcp else layouts.NAME}@{layouts.MARKETPLACE}"
    if client == "claude":
        return [
            [binary, "plugin", "marketplace", "add", str(source)],
            [binary, "plugin", "install", name],
        ]
    if client == "gemini":  # the hooks from the root, as an install by URL would
        folder = source if root and not mcp else source / layouts.folder("gemini", mcp)
        return [[binary, "extensions", "install", str(folder), "--consent"]]
    return [
        [binary, "plugin", "marketplace", "add", str(source)],
        [binary, "plugin", "add", name],
    ]


def install(commands: Sequence[Sequence[str]], env: Mapping[str, str], log: Path) -> None:
    for command in commands:
        done = subprocess.run(
            command,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        with log.open("a", encoding="utf-8") as out:
            out.write(
                f"$ {' '.join(command)}\n{done.stdout}{done.stderr}(exit {done.returncode})\n"
            )
        assert done.returncode == 0, log.read_text(encoding="utf-8")
        # Gemini CLI declines an untrusted source folder, and exits 0
        assert "is not trusted" not in done.stdout + done.stderr, log.read_text(encoding="utf-8")


def run_installed(
    client: str, bridge: BridgeEnv, work: Path, mcp: bool = False
) -> tuple[Run, Path]:
    source = channel_copy(work / "clone")
    repo = make_repo(work / "repo", FILES)
    log = work / "install.log"
    env = bridge.for_client()
    env["PATH"] = f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"

    def prepare(client_env: Mapping[str, str]) -> Sequence[str]:
        install(installing(client, source, mcp), client_env, log)
        return [] if mcp else list(MEASURED[client].hook_trust_args)

    # with the MCP server, a second request (after a read) that a server still connecting
    # when the first left (claude -p waits only for --mcp-config servers) has reached
    read = str(repo / "src/calc.py") if client == "claude" else "src/calc.py"
    run = run_client(
        client,
        repo,
        PROMPT,
        script=[ReadFile(read), Text("It is small.")] if mcp else [Text("It is small.")],
        extra_env=env,
        workdir=work,
        timeout_s=180,
        prepare=prepare,
    )
    return run, log


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_the_client_installs_our_plugin_and_our_context_reaches_its_model(
    client: str, bridge: BridgeEnv, tmp_path: Path
) -> None:
    reason = missing_reason(client)
    if reason:
        pytest.skip(reason)
    run, log = run_installed(client, bridge, tmp_path)
    why = run.describe() + log.read_text(encoding="utf-8") + bridge.log()
    assert run.exit_code == 0 and not run.timed_out, why
    requests = run.model_requests
    assert requests, why
    # session start: a rule no client loads by itself, git status (ours, or Claude
    # Code's own snapshot: then we send none, issue 29 item 3)
    assert reached("Cursor marker IC-C1.", requests)[:1] == [0], why
    git = "Current branch: main" if facts.NATIVE[client].git_snapshot else "On branch main"
    assert reached(git, requests)[:1] == [0], why


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_the_client_installs_our_mcp_plugin_and_its_instructions_reach_its_model(
    client: str, bridge: BridgeEnv, tmp_path: Path
) -> None:
    """The MCP plugin (extension): the server's instructions reach a request; the rule no
    client loads by itself with them, where the client keeps more than the first line."""
    reason = missing_reason(client)
    if reason:
        pytest.skip(reason)
    run, log = run_installed(client, bridge, tmp_path, mcp=True)
    why = run.describe() + log.read_text(encoding="utf-8") + bridge.log()
    assert run.exit_code == 0 and not run.timed_out, why
    requests = run.model_requests
    assert reached(FIRST_LINE, requests), why
    if MEASURED[client].mcp_instructions_kept == "all":
        assert reached("Cursor marker IC-C1.", requests), why


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_doctor_names_our_installed_plugin_and_warns_of_it_with_the_mcp_server(
    client: str, tmp_path: Path
) -> None:
    """Our hooks plugin installed by the client's own command, then ``setup CLIENT
    --mcp``: ``setup`` and ``doctor`` warn that the conventions would arrive twice."""
    reason = missing_reason(client)
    if reason:
        pytest.skip(reason)
    source = channel_copy(tmp_path / "clone")
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    repo = make_repo(tmp_path / "repo", FILES)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "GEMINI_CLI_NO_RELAUNCH": "true",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",  # else it asks to trust the source folder
    }
    install(installing(client, source, root=False), env, tmp_path / "install.log")
    script = str(Path(sys.executable).parent / "context-providers")

    def ours(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [script, *args], cwd=repo, env=env, capture_output=True, text=True, check=True
        )

    report = ours("doctor").stdout
    assert f"({layouts.NAME})" in report and "has both" not in report, report
    added = ours("setup", client, "--mcp")
    assert f"warning: {client} has both the context-providers hooks" in added.stderr, added
    assert f"{client} has both the context-providers hooks" in ours("doctor").stdout
