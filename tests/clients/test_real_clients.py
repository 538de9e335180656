"""The real clients (Claude Code, Gemini CLI, Codex CLI) against the loopback stub model.

Each test pins one fact of ``providers/clients/facts.py`` (named in its docstring) by
running the client one-shot, offline, and looking at what reached the stub model: the
bridge relies on these facts, and a client upgrade that breaks one fails here.

Runs are shared: each scenario runs once per client, three at a time in the background
(see ``Runs`` in conftest.py); tests only look at the result.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from providers.clients import facts, tool_paths
from tests.clients.conftest import Runs, make_repo
from tests.clients.measured import MEASURED
from tests.clients.real_clients import (
    CLIENTS,
    McpServer,
    Run,
    context_hook,
    hook_inputs,
    is_conversation_request,
    missing_reason,
    reached,
    reached_model,
    run_client,
)
from tests.clients.stub_model import Patch, ReadFile, Recorded, Text

HERE = Path(__file__).resolve().parent
PROMPT = "MARK-PROMPT-5d1 please answer"
SOURCE = "src/a.py"
SOURCE_TEXT = "print('MARK-FILE-a77')\n"
CONVENTIONS = {
    "AGENTS.md": "# Agents\nMARK-AGENTS-1c9\n",
    "CLAUDE.md": "# Claude\nMARK-CLAUDE-2e4\n",
    "GEMINI.md": "# Gemini\nMARK-GEMINI-3b8\n",
    ".claude/rules/always.md": "# Always\nMARK-RULES-4f0\n",
}
MARKS = {name: text.split("\n")[1] for name, text in CONVENTIONS.items()}
RULE_DIR = ".claude/rules/"
SLOW_HOOK_S = 1.5  # how long the timeout probes sleep
MCP_INSTRUCTIONS = (
    "MARK-MCP-6a2: the probe server answers questions."
    + " It says more." * 15
    + " MARK-MCP-8c4 past 250 characters.\nSecond line MARK-MCP-7b3."
)


def mark(kind: str, event: str) -> str:
    return f"MARK-{kind}-{event}"


# -- scenarios: each one client run ------------------------------------------------------


def run_conventions(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", CONVENTIONS)
    return run_client(client, repo, PROMPT, workdir=work)


def _hooks(client: str, work: Path) -> list[Any]:
    """The hooks of the hook scenario: one context hook at each event the facts name, plain
    stdout at those three, every never-use event, and two timeout probes."""
    events = facts.FACTS[client].events
    hooks = []
    # Context that re-opens the turn has its own scenario (it makes many requests).
    never = [e for e, avoid in MEASURED[client].never.items() if avoid.kind != "reopens"]
    for event in (events.session_start, events.per_prompt, events.after_tool, *never):
        hooks.append(context_hook(work, event, mark("CTX", event))[0])
    for event in (events.session_start, events.per_prompt, events.after_tool):
        hooks.append(context_hook(work, event, mark("PLAIN", event), plain=True)[0])
    # A hook slower than its timeout is cut off; one well within it is not. In the wrong
    # unit (seconds read as ms, or ms as seconds) one of the two would come out otherwise.
    hooks.append(
        context_hook(
            work, events.per_prompt, mark("SHORT", "timeout"), delay_s=SLOW_HOOK_S, timeout_s=1
        )[0]
    )
    hooks.append(
        context_hook(
            work, events.per_prompt, mark("LONG", "timeout"), delay_s=SLOW_HOOK_S, timeout_s=20
        )[0]
    )
    return hooks


def _read_script(client: str, repo: Path) -> list[ReadFile | Text]:
    # Claude's Read wants an absolute path; the others take the workspace-relative one.
    path = str(repo / SOURCE) if client == "claude" else SOURCE
    return [ReadFile(path), Text("read it")]


def run_hooks(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    return run_client(
        client,
        repo,
        PROMPT,
        script=_read_script(client, repo),
        hooks=_hooks(client, work),
        workdir=work,
    )


def run_untrusted_hooks(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    event = facts.FACTS[client].events.per_prompt
    hook = context_hook(work, event, mark("UNTRUSTED", event))[0]
    return run_client(client, repo, PROMPT, hooks=[hook], trust_hooks=False, workdir=work)


def run_project_hooks(client: str, work: Path) -> Run:
    # AGENTS.md without CLAUDE.md: the same run shows whether the client loads it then.
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT, "AGENTS.md": CONVENTIONS["AGENTS.md"]})
    event = facts.FACTS[client].events.per_prompt
    hook = context_hook(work, event, mark("PROJECT", event))[0]
    return run_client(client, repo, PROMPT, hooks=[hook], hooks_in="project", workdir=work)


def run_project_hooks_untrusted(client: str, work: Path) -> Run:
    """Hook trust given, project trust not."""
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    event = facts.FACTS[client].events.per_prompt
    hook = context_hook(work, event, mark("PROJECT", event))[0]
    return run_client(
        client,
        repo,
        PROMPT,
        hooks=[hook],
        hooks_in="project",
        trust_hooks=False,
        extra_args=MEASURED[client].hook_trust_args,
        workdir=work,
    )


def run_stop(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    hook = context_hook(work, "Stop", mark("CTX", "Stop"))[0]
    return run_client(client, repo, PROMPT, hooks=[hook], workdir=work)


PATCH = (
    "*** Begin Patch\n*** Update File: src/a.py\n@@\n"
    "-print('MARK-FILE-a77')\n+print(1)\n*** End Patch\n"
)


def run_patch(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    event = facts.FACTS[client].events.after_tool
    hook = context_hook(work, event, mark("CTX", event))[0]
    return run_client(
        client,
        repo,
        PROMPT,
        script=[Patch(PATCH), Text("patched")],
        hooks=[hook],
        extra_args=["--sandbox", "workspace-write"],  # read-only rejects the patch
        workdir=work,
    )


def run_mcp(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    server = McpServer(
        "probe", sys.executable, (str(HERE / "mcp_server.py"), "probe", MCP_INSTRUCTIONS)
    )
    return run_client(client, repo, PROMPT, mcp=[server], workdir=work, timeout_s=90)


SLOW_MCP_S = 10.0  # a server this slow to start is not up when Claude's first request leaves


def run_slow_mcp_user_scope(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {SOURCE: SOURCE_TEXT})
    args = (str(HERE / "mcp_server.py"), "probe", MCP_INSTRUCTIONS, str(SLOW_MCP_S))
    server = McpServer("probe", sys.executable, args)
    return run_client(client, repo, PROMPT, mcp=[server], claude_mcp="user", workdir=work)


SCENARIOS: dict[str, Callable[[str, Path], Run]] = {
    "conventions": run_conventions,
    "hooks": run_hooks,
    "mcp": run_mcp,
    "untrusted_hooks": run_untrusted_hooks,
    "stop": run_stop,
    "patch": run_patch,
    "slow_mcp": run_slow_mcp_user_scope,
    "project_hooks": run_project_hooks,
    "project_hooks_untrusted": run_project_hooks_untrusted,
}
ONLY = {
    "untrusted_hooks": ("codex",),
    "stop": ("claude",),
    "patch": ("codex",),
    "slow_mcp": ("claude",),
    "project_hooks_untrusted": ("codex",),
}


def scenario(runs: Runs, client: str, name: str) -> Run:
    """The run of scenario ``name`` for ``client``; the first call starts every scenario
    of every installed client so that they overlap."""
    for other in CLIENTS:
        if missing_reason(other) is not None:
            continue
        for key, start in SCENARIOS.items():
            if other in ONLY.get(key, (other,)):
                runs.prefetch(f"{other}-{key}", _bind(start, other))
    return runs.get(f"{client}-{name}", _bind(SCENARIOS[name], client))


def _bind(start: Callable[[str, Path], Run], client: str) -> Callable[[Path], Run]:
    return lambda work: start(client, work)


def installed(client: str) -> str:
    """``client`` for a test of one client's fact; skipped when it cannot run here."""
    reason = missing_reason(client)
    if reason is not None:
        pytest.skip(reason)
    return client


def ok(run: Run) -> Run:
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    assert run.model_requests, run.describe()
    return run


def roles_carrying(text: str, request: Recorded) -> set[str]:
    """The roles of the messages (Anthropic messages, Gemini contents, Responses input)
    whose JSON holds ``text``."""
    body = request.body if isinstance(request.body, dict) else {}
    roles = set()
    for key in ("messages", "contents", "input"):
        for item in body.get(key) or []:
            if isinstance(item, dict) and text in json.dumps(item):
                roles.add(str(item.get("role", item.get("type"))))
    return roles


# -- (a) baseline ------------------------------------------------------------------------


def test_baseline_prompt_reaches_model(runs: Runs, client: str) -> None:
    """measured.one_shot: the one-shot command runs offline against the stub (the wire API
    the stub speaks) and the prompt reaches the model's request."""
    run = ok(scenario(runs, client, "conventions"))
    assert reached("MARK-PROMPT-5d1", run.model_requests), run.describe()
    assert not run.unknown_routes, run.describe()


# -- (e) convention files the client loads by itself ----------------------------------


def test_convention_files_loaded_by_itself(runs: Runs, client: str) -> None:
    """facts.loads_by_itself / loaded_conventions: with AGENTS.md, CLAUDE.md, GEMINI.md and
    a .claude/rules file present, exactly the files the facts name reach the baseline
    request (Claude: CLAUDE.md and its rules; Gemini: GEMINI.md; Codex: AGENTS.md)."""
    run = ok(scenario(runs, client, "conventions"))
    expected = facts.loaded_conventions(client, [*facts.CONVENTION_FILES])
    seen = {name for name, marker in MARKS.items() if reached_model(marker, run)}
    seen = {RULE_DIR if name.startswith(RULE_DIR) else name for name in seen}
    assert seen == expected, run.describe()


def test_agents_md_alone(runs: Runs, client: str) -> None:
    """facts.loads_unless: Claude loads a root AGENTS.md only when there is no CLAUDE.md;
    Codex always; Gemini never."""
    run = ok(scenario(runs, client, "project_hooks"))
    expected = "AGENTS.md" in facts.loaded_conventions(client, ["AGENTS.md"])
    assert reached_model(MARKS["AGENTS.md"], run) is expected, run.describe()


# -- (b) hooks reach the model ---------------------------------------------------------


def test_session_start_hook_reaches_every_request(runs: Runs, client: str) -> None:
    """facts.events.session_start, context_role, HOOK_OUTPUT_SHAPE: additionalContext from
    the session-start event is in every request of the conversation, in a message of the
    role the facts name."""
    run = ok(scenario(runs, client, "hooks"))
    event = facts.FACTS[client].events.session_start
    requests = run.model_requests
    assert reached(mark("CTX", event), requests) == list(range(len(requests))), run.describe()
    roles = roles_carrying(mark("CTX", event), requests[0])
    assert MEASURED[client].context_role in roles, (roles, run.describe())


def test_per_prompt_hook_reaches_first_request(runs: Runs, client: str) -> None:
    """facts.events.per_prompt: additionalContext from the per-prompt event is in the
    turn's first request and every later one."""
    run = ok(scenario(runs, client, "hooks"))
    event = facts.FACTS[client].events.per_prompt
    requests = run.model_requests
    assert reached(mark("CTX", event), requests) == list(range(len(requests))), run.describe()


def test_after_tool_hook_reaches_request_after_the_read(runs: Runs, client: str) -> None:
    """facts.events.after_tool: after the stub made the client read a file, the after-tool
    event's additionalContext is in the next request (with the file), not before."""
    run = ok(scenario(runs, client, "hooks"))
    event = facts.FACTS[client].events.after_tool
    requests = run.model_requests
    assert len(requests) >= 2, run.describe()
    with_file = reached("MARK-FILE-a77", requests)
    assert with_file and with_file[0] > 0, run.describe()
    assert reached(mark("CTX", event), requests) == with_file, run.describe()


def test_plain_stdout_reaches_only_where_the_facts_say(runs: Runs, client: str) -> None:
    """measured.plain_stdout_reaches: bare stdout (no JSON) from a hook reaches the model at
    session start and per prompt for Claude and Codex, never for Gemini, and never after a
    tool."""
    run = ok(scenario(runs, client, "hooks"))
    info = facts.FACTS[client]
    for event in (info.events.session_start, info.events.per_prompt, info.events.after_tool):
        expected = event in MEASURED[client].plain_stdout_reaches
        assert reached_model(mark("PLAIN", event), run) is expected, (event, run.describe())


def test_never_use_events_do_not_carry_context(runs: Runs, client: str) -> None:
    """measured.never: additionalContext at an event the client rejects (Gemini says
    Claude's event names are invalid and never runs the hook) or ignores (the hook runs)
    never reaches the model."""
    run = ok(scenario(runs, client, "hooks"))
    for event, avoid in MEASURED[client].never.items():
        if avoid.kind == "reopens":
            continue
        assert not reached_model(mark("CTX", event), run), (event, run.describe())
        # "ignores": the hook ran (its input was captured) and its answer was dropped.
        assert bool(_inputs(run, event)) is (avoid.kind == "ignores"), (event, run.describe())
        if avoid.kind == "rejects":
            assert f'Invalid hook event name: "{event}"' in run.stderr, run.describe()


def test_reopening_events(runs: Runs) -> None:
    """measured.never (kind "reopens"): Claude's Stop hook with additionalContext makes
    it call the model again with the context in a new request: never use it."""
    client = installed("claude")
    assert all(a.kind != "reopens" for c in ("gemini", "codex") for a in MEASURED[c].never.values())
    assert [e for e, a in MEASURED[client].never.items() if a.kind == "reopens"] == ["Stop"]
    run = ok(scenario(runs, client, "stop"))
    assert len(run.model_requests) > 1, run.describe()
    assert reached(mark("CTX", "Stop"), run.model_requests), run.describe()


def test_hook_timeout_unit(runs: Runs, client: str) -> None:
    """facts.timeout_unit: a hook sleeping 1.5 s is cut off at a timeout of 1 s and runs to
    the end at 20 s, each written in the client's unit (Gemini: ms; the others: s)."""
    run = ok(scenario(runs, client, "hooks"))
    assert reached_model(mark("LONG", "timeout"), run), run.describe()
    assert not reached_model(mark("SHORT", "timeout"), run), run.describe()


def test_codex_skips_untrusted_hooks(runs: Runs) -> None:
    """measured.CODEX.hook_trust_args: without --dangerously-bypass-hook-trust (or a review in
    the TUI) Codex skips the hooks, silently: the run succeeds without the context."""
    client = installed("codex")
    assert MEASURED["codex"].hook_trust_args == ("--dangerously-bypass-hook-trust",)
    run = ok(scenario(runs, client, "untrusted_hooks"))
    event = facts.FACTS[client].events.per_prompt
    assert not reached_model(mark("UNTRUSTED", event), run), run.describe()


def test_project_hook_file(runs: Runs, client: str) -> None:
    """facts.hook_files.project / project_trust_args: hooks in the repository's own file
    (.claude/settings.json, .gemini/settings.json, .codex/hooks.json) reach the model;
    Codex reads its project file only in a trusted project (--trust)."""
    run = ok(scenario(runs, client, "project_hooks"))
    event = facts.FACTS[client].events.per_prompt
    assert reached_model(mark("PROJECT", event), run), run.describe()
    repo = run.home.parent.parent / "repo"
    assert (repo / facts.FACTS[client].hook_files.project).is_file()


def test_codex_ignores_hooks_of_an_untrusted_project(runs: Runs) -> None:
    """measured.CODEX.project_trust_args: without --trust, Codex ignores .codex/hooks.json even
    with --dangerously-bypass-hook-trust."""
    client = installed("codex")
    run = ok(scenario(runs, client, "project_hooks_untrusted"))
    event = facts.FACTS[client].events.per_prompt
    assert not reached_model(mark("PROJECT", event), run), run.describe()


# -- (c) hook input ---------------------------------------------------------------------


def _inputs(run: Run, event: str) -> list[dict[str, Any]]:
    work = run.home.parent.parent
    return hook_inputs(work / f"hook-input-{event}-{mark('CTX', event)}.jsonl")


def test_hook_input_fields(runs: Runs, client: str) -> None:
    """measured.hook_input_fields / prompt_input_fields: every hook input carries session_id
    (one per session), cwd (the repository), transcript_path and its own event name; the
    per-prompt one carries the prompt."""
    run = ok(scenario(runs, client, "hooks"))
    info = facts.FACTS[client]
    repo = run.home.parent.parent / "repo"
    sessions = set()
    for event in (info.events.session_start, info.events.per_prompt, info.events.after_tool):
        inputs = _inputs(run, event)
        assert inputs, (event, run.describe())
        for data in inputs:
            assert set(MEASURED[client].hook_input_fields) <= data.keys(), (event, data)
            assert data["hook_event_name"] == event, data
            assert Path(data["cwd"]).resolve() == repo.resolve(), data
            sessions.add(data["session_id"])
    assert len(sessions) == 1 and "" not in sessions, sessions
    prompt_input = _inputs(run, info.events.per_prompt)[0]
    assert set(MEASURED[client].prompt_input_fields) <= prompt_input.keys(), prompt_input
    assert "MARK-PROMPT-5d1" in prompt_input["prompt"], prompt_input


def test_after_tool_input_names_the_file(runs: Runs, client: str) -> None:
    """facts.file_tools / paths_from_tool_input: the after-tool input names the tool and
    its input (Claude Read and Gemini read_file: file_path; Codex Bash: the shell
    command), from which the facts' parser gets the file the model read."""
    run = ok(scenario(runs, client, "hooks"))
    info = facts.FACTS[client]
    repo = (run.home.parent.parent / "repo").resolve()
    data = _inputs(run, info.events.after_tool)[0]
    assert set(MEASURED[client].tool_input_fields) <= data.keys(), data
    assert data["tool_name"] in {tool.name for tool in info.file_tools}, data
    paths = tool_paths.paths_from_tool_input(client, data["tool_name"], data["tool_input"])
    assert [(repo / p).resolve() for p in paths] == [repo / SOURCE], data


def test_codex_apply_patch_input_names_the_file(runs: Runs) -> None:
    """facts.CODEX.file_tools (apply_patch, kind "patch"): Codex edits with apply_patch, whose
    after-tool input carries the patch under "command"; the facts' parser gets its file
    from the patch header, and the after-tool context reaches the next request."""
    client = installed("codex")
    run = ok(scenario(runs, client, "patch"))
    repo = (run.home.parent.parent / "repo").resolve()
    assert (repo / SOURCE).read_text() == "print(1)\n", run.describe()
    data = _inputs(run, facts.FACTS[client].events.after_tool)[0]
    assert data["tool_name"] == "apply_patch", data
    paths = tool_paths.paths_from_tool_input(client, data["tool_name"], data["tool_input"])
    assert paths == (SOURCE,), data
    event = facts.FACTS[client].events.after_tool
    assert reached(mark("CTX", event), run.model_requests) == [1], run.describe()


# -- (d) MCP server instructions ---------------------------------------------------------


def test_mcp_instructions_reach_the_model(runs: Runs, client: str) -> None:
    """facts.mcp: a stdio MCP server registered as the facts say (Claude --mcp-config,
    Gemini mcpServers with trust, Codex [mcp_servers] required) has its server
    instructions in every request, in a message of the role the facts name; all their
    lines, except Codex (default model): its first line only, cut at 250 characters."""
    run = ok(scenario(runs, client, "mcp"))
    requests = run.model_requests
    everywhere = list(range(len(requests)))
    assert reached("MARK-MCP-6a2", requests) == everywhere, run.describe()
    second_line = MEASURED[client].mcp_instructions_kept == "all"
    assert reached("MARK-MCP-7b3", requests) == (everywhere if second_line else []), run.describe()
    # facts.mcp.first_line_max: a first line longer than that is cut, ending "..."
    cut = facts.FACTS[client].mcp.first_line_max
    assert len(MCP_INSTRUCTIONS.split("\n")[0]) > (cut or 0)
    assert reached("MARK-MCP-8c4", requests) == ([] if cut else everywhere), run.describe()
    if cut:
        kept = MCP_INSTRUCTIONS[: cut - 3] + "..."
        assert reached(kept, requests) == everywhere, run.describe()
    roles = roles_carrying("MARK-MCP-6a2", requests[0])
    assert roles == {MEASURED[client].mcp_instructions_role}, (roles, run.describe())


def test_claude_does_not_wait_for_user_scope_mcp_servers(runs: Runs) -> None:
    """measured.CLAUDE.mcp_waits_for_server: claude -p does not wait for a server registered in
    ~/.claude.json: a slow one is "still connecting" when the request leaves, without its
    instructions (the --mcp-config server of the test above was waited for)."""
    client = installed("claude")
    assert "-p waits for --mcp-config servers only" in MEASURED["claude"].mcp_waits_for_server
    run = ok(scenario(runs, client, "slow_mcp"))
    first = run.model_requests[0]
    assert not reached("MARK-MCP-6a2", [first]), run.describe()
    assert "still connecting" in first.text and "probe" in first.text, run.describe()


def test_side_requests_are_not_the_conversation(runs: Runs, client: str) -> None:
    """The stub's split (tools offered or not) matches the clients: the conversation is
    the requests offering tools; Gemini's routing classifier is a side request."""
    run = ok(scenario(runs, client, "conventions"))
    side = [r for r in run.requests if not is_conversation_request(r)]
    if client == "gemini":
        assert any(":generateContent" in r.path for r in side), run.describe()
