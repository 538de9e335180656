"""Never twice, and the reads the clients miss (issue 29 items 3 and 4), with the real
clients against the stub model and the hooks ``setup`` writes: what a client shows the
model by itself (facts.NATIVE, loaded.OwnLoads) reaches each request once, and what it
does not follow (Claude Code's Bash reads, Gemini CLI's shell) brings the file's scoped
docs. Measured on Claude Code 2.1.328, Gemini CLI 0.61.0, Codex CLI 0.169.0."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from providers.clients import facts
from tests.clients.bridge import BridgeEnv, make_repo
from tests.clients.conftest import Runs
from tests.clients.real_clients import Run, missing_reason, reached, run_client
from tests.clients.stub_model import ClaudeTool, ReadFile, Reply, Shell, Text
from tests.clients.test_bridge_clients import registered
from tests.conftest import GIT_ENV

SKILL = "---\nname: {0}\ndescription: {0} skill marker TW-SK-{0}.\n---\nbody\n"
READ_FILES = {
    "AGENTS.md": "# Agents\n\nRoot marker TW-ROOT.\n",
    "src/AGENTS.md": "Nested marker TW-NEST.\n",
    "src/a.py": "x = 1  # TW-FILE\n",
    ".cursor/rules/python.mdc": '---\nglobs: "**/*.py"\n---\nCursor marker TW-CURSOR.\n',
}
BASH_FILES = {
    "AGENTS.md": "# Agents\n\nRoot marker TW-ROOT.\n",
    "src/AGENTS.md": "Nested marker TW-NEST.\n",
    "src/CLAUDE.md": "Nested Claude marker TW-SRC-CLAUDE.\n",
    "src/a.py": "x = 1  # TW-FILE\n",
    "lib/CLAUDE.md": "Nested Claude marker TW-LIB-CLAUDE.\n",
    "lib/b.py": "y = 2  # TW-FILE-B\n",
    "pkg/CLAUDE.md": "Nested Claude marker TW-PKG-CLAUDE.\n",
    ".claude/rules/src.md": "---\npaths: src/**\n---\nRule marker TW-RULE-SRC.\n",
    ".claude/rules/lib.md": "---\npaths: lib/**\n---\nRule marker TW-RULE-LIB.\n",
    ".cursor/rules/python.mdc": '---\nglobs: "**/*.py"\n---\nCursor marker TW-CURSOR.\n',
}
SKILL_FILES = {
    "src/a.py": "x = 1  # TW-FILE\n",
    ".cursor/rules/python.mdc": '---\nglobs: "**/*.py"\n---\nCursor marker TW-CURSOR.\n',
    **{
        f"{folder}/skills/{name}/SKILL.md": SKILL.format(name)
        for folder, name in (
            (".claude", "claude"),
            (".agents", "agents"),
            (".gemini", "gemini"),
            (".codex", "codex"),
            (".github", "github"),
        )
    },
}
GIT_IDENTITY = {k: v for k, v in GIT_ENV.items() if k.startswith("GIT_")}


def _run(
    client: str,
    bridge: BridgeEnv,
    work: Path,
    files: dict[str, str],
    script: list[Reply],
    *,
    prompt: str = "Look at src/a.py. TW-PROMPT",
    symlinks: dict[str, str] | None = None,
    extra_args: tuple[str, ...] = (),
    stdin_text: str | None = None,
) -> Run:
    repo = make_repo(work / "repo", files)
    if symlinks:
        for link, target in symlinks.items():
            os.symlink(target, repo / link)
    env = bridge.for_client()
    return run_client(
        client,
        repo,
        prompt,
        script=script,
        hooks=registered(client),
        extra_env={**env, **GIT_IDENTITY},
        extra_args=extra_args,
        workdir=work,
        timeout_s=180,
        stdin_text=stdin_text,
    )


def claude_read(bridge: BridgeEnv, work: Path) -> Run:
    """CLAUDE.md a symlink to AGENTS.md, at the root and in src/; a Read of src/a.py."""
    links = {"CLAUDE.md": "AGENTS.md", "src/CLAUDE.md": "AGENTS.md"}
    return _run(
        "claude",
        bridge,
        work,
        READ_FILES,
        [ReadFile(str(work / "repo" / "src/a.py")), Text("done")],
        symlinks=links,
    )


def claude_bash(bridge: BridgeEnv, work: Path) -> Run:
    """A Bash read Claude Code follows itself, then one it does not (a pipe)."""
    script: list[Reply] = [
        Shell("cat src/a.py"),
        Shell("nl -ba lib/b.py | sed -n 1,40p"),
        Text("done"),
    ]
    return _run("claude", bridge, work, BASH_FILES, script, extra_args=("--allowedTools", "Bash"))


def claude_two_prompts(bridge: BridgeEnv, work: Path) -> Run:
    """Two prompts in one session (stream-json); the first commits through Bash."""
    messages = "".join(
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            }
        )
        + "\n"
        for text in ("First prompt TW-ONE", "Second prompt TW-TWO")
    )
    script: list[Reply] = [Shell("git commit --allow-empty -qm TW-COMMIT"), Text("done")]
    args = (
        "--allowedTools",
        "Bash",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
    )
    return _run(
        "claude",
        bridge,
        work,
        READ_FILES,
        script,
        prompt="",
        extra_args=args,
        stdin_text=messages,
    )


def skills_run(client: str, bridge: BridgeEnv, work: Path) -> Run:
    """Skills in five folders; a shell read (Gemini CLI offers its shell in yolo mode)."""
    if client == "gemini":
        script: list[Reply] = [Shell("cat src/a.py"), Text("done")]
        args: tuple[str, ...] = ("--approval-mode", "yolo")
    else:
        path = str(work / "repo" / "src/a.py") if client == "claude" else "src/a.py"
        script, args = [ReadFile(path), Text("done")], ()
    return _run(client, bridge, work, SKILL_FILES, script, extra_args=args)


@pytest.fixture(scope="module")
def twice_runs(bridge: BridgeEnv, runs: Runs) -> dict[str, Run]:
    starts = {
        "twice-claude-read": lambda w: claude_read(bridge, w),
        "twice-claude-bash": lambda w: claude_bash(bridge, w),
        "twice-claude-prompts": lambda w: claude_two_prompts(bridge, w),
    }
    if missing_reason("claude") is not None:
        starts = {}
    for client in facts.FACTS:
        if missing_reason(client) is None:
            starts[f"twice-skills-{client}"] = lambda w, c=client: skills_run(c, bridge, w)
    for key, start in starts.items():
        runs.prefetch(key, start)
    return {key: runs.get(key, start) for key, start in starts.items()}


def _claude(twice_runs: dict[str, Run], key: str) -> Run:
    reason = missing_reason("claude")
    if reason is not None:
        pytest.skip(reason)
    run = twice_runs[key]
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    return run


@pytest.mark.slow
def test_claude_a_symlinked_or_nested_file_it_loaded_is_not_sent_again(
    twice_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    """CLAUDE.md -> AGENTS.md: Claude Code loads the text once under CLAUDE.md, and we do
    not send AGENTS.md; after the Read, src/CLAUDE.md (-> src/AGENTS.md) is its own."""
    run = _claude(twice_runs, "twice-claude-read")
    requests = run.model_requests
    last = requests[-1].text
    assert requests[0].text.count("Root marker TW-ROOT.") == 1, run.describe()
    assert reached("TW-FILE", requests) and last.count("Nested marker TW-NEST.") == 1, (
        run.describe() + bridge.log()
    )
    assert last.count("Cursor marker TW-CURSOR.") == 1, run.describe()  # ours, once


@pytest.mark.slow
def test_claude_bash_reads_bring_what_claude_does_not_attach(
    twice_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    """`cat src/a.py`: Claude attaches src/CLAUDE.md and the src rule itself, we add the
    Cursor rule and src/AGENTS.md (Bash brings no nested AGENTS.md); `nl -ba lib/b.py |
    sed`: Claude attaches nothing, we send lib/CLAUDE.md and the lib rule. Each once."""
    run = _claude(twice_runs, "twice-claude-bash")
    requests = run.model_requests
    assert len(requests) >= 3 and "TW-FILE-B" in requests[-1].text, run.describe()
    after_cat, last = requests[1].text, requests[-1].text
    for marker in ("TW-SRC-CLAUDE", "TW-RULE-SRC", "TW-CURSOR", "TW-NEST"):
        assert after_cat.count(f"marker {marker}.") == 1, (marker, run.describe() + bridge.log())
    for marker in ("TW-SRC-CLAUDE", "TW-RULE-SRC", "TW-CURSOR", "TW-NEST"):
        assert last.count(f"marker {marker}.") == 1, (marker, run.describe())
    for marker in ("TW-LIB-CLAUDE", "TW-RULE-LIB"):
        assert last.count(f"marker {marker}.") == 1, (marker, run.describe() + bridge.log())


@pytest.mark.slow
def test_claude_git_status_only_once_it_changed(
    twice_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    """Claude Code's own git snapshot is in its system prompt, never refreshed: no git
    status of ours at the start; at the next prompt, after a commit, ours is sent."""
    run = _claude(twice_runs, "twice-claude-prompts")
    requests = run.model_requests
    first = requests[0].text
    assert "Current branch: main" in first and "On branch main" not in first, run.describe()
    second = [r.text for r in requests if "TW-TWO" in r.text]
    assert second, run.describe()
    assert "--- git status (updated) ---" in second[0], run.describe() + bridge.log()
    assert second[0].count("TW-COMMIT") >= 1
    assert not reached("--- git status (updated) ---", requests[:1])


@pytest.mark.slow
def test_skills_and_listing_the_client_shows_are_not_repeated(
    client: str, twice_runs: dict[str, Run], bridge: BridgeEnv
) -> None:
    """Each client lists its own skills folders (Claude .claude/skills, Gemini .agents
    and .gemini, Codex .agents and .codex): those skills once, ours (.github/skills)
    added; Gemini CLI lists a small repository whole, so no file tree of ours."""
    run = twice_runs[f"twice-skills-{client}"]
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    requests = run.model_requests
    first = requests[0].text
    for name in ("claude", "agents", "gemini", "codex", "github"):
        assert first.count(f"{name} skill marker TW-SK-{name}.") == 1, (name, run.describe())
    native = facts.NATIVE[client]
    for folder in native.skill_roots:  # the client's own listing, not ours
        name = folder.split("/")[0].lstrip(".")
        assert f"({folder}/{name}/SKILL.md)" not in first, (folder, run.describe())
    assert ("(shown: " in first) != bool(native.listing_items), run.describe() + bridge.log()
    # the file read (Gemini: through run_shell_command) brings its scoped doc
    assert reached("Cursor marker TW-CURSOR.", requests[1:]), run.describe() + bridge.log()


def baseline(client: str, work: Path) -> Run:
    """No hooks: what the client shows by itself (the figures facts.NATIVE states)."""
    repo = make_repo(work / "repo", {**SKILL_FILES, **BASH_FILES})
    script: list[Reply]
    if client == "claude":
        write = {"file_path": str(repo / "pkg/new.py"), "content": "z = 3\n"}
        script = [
            Shell("cat src/a.py"),
            Shell("nl -ba lib/b.py | sed -n 1,40p"),
            ClaudeTool("Write", write),
            Text("done"),
        ]
    else:
        script = [ReadFile("src/a.py"), Text("done")]
    args = ("--allowedTools", "Bash,Write") if client == "claude" else ()
    return run_client(
        client, repo, "Look at src/a.py.", script=script, extra_args=args, workdir=work
    )


@pytest.mark.slow
def test_what_each_client_shows_by_itself(client: str, runs: Runs) -> None:
    """facts.NATIVE against the real client, with no hooks: Claude Code's git snapshot,
    Gemini CLI's listing of up to 200 items, the skills folders each lists (one level
    down), and which Bash reads Claude Code follows (claude_bash: cat yes, a pipe no; a
    nested AGENTS.md never through Bash)."""
    run = runs.get(f"twice-native-{client}", lambda w: baseline(client, w))
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    native = facts.NATIVE[client]
    requests = run.model_requests
    first = requests[0].text
    assert ("Current branch: main" in first) == native.git_snapshot, run.describe()
    listing = f"Showing up to {native.listing_items} items"
    assert (listing in first) == bool(native.listing_items), run.describe()
    for name in ("claude", "agents", "gemini", "codex", "github"):
        listed = f"TW-SK-{name}." in first
        assert listed == (f".{name}/skills" in native.skill_roots), (name, run.describe())
    if client == "claude":
        assert len(requests) >= 4, run.describe()
        after_cat, after_pipe, last = requests[1].text, requests[2].text, requests[-1].text
        assert "TW-SRC-CLAUDE" in after_cat and "TW-RULE-SRC" in after_cat, run.describe()
        assert "TW-NEST" not in last, run.describe()  # beside src/CLAUDE.md; and Bash
        assert "TW-FILE-B" in after_pipe and "TW-LIB-CLAUDE" not in after_pipe, run.describe()
        assert "TW-RULE-LIB" not in after_pipe, run.describe()
        assert "TW-PKG-CLAUDE" in last, run.describe()  # Write attaches it
