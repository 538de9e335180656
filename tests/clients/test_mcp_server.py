"""``context-providers mcp``: the stdio MCP server, driven over real stdio by the official
``mcp`` client SDK, in a real git repository, with the real background process and the
four providers (issue 21, the MCP part).

One server process answers most tests (its start, the SDK import above all, costs
seconds); the session-level rules are checked in-process on
:class:`~providers.clients.mcp_session.McpSession`, which is all the server calls.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.clients import deltas, facts
from providers.clients.mcp_session import FIRST_LINE, FOLLOW, NOTHING_NEW, McpSession
from tests.clients.bridge import BridgeEnv, daemon_pids, make_repo, session_start, wait_until
from tests.clients.mcp_client import Call, Read, Talk, talk

FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker M-A1.\n",
    "CLAUDE.md": "# Claude\n\nClaude marker M-C1.\n",
    ".claude/rules/always.md": "Claude rule marker M-R1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker M-K1.\n",
    ".cursor/rules/python.mdc": '---\nglobs: "**/*.py"\n---\nPython marker M-G1.\n',
    "src/auth/AGENTS.md": "# auth\n\nAuth marker M-N1.\n",
    "src/auth/login.py": "def login():\n    return None\n",
    "src/app.py": "print('app')\n",
    **{f"lib/module_{i:02d}.py": f"X = {i}\n" for i in range(40)},
}
SERVER = (sys.executable, "-P", "-m", "providers", "mcp")
STEPS = [
    Call("git_status"),  # 0
    Call("file_tree", {"directory": "src"}),  # 1
    Call("file_tree", {"directory": "src", "budget": 40}),  # 2
    Call("scoped_docs", {"files": ["src/auth/login.py"]}),  # 3
    Call("scoped_docs", {"files": ["src/auth/login.py"]}),  # 4: nothing new
    Call("conventions"),  # 5
    Call("conventions", {"path": "CLAUDE.md"}),  # 6
    Call("conventions", {"path": "no/such.md"}),  # 7: an error
    Call("git_status", {"budget": 12}),  # 8
    Read("context://git-status"),  # 9
    Read("context://file-tree"),  # 10
    Read("context://conventions"),  # 11
    Read("context://conventions/.cursor/rules/always.mdc"),  # 12
    Call("scoped_docs", {"files": ["../outside.py"]}),  # 13: an error
]


@pytest.fixture(scope="module")
def bridge() -> Iterator[BridgeEnv]:
    env = BridgeEnv(start_s=60)
    try:
        yield env
    finally:
        env.close()


@pytest.fixture(scope="module")
def repo(bridge: BridgeEnv) -> Path:
    return make_repo(bridge.base / "repo", FILES)


@pytest.fixture(scope="module")
def served(bridge: BridgeEnv, repo: Path) -> Talk:
    """One session with the server as setup registers it for Claude Code."""
    return talk([*SERVER, "--client", "claude"], str(repo), bridge.env, STEPS)


def test_tools_and_resources_are_listed(served: Talk) -> None:
    """Tools: scoped docs of files, the file tree of a directory, git status, the
    conventions, each described; resources: each section, one per convention file."""
    tools = {tool["name"]: tool for tool in served.tools}
    assert set(tools) == {"scoped_docs", "file_tree", "git_status", "conventions"}
    assert all(tool.get("description") for tool in tools.values())
    assert tools["scoped_docs"]["inputSchema"]["required"] == ["files"]
    assert "budget" in tools["file_tree"]["inputSchema"]["properties"]
    uris = {resource["uri"] for resource in served.resources}
    assert {
        "context://git-status",
        "context://file-tree",
        "context://conventions",
        "context://conventions/AGENTS.md",
        "context://conventions/.cursor/rules/always.mdc",
    } <= uris


def test_instructions_carry_what_the_client_does_not_load(served: Talk) -> None:
    """The instructions' first line says what the server offers (all Codex keeps); then
    the convention files and always-on rules Claude Code does not load by itself (here
    AGENTS.md, as there is a CLAUDE.md, and Cursor's rule), not CLAUDE.md or its rules."""
    text = served.instructions
    first, _, rest = text.partition("\n")
    assert first == FIRST_LINE
    assert len(first) <= (facts.CODEX.mcp.first_line_max or 0)  # all of it reaches Codex
    for name in ("scoped_docs", "git_status", "file_tree", "conventions"):
        assert name in first
    assert "Agents marker M-A1." in rest and "Cursor marker M-K1." in rest
    assert "M-C1" not in text and "M-R1" not in text
    assert "Python marker" not in text  # a glob rule waits for its files
    assert deltas.tokens(text) <= 5000


@pytest.mark.parametrize("client", ["claude", "codex", "gemini"])
def test_instructions_fit_what_each_client_keeps(
    client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29 item 1: Claude Code cuts a server's instructions past 4096 characters
    (facts: instructions_chars), Codex CLI keeps their first line (250 characters): the
    instructions of a repository with 30 KB of rules fit Claude's whole, naming what
    waits for the conventions tool; Codex gets the first line alone, which says what to
    call."""
    pieces = [
        deltas.Piece("conventions", f"docs/rule-{i}.md", f"Rule {i} marker.\n" + "x " * 1500)
        for i in range(10)
    ]
    session = McpSession("/repo", "/repo", client)
    monkeypatch.setattr(session, "_pieces", lambda *args, **kwargs: pieces)
    monkeypatch.setattr(session, "_own", lambda: lambda piece: False)
    text, _ = session.instructions()
    info = facts.FACTS[client].mcp
    if info.instructions_chars is not None:
        assert facts.inline_size(text) <= info.instructions_chars
    first = text.partition("\n")[0]
    if info.first_line_max is not None:  # Codex: the first line alone, nothing to cut
        assert text == f"{first}\n" and len(first) <= info.first_line_max
        return
    assert "Rule 0 marker." in text  # the first file, whole
    assert text.rstrip().endswith("(call conventions).")
    assert len(first) <= (facts.CODEX.mcp.first_line_max or 0) and "conventions" in first


def test_each_tool_answers_from_the_repository(served: Talk) -> None:
    assert "On branch main" in served.text(0) and not served.is_error(0)
    assert "src/" in served.text(1) and "(shown: " in served.text(1)
    docs = served.text(3)
    assert "Auth marker M-N1." in docs and "Python marker M-G1." in docs
    assert "--- src/auth/AGENTS.md ---\n" in docs
    assert served.text(4) == NOTHING_NEW  # each doc once per session
    conventions = served.text(5)
    for marker in ("M-A1", "M-C1", "M-K1"):
        assert marker in conventions
    assert served.text(6) == FILES["CLAUDE.md"]


def test_budgets_are_honoured(served: Talk) -> None:
    """A budget the model gives is a hard bound, and more budget never shows less."""
    small, large = served.text(2), served.text(1)
    assert deltas.tokens(small) <= 40 < deltas.tokens(large)
    assert deltas.tokens(served.text(8)) <= 12


def test_errors_are_answers_not_crashes(served: Talk) -> None:
    """A path that is no convention file, a file outside the repository: error results
    saying why; the session goes on (later steps answered)."""
    assert served.is_error(7) and "no/such.md is not a convention file" in served.text(7)
    assert served.is_error(13) and "inside the repository" in served.text(13)


def test_resources_are_the_sections(served: Talk) -> None:
    assert served.text(9) == served.text(0)
    assert "(shown: " in served.text(10)
    assert served.text(11) == served.text(5)
    assert served.text(12) == "Cursor marker M-K1.\n"


def test_the_hooks_background_process_is_shared(
    served: Talk, bridge: BridgeEnv, repo: Path
) -> None:
    """One background process per repository whoever asks: the MCP server started it,
    a hook of the same repository is answered by it."""
    assert len(daemon_pids(repo)) == 1
    pid = bridge.status(repo)["pid"]
    run = bridge.hook("gemini", session_start("gemini", "g1", repo), cwd=repo)
    assert "On branch main" in run.context
    assert daemon_pids(repo) == [pid]
    print(f"MCP server up (initialize answered) in {served.seconds_to_initialize:.2f} s")


# -- one session's state (in-process: what the server calls) ------------------------


@pytest.fixture
def here(bridge: BridgeEnv, monkeypatch: pytest.MonkeyPatch) -> BridgeEnv:
    for name in ("XDG_RUNTIME_DIR", "XDG_STATE_HOME", "CONTEXT_PROVIDERS_IDLE_S"):
        monkeypatch.setenv(name, bridge.env[name])
    return bridge


def test_docs_once_per_session_and_again_when_edited(here: BridgeEnv, repo: Path) -> None:
    one, two = McpSession.here(str(repo)), McpSession.here(str(repo))
    assert "Python marker M-G1." in one.scoped_docs(["src/app.py"])
    assert one.scoped_docs(["src/app.py"]) == NOTHING_NEW
    assert "Python marker M-G1." in two.scoped_docs([str(repo / "src/app.py")])
    assert one.memory.files == ("src/app.py",)
    rule = repo / ".cursor/rules/python.mdc"
    rule.write_text(FILES[".cursor/rules/python.mdc"] + "Edited marker M-E1.\n")
    try:
        assert wait_until(lambda: "M-E1" in one.scoped_docs(["src/app.py"]), 10)
    finally:
        rule.write_text(FILES[".cursor/rules/python.mdc"])


def test_a_small_budget_names_what_was_left_out(here: BridgeEnv, repo: Path) -> None:
    session = McpSession.here(str(repo / "src"))
    answer = session.scoped_docs(["auth/login.py"], budget=30)
    assert deltas.tokens(answer) <= 30
    assert "Left out to fit 30 tokens:" in answer
    budget = deltas.tokens(f"{FIRST_LINE}\n\n{FOLLOW}\n\n") + 40  # room for a little
    text, paths = McpSession.here(str(repo), "gemini").instructions(budget=budget)
    assert deltas.tokens(text) <= budget
    assert "Left out to fit:" in text and "(call conventions)" in text
    assert "AGENTS.md" in paths
    # Codex keeps the first line alone: nothing more is sent to be cut
    codex, paths = McpSession.here(str(repo), "codex").instructions(budget=budget)
    assert codex == f"{FIRST_LINE}\n" and "AGENTS.md" in paths


def test_gemini_and_no_client(here: BridgeEnv, repo: Path) -> None:
    gemini, _ = McpSession.here(str(repo), "gemini").instructions()
    assert "M-A1" in gemini and "M-C1" in gemini and "M-R1" in gemini
    anyone, _ = McpSession.here(str(repo)).instructions()
    assert "M-A1" in anyone and "M-C1" in anyone
    assert "this client does not load" not in anyone


def test_outside_any_repository(here: BridgeEnv, tmp_path: Path) -> None:
    session = McpSession.here(str(tmp_path))
    text, paths = session.instructions()
    assert text.startswith(FIRST_LINE) and "in no git repository" in text and not paths
    with pytest.raises(Exception, match="in no git repository"):
        session.git_status()


# -- never in the way -------------------------------------------------------------------


def test_no_background_process_gives_error_texts_and_keeps_serving() -> None:
    """The background process cannot start (a directory where its socket must go): the
    server still starts, its instructions say why, each tool answers an error text
    saying why (twice: it keeps serving), and the reason is in the hooks' log."""
    env = BridgeEnv(start_s=1)
    try:
        repo = make_repo(env.base / "blocked", {"AGENTS.md": "# A\n"})
        (env.runtime / "context-providers").mkdir(mode=0o700)
        os.mkdir(env.socket(repo))
        steps = [Call("git_status"), Call("scoped_docs", {"files": ["AGENTS.md"]})]
        served = talk([*SERVER], str(repo), env.env, [*steps, Read("context://git-status")])
        assert served.instructions.startswith(FIRST_LINE)
        assert "No convention files now" in served.instructions
        for index in (0, 1):
            assert served.is_error(index), served.answers[index]
            assert "background process" in served.text(index), served.text(index)
        assert "did not answer" in served.text(2)
        assert " mcp[" in env.log() and "did not start in time" in env.log()
    finally:
        env.close()
