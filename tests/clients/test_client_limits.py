"""Issue 29: what each real client does to the text on its way to the model, and that
the bridge's text gets through whole and as sent.

Pinned against the installed clients (one-shot, the loopback stub model records the
requests), each limit at its edge, from ``facts.ClientFacts``:

- ``inline_chars``: a hook's additionalContext of exactly that many characters reaches
  the model whole; one character more is saved to a file and the model gets a preview
  and the path (Claude Code: ``<persisted-output>``; Codex CLI: "Full hook output saved
  to"); Gemini CLI has no cap (``None``);
- ``mcp.instructions_chars``: Claude Code keeps 4096 characters of a server's
  instructions and cuts a longer text ("[truncated]");
- ``expands_at`` / ``escapes_markup``: Gemini CLI expands ``@name`` in session-start
  context into files (by name, or any file whose name holds it) and escapes ``<``/``>``;

and the bridge's real session start on a repository with ~30 KB of rules and 400 files
reaches each client whole, and Gemini gets no file it did not ask for.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from providers.clients import facts, setup
from providers.clients.mcp_session import FIRST_LINE
from tests.clients.bridge import BridgeEnv, prompt, session_start
from tests.clients.conftest import Runs, make_repo
from tests.clients.real_clients import (
    Hook,
    McpServer,
    Run,
    missing_reason,
    reached,
    run_client,
)
from tests.clients.test_mcp_clients import setup_mcp

HERE = Path(__file__).resolve().parent
PROMPT = "MARK-PROMPT-l29 answer please"
SPILLED = {"claude": "persisted-output", "codex": "Full hook output saved to"}
"""What a client puts before the model instead of a hook text it saved to a file."""

HOOK_SCRIPT = """\
import json, sys
event, path = sys.argv[1:3]
sys.stdin.read()
text = open(path, encoding="utf-8").read()
print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}))
"""


def sized(tag: str, size: int) -> str:
    """``size`` ASCII characters, words and spaces, starting and ending with a marker."""
    head, tail = f"MARK-{tag}-START ", f" MARK-{tag}-END"
    words = ("lorem ipsum dolor " * (size // 18 + 1))[: size - len(head) - len(tail)]
    text = head + words + tail
    assert len(text) == size
    return text


def text_hook(work: Path, event: str, text: str) -> Hook:
    """A hook at ``event`` answering ``text`` (from a file: it may be long)."""
    script = work / "text_hook.py"
    script.write_text(HOOK_SCRIPT, encoding="utf-8")
    path = work / f"hook-text-{event}.txt"
    path.write_text(text, encoding="utf-8")
    return Hook(event, shlex.join([sys.executable, str(script), event, str(path)]))


def bridge_hooks(client: str) -> list[Hook]:
    """The hooks exactly as ``setup`` writes them for ``client``."""
    plan = setup.Plan(client, Path("unused"), setup.hook_command(client), setup.events_for(client))
    return [Hook(event, plan.command, setup.HOOK_TIMEOUT_S) for event in plan.events]


# -- scenarios -----------------------------------------------------------------------


def limit_of(client: str) -> int:
    return facts.FACTS[client].inline_chars or 10_000


def run_inline(client: str, work: Path) -> Run:
    """Session start answers exactly the limit; the prompt event one character more."""
    events = facts.FACTS[client].events
    size = limit_of(client)
    repo = make_repo(work / "repo", {"README.md": "probe\n"})
    hooks = [
        text_hook(work, events.session_start, sized("AT", size)),
        text_hook(work, events.per_prompt, sized("OVER", size + 1)),
    ]
    return run_client(client, repo, PROMPT, hooks=hooks, workdir=work, timeout_s=120)


CLAUDE_CAP = facts.CLAUDE.mcp.instructions_chars or 4096


def run_instructions(client: str, work: Path) -> Run:
    repo = make_repo(work / "repo", {"README.md": "probe\n"})
    servers = [
        McpServer(name, sys.executable, (str(HERE / "mcp_server.py"), name, sized(tag, size)))
        for name, tag, size in (
            ("atcap", "MCPAT", CLAUDE_CAP),
            ("overcap", "MCPOVER", CLAUDE_CAP + 1),
        )
    ]
    return run_client(client, repo, PROMPT, mcp=servers, workdir=work, timeout_s=120)


AT_RULES = (
    "# Agents\n\nMARK-AT-RULES. Ask @claude review before merging; the UI lives in "
    "@cline/ui; start from @src/a.py. Mail ops@example.org. Keep a < b and b > c.\n"
)
AT_FILES = {
    "AGENTS.md": AT_RULES,
    "tools/claude-review-settings.json": '{"marker": "MARK-AT-JSON"}\n',
    "cline/ui/view.proto": "// MARK-AT-PROTO\n",
    "src/a.py": "print('MARK-AT-PY')\n",
}
AT_PULLED = ("MARK-AT-JSON", "MARK-AT-PROTO", "MARK-AT-PY")


def run_gemini_raw(client: str, work: Path) -> Run:
    """The convention file's text as it is, as session-start context: what Gemini does."""
    repo = make_repo(work / "repo", AT_FILES)
    hook = text_hook(work, facts.GEMINI.events.session_start, AT_RULES)
    return run_client(client, repo, PROMPT, hooks=[hook], workdir=work, timeout_s=120)


def big_repository(root: Path) -> Path:
    """~30 KB of rules no client loads by itself, skills, 400 source files."""
    rule = "Rule text to follow, word for word, every time. " * 40 + "\n"
    files = {
        f".cursor/rules/rule-{i}.mdc": f"---\nalwaysApply: true\n---\nMARK-BIG-RULE-{i}.\n{rule}"
        for i in range(12)
    }
    # No client loads this file by itself (AGENTS.md would be loaded, and expanded, by
    # Claude Code and Codex CLI): its @ mentions reach the model only from the bridge.
    files[".github/copilot-instructions.md"] = AT_RULES + "\nMARK-BIG-COPILOT.\n" + rule
    for i in range(6):
        files[f".claude/skills/skill-{i}/SKILL.md"] = (
            f"---\nname: skill-{i}\ndescription: does thing {i} for the project\n---\nBody.\n"
        )
    for i in range(400):
        files[f"src/pkg_{i // 40}/module_{i}.py"] = f"X = {i}\n"
    files.update({k: v for k, v in AT_FILES.items() if k != "AGENTS.md"})
    return make_repo(root, files)


def run_bridge_big(client: str, work: Path, bridge: BridgeEnv) -> Run:
    repo = big_repository(work / "repo")
    env = bridge.for_client()
    return run_client(
        client,
        repo,
        PROMPT,
        hooks=bridge_hooks(client),
        extra_env=env,
        workdir=work,
        timeout_s=180,
    )


def run_mcp_big(client: str, work: Path, bridge: BridgeEnv) -> Run:
    """Our MCP server, registered by ``setup --mcp``, on the big repository."""
    repo = big_repository(work / "repo")
    env = bridge.for_client(console_scripts=True)  # a project names them bare
    env["CONTEXT_PROVIDERS_MCP_START_S"] = "30"
    return run_client(
        client,
        repo,
        PROMPT,
        extra_env=env,
        workdir=work,
        timeout_s=180,
        prepare=setup_mcp(client, repo),
    )


def installed(client: str) -> str:
    reason = missing_reason(client)
    if reason is not None:
        pytest.skip(reason)
    return client


def get(runs: Runs, key: str, start: Callable[[Path], Run]) -> Run:
    run = runs.get(f"limits-{key}", start)
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    assert run.model_requests, run.describe()
    return run


@pytest.fixture(scope="module")
def started(runs: Runs, bridge: BridgeEnv) -> None:
    """Every run of this module, three at a time."""
    for client in facts.FACTS:
        if missing_reason(client) is None:
            runs.prefetch(f"limits-inline-{client}", _inline(client))
            runs.prefetch(f"limits-big-{client}", _big(client, bridge))
    if missing_reason("gemini") is None:
        runs.prefetch("limits-gemini-raw", lambda w: run_gemini_raw("gemini", w))
    if missing_reason("claude") is None:
        runs.prefetch("limits-instructions", lambda w: run_instructions("claude", w))
        runs.prefetch("limits-mcp-big", lambda w: run_mcp_big("claude", w, bridge))


def _inline(client: str) -> Callable[[Path], Run]:
    return lambda work: run_inline(client, work)


def _big(client: str, bridge: BridgeEnv) -> Callable[[Path], Run]:
    return lambda work: run_bridge_big(client, work, bridge)


# -- tests ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_hook_text_at_the_cap_arrives_whole_one_more_is_spilled(
    client: str, runs: Runs, started: None
) -> None:
    """facts.inline_chars: Claude Code keeps 10,000 characters (its .length) of one hook's
    additionalContext, Codex CLI 2,500 tokens of ceil(bytes / 4), both 10,000 ASCII
    characters; one more is saved to a file (the model sees a preview and the path).
    Gemini CLI (None) passes both whole."""
    run = get(runs, f"inline-{client}", lambda w: run_inline(client, w))
    first = run.model_requests[:1]
    size = limit_of(client)
    assert reached(sized("AT", size), first), run.describe()
    over = sized("OVER", size + 1)
    if facts.FACTS[client].inline_chars is None:
        assert reached(over, first), run.describe()
        return
    assert not reached(over, first), run.describe()
    assert reached("MARK-OVER-START", first), run.describe()  # the preview's head
    assert reached(SPILLED[client], first), run.describe()


@pytest.mark.slow
def test_claude_keeps_4096_characters_of_mcp_instructions(runs: Runs, started: None) -> None:
    """facts.CLAUDE.mcp.instructions_chars: instructions of 4096 characters reach the
    model whole; 4097 are cut, ending "[truncated]"."""
    installed("claude")
    run = get(runs, "instructions", lambda w: run_instructions("claude", w))
    first = run.model_requests[:1]
    assert reached(sized("MCPAT", CLAUDE_CAP), first), run.describe()
    assert not reached(sized("MCPOVER", CLAUDE_CAP + 1), first), run.describe()
    assert not reached("MARK-MCPOVER-END", first), run.describe()
    assert reached("[truncated]", first), run.describe()


@pytest.mark.slow
def test_our_mcp_instructions_reach_claude_whole(
    runs: Runs, bridge: BridgeEnv, started: None
) -> None:
    """Issue 29 item 1: our server's instructions on the big repository fit Claude Code's
    4096 characters: nothing cut, the first rules there, the rest named for the tool."""
    installed("claude")
    run = get(runs, "mcp-big", lambda w: run_mcp_big("claude", w, bridge))
    first = run.model_requests[:1]
    assert reached(FIRST_LINE, first), run.describe() + bridge.log()
    assert reached("MARK-AT-RULES.", first), run.describe()
    assert reached("(call conventions).", first), run.describe()
    assert not reached("[truncated]", first), run.describe()


@pytest.mark.slow
def test_gemini_expands_at_mentions_and_escapes_angle_brackets(runs: Runs, started: None) -> None:
    """facts.GEMINI.expands_at, escapes_markup: session-start context with ``@claude``,
    ``@cline/ui`` and ``@src/a.py`` pulls those files (the first by a file whose name
    holds "claude") into the request; ``<`` and ``>`` arrive as ``&lt;`` and ``&gt;``."""
    installed("gemini")
    run = get(runs, "gemini-raw", lambda w: run_gemini_raw("gemini", w))
    first = run.model_requests[:1]
    for marker in AT_PULLED:
        assert reached(marker, first), (marker, run.describe())
    assert reached("a &lt; b and b &gt; c", first), run.describe()


@pytest.mark.slow
def test_the_bridge_session_start_on_a_big_repository_arrives_whole(
    client: str, runs: Runs, bridge: BridgeEnv, started: None
) -> None:
    """Issue 29 items 1 and 2: ~30 KB of rules no client loads, skills, 400 files: nothing
    the bridge sends is spilled to a file; before the first request the model has the
    first rules, git status and the file tree (session start, then the first prompt
    carrying what did not fit); Gemini pulls in no file for our ``@`` mentions, and our
    framing arrives as sent."""
    run = get(runs, f"big-{client}", lambda w: run_bridge_big(client, w, bridge))
    requests = run.model_requests
    first = requests[:1]
    for spill in SPILLED.values():
        assert not reached(spill, requests), run.describe()
    # git status, from us, or from Claude Code's own snapshot (we send none then)
    ours = "Current branch: " if facts.NATIVE[client].git_snapshot else "On branch "
    for marker in ("MARK-BIG-RULE-0.", ours, "(shown: "):
        assert reached(marker, first), (marker, run.describe())
    assert reached("--- .cursor/rules/rule-0.mdc ---", first), run.describe()
    for marker in AT_PULLED:
        assert not reached(marker, requests), (marker, run.describe())
    if client == "gemini":
        assert reached("Ask \\@claude review", first), run.describe()
    else:
        assert reached("Ask @claude review", first), run.describe()
    assert not reached("&lt;context", requests), run.describe()


def test_texts_are_sized_as_said() -> None:
    assert len(sized("X", 10_000)) == 10_000
    assert json.loads(json.dumps(sized("X", 50))) == sized("X", 50)


AT_SAMPLES = (
    "Ask @claude review; see @cline/ui and @src/a.py. Mail ops@example.org.",
    'x @ y, (@) [@a] {@b} @. @a. @"two words" end @',
    "escaped \\@name, @.github/x, @a.b.c! @~/notes @../up @tail",
)


def test_the_at_pattern_is_the_installed_gemini_clis() -> None:
    """facts.GEMINI_AT_COMMAND finds exactly the ``@`` Gemini CLI's own pattern (read from
    the installed bundle's atCommandProcessor: ``(?<!\\\\)@`` and its path pattern) starts
    a match at, in text full of near misses; and neutralise_at leaves it none."""
    installed("gemini")
    bundle = HERE.parent.parent / ".clients/node_modules/@google/gemini-cli/bundle"
    literals = {
        line.split(" = ", 1)[1].rstrip(";")
        for path in bundle.glob("chunk-*.js")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("var AT_COMMAND_PATH_REGEX_SOURCE = ")
    }
    assert len(literals) == 1, literals
    source = literals.pop()[1:-1].replace("\\\\", "\\")  # the JavaScript string's value
    theirs = re.compile(r"(?<!\\)@" + source.replace("(?!$|", r"(?!\Z|"))
    for text in AT_SAMPLES:
        expected = [m.start() for m in theirs.finditer(text)]
        assert [m.start() for m in facts.GEMINI_AT_COMMAND.finditer(text)] == expected, text
        assert expected and not theirs.search(facts.neutralise_at(text)), text


@pytest.mark.parametrize("client", ["claude", "codex", "gemini"])
def test_each_hook_text_fits_the_client_and_what_waits_follows(
    client: str, bridge: BridgeEnv, tmp_path: Path
) -> None:
    """Issue 29 item 1, the hook commands alone: on the big repository every hook text is
    within the client's inline_chars; session start names what waits and the first
    prompt carries it (within the start budget); the next prompt adds nothing."""
    repo = big_repository(bridge.base / f"big-{client}").resolve()
    cap = facts.FACTS[client].inline_chars
    start = bridge.hook(client, session_start(client, "s", repo), cwd=repo).context
    first = bridge.hook(client, prompt(client, "s", repo), cwd=repo).context
    assert start.startswith("--- .github/copilot-instructions.md ---\n")
    # git status, unless the client shows its own snapshot (Claude Code: never twice)
    assert ("On branch " in start) != facts.NATIVE[client].git_snapshot
    if cap is None:  # Gemini CLI: all at once, within the start budget
        assert "--- file tree ---\n" in start and first == ""
    else:
        for text in (start, first):
            assert facts.inline_size(text) <= cap, len(text)
        assert start.rstrip().endswith("(sent later, for lack of room here: file tree)")
        assert first.startswith("--- file tree ---\n")
    assert bridge.hook(client, prompt(client, "s", repo), cwd=repo).context == ""
