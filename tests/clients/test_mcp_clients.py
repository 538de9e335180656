"""The MCP server end to end with the real clients (``claude -p``, ``gemini -p``, ``codex
exec``) against the loopback stub model, registered by ``setup CLIENT --mcp`` itself:
the server's instructions (the static context) reach the model's requests, and a call of
its git_status tool, scripted in the stub, returns our section to the model. Skipped,
with the reason, where a client is not installed (``.ci/install-clients.sh``).

Claude Code gets the ``.mcp.json`` setup writes for the project as ``--mcp-config`` (with
``--strict-mcp-config``): ``-p`` waits only for servers given that way (facts); its
permission rule is the one setup writes into ``.claude/settings.local.json``. Gemini CLI
and Codex CLI read their user settings as setup wrote them; Codex passes the server the
variables that place the background process only through the ``env_vars`` setup writes,
so the shared process answering here is evidence for them.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from providers.clients import facts
from providers.clients.mcp_session import FIRST_LINE, SERVER_NAME
from tests.clients.bridge import BridgeEnv, daemon_pids, make_repo
from tests.clients.conftest import Runs
from tests.clients.measured import MEASURED
from tests.clients.real_clients import Run, missing_reason, reached, run_client
from tests.clients.stub_model import McpCall, Text
from tests.clients.test_real_clients import roles_carrying

FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker MC-A1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker MC-K1.\n",
    "src/app.py": "print('app')\n",
}
SCOPE = {"claude": "project", "gemini": "user", "codex": "user"}
"""Claude's project scope pins .claude/settings.local.json; the others' user files."""


def setup_mcp(client: str, repo: Path) -> Callable[[Mapping[str, str]], Sequence[str]]:
    def prepare(env: Mapping[str, str]) -> Sequence[str]:
        command = [str(Path(sys.executable).parent / "context-providers"), "setup", client]
        commented = Path(env["HOME"]) / ".gemini" / "settings.json"
        if client == "gemini":
            # Gemini CLI reads its settings with comments: setup keeps them, and Gemini
            # reads what setup wrote (issue 27 item 4).
            text = commented.read_text(encoding="utf-8").replace("{", "{ /* kept */", 1)
            commented.write_text(f"// the user's notes\n{text}", encoding="utf-8")
        subprocess.run(
            [*command, "--mcp", "--scope", SCOPE[client]],
            cwd=repo,
            env=dict(env),
            check=True,
            capture_output=True,
        )
        if client == "gemini":
            text = commented.read_text(encoding="utf-8")
            assert text.startswith("// the user's notes\n{ /* kept */"), text
        if client == "claude":
            return ["--mcp-config", str(repo / ".mcp.json"), "--strict-mcp-config"]
        return []

    return prepare


@pytest.fixture(scope="module")
def bridge() -> Iterator[BridgeEnv]:
    env = BridgeEnv(idle_s=120)
    try:
        yield env
    finally:
        env.close()


def run_with_server(client: str, bridge: BridgeEnv, work: Path) -> Run:
    repo = make_repo(work / "repo", FILES)
    env = bridge.for_client(console_scripts=True)  # a project names them bare
    # A first start of the background process under the whole suite's load can take
    # longer than the server's own wait for its instructions (below Codex's 40 s).
    env["CONTEXT_PROVIDERS_MCP_START_S"] = "30"
    return run_client(
        client,
        repo,
        "What is the state of the repository? MARK-PROMPT-MC",
        script=[McpCall(SERVER_NAME, "git_status"), Text("It is clean.")],
        extra_env=env,
        workdir=work,
        timeout_s=180,
        prepare=setup_mcp(client, repo),
    )


@pytest.fixture(scope="module")
def client_runs(bridge: BridgeEnv, runs: Runs) -> dict[str, Run]:
    """One run per installed client, all three at once."""
    installed = [c for c in facts.FACTS if missing_reason(c) is None]
    for client in installed:
        runs.prefetch(f"mcp-{client}", lambda w, c=client: run_with_server(c, bridge, w))
    return {
        c: runs.get(f"mcp-{c}", lambda w, c=c: run_with_server(c, bridge, w)) for c in installed
    }


def ran(client_runs: dict[str, Run], client: str, bridge: BridgeEnv) -> Run:
    run = client_runs[client]
    assert run.exit_code == 0 and not run.timed_out, run.describe() + bridge.log()
    assert len(run.model_requests) >= 2, run.describe() + bridge.log()
    return run


@pytest.mark.slow
def test_the_instructions_reach_every_request(
    client: str, client_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    """The first line in every request of all three clients, in a message of the role the
    facts name; the rule no client loads by itself too, except where the client keeps
    only the first line (Codex with its default model)."""
    run = ran(client_runs, client, bridge)
    requests = run.model_requests
    everywhere = list(range(len(requests)))
    assert reached(FIRST_LINE, requests) == everywhere, run.describe()
    whole = MEASURED[client].mcp_instructions_kept == "all"
    assert reached("Cursor marker MC-K1.", requests) == (everywhere if whole else [])
    roles = roles_carrying(FIRST_LINE[:60], requests[0])
    assert roles == {MEASURED[client].mcp_instructions_role}, (roles, run.describe())


@pytest.mark.slow
def test_the_git_status_tool_returns_our_section(
    client: str, client_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    """The stub calls git_status by the name the client gives it; the request after the
    call carries our section as the tool's result (plain text, not wrapped in JSON), from
    the same background process the hooks use (its socket in this test's runtime
    directory: for Codex, passed on by env_vars)."""
    run = ran(client_runs, client, bridge)
    requests = run.model_requests
    assert not reached("On branch main", requests[:1]), run.describe()
    assert reached("On branch main", requests[1:]), run.describe() + bridge.log()
    assert reached("Recent commits:", requests[1:]), run.describe()
    assert '{"result"' not in requests[1].text, run.describe()
    repo = (run.home.parent.parent / "repo").resolve()
    assert bridge.status(repo)["root"] == str(repo)
    assert len(daemon_pids(repo)) == 1
    print(f"{client}: {run.seconds:.1f} s, {len(requests)} model requests")
