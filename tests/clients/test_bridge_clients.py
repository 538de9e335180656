"""The bridge driven by the real clients (``claude -p``, ``gemini -p``, ``codex exec``)
against the loopback stub model, with the hooks ``setup`` registers: each kind of
context reaches the model's requests in all three clients, only what the client does
not load by itself, and the prompt hook of an unchanged repository adds nothing.
Skipped, with the reason, where a client is not installed (``.ci/install-clients.sh``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.clients import facts, settings_snippets, setup
from tests.clients.bridge import BridgeEnv, daemon_pids, make_repo
from tests.clients.conftest import Runs
from tests.clients.real_clients import Hook, Run, missing_reason, reached, run_client
from tests.clients.stub_model import ReadFile, Text

FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker BR-A1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker BR-C1.\n",
    ".cursor/rules/python.mdc": '---\nglobs: "**/*.py"\n---\nPython marker BR-G1.\n',
    "src/calc.py": "def add(a, b):\n    return a + b  # MARK-FILE-BR\n",
}
PROMPT = "Read src/calc.py and say what it does. MARK-PROMPT-BR"


def registered(client: str) -> list[Hook]:
    """The hooks exactly as ``setup`` writes them for ``client``."""
    plan = setup.Plan(client, Path("unused"), setup.hook_command(client), setup.events_for(client))
    hooks = [Hook(event, plan.command, setup.HOOK_TIMEOUT_S) for event in plan.events]
    written = settings_snippets.hook_settings(
        client, [(h.event, h.command, h.timeout_s) for h in hooks]
    )
    assert written == setup.snippet(plan)  # what run_client writes is what setup writes
    return hooks


def run_with_bridge(client: str, bridge: BridgeEnv, work: Path) -> Run:
    repo = make_repo(work / "repo", FILES)
    path = str(repo / "src/calc.py") if client == "claude" else "src/calc.py"
    env = bridge.for_client()
    return run_client(
        client,
        repo,
        PROMPT,
        script=[ReadFile(path), Text("It adds.")],
        hooks=registered(client),
        extra_env=env,
        workdir=work,
        timeout_s=180,
    )


@pytest.fixture(scope="module")
def client_runs(bridge: BridgeEnv, runs: Runs) -> dict[str, Run]:
    """One run per installed client, all three at once."""
    installed = [c for c in facts.FACTS if missing_reason(c) is None]
    for client in installed:
        runs.prefetch(f"bridge-{client}", lambda w, c=client: run_with_bridge(c, bridge, w))
    return {
        c: runs.get(f"bridge-{c}", lambda w, c=c: run_with_bridge(c, bridge, w)) for c in installed
    }


@pytest.mark.slow
def test_each_kind_of_context_reaches_the_model(
    client: str, client_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    run = client_runs[client]
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    requests = run.model_requests
    assert len(requests) >= 2, run.describe()
    first = [0]
    # session start: a rule no client loads, git status, the file tree; not the git
    # status Claude Code has in its own snapshot, nor the tree Gemini CLI lists whole
    native = facts.NATIVE[client]
    assert reached("Cursor marker BR-C1.", requests)[:1] == first, run.describe() + bridge.log()
    ours = reached("On branch main", requests)[:1]
    assert ours == ([] if native.git_snapshot else first), run.describe()
    ours = reached("(shown: ", requests)[:1]
    assert ours == ([] if native.listing_items else first), run.describe()
    # AGENTS.md: loaded by Claude Code (no CLAUDE.md here) and Codex CLI themselves, sent
    # by us to Gemini CLI; in every case the model sees it once
    assert requests[0].text.count("Agents marker BR-A1.") == 1, run.describe()
    # after the read: the file's scoped doc, in a request after the one with the file
    with_file = reached("MARK-FILE-BR", requests)
    docs = reached("Python marker BR-G1.", requests)
    assert with_file and docs and docs[0] >= with_file[0] > 0, run.describe()
    # the prompt hook of an unchanged repository added nothing: each text once
    for text in ("Cursor marker BR-C1.", "On branch main"):
        if text != "On branch main" or not native.git_snapshot:
            assert requests[0].text.count(text) == 1, (text, run.describe())
    assert not reached("(updated) ---", requests), run.describe()


@pytest.mark.slow
def test_no_process_is_left_after_the_runs(client_runs: dict[str, Run], bridge: BridgeEnv) -> None:
    del client_runs
    for root in {p for p in bridge.base.rglob("repo") if p.is_dir()}:
        assert len(daemon_pids(root.resolve())) <= 1
    assert "Traceback" not in bridge.log()
