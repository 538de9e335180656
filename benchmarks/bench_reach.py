"""Issue 29's measurement: what of the context we send reaches the model, per client.

On real repositories (pinned commits, checked out into a temporary directory), with each
real client (Claude Code, Gemini CLI, Codex CLI, from ``.clients/``, offline against the
loopback stub model of ``tests/clients/stub_model.py``), one short scripted session:
session start, a prompt, the model reading one file (Claude: ``Read``; Gemini:
``read_file``; Codex: ``cat`` in its shell), for Claude also one ``Bash`` ``cat`` of
another file, and a final answer. Each in three modes:

- ``baseline``: no hooks, no server: what the client sends by itself (its own
  AGENTS.md/CLAUDE.md/GEMINI.md, git snapshot, folder listing, skills listing);
- ``hooks``: our hooks as ``context-providers setup CLIENT`` registers them;
- ``mcp``: our MCP server as ``context-providers setup CLIENT --mcp`` registers it.

Between the client and our hook command (or server) sits ``reach_tap.py``, which records
what we printed, unchanged. Reported per repository x client x mode: characters we sent
(hook additionalContext, MCP instructions), characters of them found in the recorded
request bodies (line by line; Gemini's HTML escaping undone), whether the client spilled
or cut them (Claude: "Output too large ... saved to" with a preview; Codex: "...N tokens
truncated..."; MCP instructions shorter on arrival), files Gemini inlined for ``@``
mentions in our text, our lines that the client had already sent by itself in the
baseline run (duplicates), and for Claude whether the ``Bash`` ``cat`` brought that
file's scoped docs.

    ./dev python benchmarks/bench_reach.py [--repos llm,crush] [--clients claude,codex]
        [--modes hooks,mcp] [--project DIR] [--timeout 240] [--jobs 2] [--out FILE]

``--project DIR`` measures another checkout of this project (its ``.venv``, made by its
``./dev``): its ``setup`` registers the hooks and the server, its hook and server run.
The harness (clients, stub, this script) stays this checkout's. Repositories come from
``--mirrors DIR`` (``owner+name/repo`` bare git directories) or are cloned from GitHub;
``--local NAME=DIR`` adds a repository on disk (its first two tracked source files are
read). A client that is missing or fails is a row saying so.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.clients.bridge import BridgeEnv  # noqa: E402
from tests.clients.real_clients import (  # noqa: E402
    Run,
    installed_version,
    missing_reason,
    run_client,
)
from tests.clients.stub_model import ReadFile, Reply, Shell, Text  # noqa: E402

TAP = Path(__file__).resolve().parent / "reach_tap.py"
CLIENTS = ("claude", "gemini", "codex")
MODES = ("hooks", "mcp")
HOOK_MARK = "providers/clients/hook.py"
LAUNCHER = "context-providers-hook"
"""What setup's hook command runs: the launcher (now), or the hook file (before)."""
SERVER = "context_providers"
PROMPT = "Read {read} and tell me in one sentence what it does."
MIN_LINE = 8
"""A line of our text shorter than this (stripped) is judged with the line before it."""
MIN_DUP = 20
"""A line of ours counts as a duplicate of the client's own text from this length."""
CLAUDE_SPILL = "Output too large"
CODEX_CUT = re.compile(r"tokens truncated")
GEMINI_AT_START = "--- Content from referenced files ---"
GEMINI_AT_END = "--- End of content ---"
GEMINI_AT_FILE = re.compile(r"Content from @([^\s:]+):")
LABEL = re.compile(r'<context label="([^"]*)">')


@dataclass(frozen=True)
class Repo:
    name: str
    github: str
    commit: str
    kind: str
    read: str
    cat: str
    local: Path | None = None


REPOS = (
    Repo(
        "llm",
        "simonw/llm",
        "f3f4f29c6e5e623c3776cbf6455dda2345638214",
        "Python project, short AGENTS.md",
        "llm/cli.py",
        "llm/models.py",
    ),
    Repo(
        "crush",
        "charmbracelet/crush",
        "37f36e93824e5c4f892e4a817f7f628e2682fe14",
        "Go project, AGENTS.md root and nested, .agents/skills",
        "internal/ui/anim/anim.go",
        "internal/oauth/callback/page.go",
    ),
    Repo(
        "gemini-cli",
        "google-gemini/gemini-cli",
        "5411f113cafae26161b4969b0237b8e1e024e2c2",
        "TypeScript monorepo (npm workspaces), GEMINI.md root and per package, .gemini/skills",
        "packages/core/src/agent/agent-session.ts",
        "packages/cli/src/deferred.ts",
    ),
    Repo(
        "pydantic-ai",
        "pydantic/pydantic-ai",
        "4fda38988f2939fa6ea9cdefcf120693e10ef491",
        "long convention files and skills: AGENTS.md 15 KB + nested, CLAUDE.md links, "
        ".claude/skills, .agents/skills, a .cursor rule",
        "pydantic_ai_slim/pydantic_ai/capabilities/__init__.py",
        "docs/realtime/audio.md",
    ),
    Repo(
        "ts-sdk",
        "modelcontextprotocol/typescript-sdk",
        "3924de99df834302d89f5997a1b64ca268282284",
        "TypeScript monorepo (pnpm), CLAUDE.md only (15 KB) + nested",
        "packages/client/src/stdio.ts",
        "test/e2e/coverage.test.ts",
    ),
    Repo(
        "agents-py",
        "openai/openai-agents-python",
        "7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7",
        "Python, AGENTS.md of 34 KB (CLAUDE.md links it), 14 skills",
        "src/agents/agent.py",
        "tests/test_agent_config.py",
    ),
)


# -- the project measured -----------------------------------------------------------------


@dataclass(frozen=True)
class Project:
    """The checkout whose hooks and server are measured: its ``.venv``'s python."""

    root: Path
    python: Path

    @classmethod
    def at(cls, root: Path) -> Project:
        root = root.resolve()
        python = root / ".venv" / "bin" / "python"
        if root == ROOT and not python.exists():
            python = Path(sys.executable)  # this checkout, in another environment (DEV_VENV)
        if not python.exists():
            raise SystemExit(f"{python} not found: run {root / 'dev'} python -c pass first")
        return cls(root, python)

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        return {**base, "PYTHONPATH": str(self.root)}

    def describe(self) -> str:
        """The checkout, its commit and the last commit that changed ``providers/``."""

        def git_out(*argv: str) -> str:
            done = subprocess.run(
                ["git", "-C", str(self.root), *argv], capture_output=True, text=True, check=False
            )
            return done.stdout.strip()

        head = git_out("rev-parse", "--short", "HEAD")
        if not head:
            return f"{self.root} (not a git checkout)"
        changed = git_out("log", "-1", "--format=%h %cs", "--", "providers")
        dirty = git_out("status", "--porcelain", "--", "providers")
        return (
            f"`{self.root}` at `{head}` (`providers/` last changed in `{changed}`"
            + (", with uncommitted changes" if dirty else "")
            + ")"
        )

    def setup(self, client: str, env: Mapping[str, str], cwd: Path, *extra: str) -> None:
        """``context-providers setup CLIENT --scope user`` of that checkout, into the run's
        own HOME (and CODEX_HOME)."""
        argv = [str(self.python), "-m", "providers", "setup", client, "--scope", "user", *extra]
        subprocess.run(
            argv, cwd=cwd, env=self.env(env), check=True, capture_output=True, timeout=120
        )

    def warm(self, client: str, repo: Path, env: Mapping[str, str]) -> None:
        """Start the repository's background process with a throwaway session, so the
        measured session does not race its cold start (what a second session sees)."""
        hook = self.root / HOOK_MARK
        payload = {
            "hook_event_name": "SessionStart",  # the same name in all three clients
            "session_id": "bench-reach-warm-up",
            "cwd": str(repo),
            "transcript_path": str(repo / ".t.jsonl"),
            "source": "startup",
        }
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                [str(self.python), "-S", "-E", "-s", str(hook), client],
                input=json.dumps(payload).encode(),
                cwd=repo,
                env=dict(env),
                capture_output=True,
                timeout=120,
                check=False,
            )


# -- repositories ---------------------------------------------------------------------------


def git(*argv: str, cwd: Path | None = None, timeout: float = 600) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd or "/"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    done = subprocess.run(
        ["git", *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode:
        raise RuntimeError(f"git {' '.join(argv)}: {done.stderr.strip()[-400:]}")
    return done.stdout


def check_out(repo: Repo, into: Path, mirrors: Path) -> Path:
    """A working tree of ``repo`` at its pinned commit, on a branch ``main``."""
    dest = into / repo.name
    if repo.local is not None:
        git("clone", "-q", "--no-hardlinks", str(repo.local), str(dest))
        return dest.resolve()
    mirror = mirrors / repo.github.replace("/", "+") / "repo"
    source = str(mirror) if mirror.exists() else f"https://github.com/{repo.github}.git"
    shared = ["--shared"] if mirror.exists() else ["--filter=blob:none"]
    git("clone", "-q", *shared, "--no-checkout", source, str(dest))
    git("checkout", "-q", "-B", "main", repo.commit, cwd=dest)
    return dest.resolve()


def local_repo(spec: str) -> Repo:
    name, _, path = spec.partition("=")
    root = Path(path).resolve()
    files = sorted(
        (
            f
            for f in git("ls-files", cwd=root).splitlines()
            if not re.search(r"(^|/)(AGENTS|CLAUDE|GEMINI)\.md$|(^|/)\.", f)
        ),
        key=lambda f: (f.endswith(".md"), f),
    )
    if len(files) < 2:
        raise SystemExit(f"{root}: needs two tracked files besides convention files")
    return Repo(
        name, "", git("rev-parse", "HEAD", cwd=root).strip(), "local", files[0], files[1], root
    )


# -- one run ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One client x repository x mode: the run and what we sent in it."""

    repo: str
    client: str
    mode: str
    status: str = "ok"
    run: Run | None = None
    hook_calls: list[dict[str, Any]] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    bash_docs: str | None = None
    """Claude: the scoped docs the bridge has for the file of the Bash cat."""
    log_problems: list[str] = field(default_factory=list)
    scripted: str = ""
    """The prompt and the files the script reads: in every run's requests, not loaded by
    the client itself."""


def script_for(client: str, repo: Repo, root: Path) -> list[Reply]:
    if client == "claude":
        return [ReadFile(str(root / repo.read)), Shell(f"cat {repo.cat}"), Text("Done.")]
    return [ReadFile(repo.read), Text("Done.")]


def wrap_hooks(node: Any, capture: Path) -> Any:
    """The settings with each of our hook commands run through the tap."""
    if isinstance(node, dict):
        out = {k: wrap_hooks(v, capture) for k, v in node.items()}
        command = out.get("command")
        if isinstance(command, str) and (HOOK_MARK in command or LAUNCHER in command):
            out["command"] = shlex.join(
                [sys.executable, "-S", str(TAP), "hook", str(capture), command]
            )
        return out
    if isinstance(node, list):
        return [wrap_hooks(v, capture) for v in node]
    return node


def tapped_server(entry: Mapping[str, Any], capture: Path) -> tuple[str, list[str]]:
    return sys.executable, [
        "-S",
        str(TAP),
        "mcp",
        str(capture),
        str(entry["command"]),
        *[str(a) for a in entry.get("args") or []],
    ]


def rewrite_json(path: Path, change: Callable[[Any], Any]) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text())), indent=2), encoding="utf-8")


def prepare_for(
    project: Project, client: str, mode: str, repo: Path, work: Path
) -> Callable[[Mapping[str, str]], Sequence[str]]:
    """What runs once the harness has written the client's own settings: our setup, then
    the tap around our command; returns the client's extra arguments."""
    capture = work / "capture.jsonl"

    def prepare(env: Mapping[str, str]) -> Sequence[str]:
        home = Path(env["HOME"])
        extra: list[str] = []
        if client == "claude":
            extra += ["--allowedTools", "Read", "Bash(cat:*)"]
        if mode == "baseline":
            return extra
        if mode == "hooks":
            project.setup(client, env, repo)
            if client == "codex":
                path = Path(env["CODEX_HOME"]) / "hooks.json"
                extra += ["--dangerously-bypass-hook-trust"]
            else:
                path = home / f".{client}" / "settings.json"
            rewrite_json(path, lambda data: wrap_hooks(data, capture))
            return extra
        project.setup(client, env, repo, "--mcp")
        if client == "codex":
            config = Path(env["CODEX_HOME"]) / "config.toml"
            text = config.read_text(encoding="utf-8")
            entry = tomllib.loads(text)["mcp_servers"][SERVER]
            command, args = tapped_server(entry, capture)
            text = re.sub(r"(?m)^command = .*$", f"command = {json.dumps(command)}", text, count=1)
            text = re.sub(r"(?m)^args = \[.*\]$", f"args = {json.dumps(args)}", text, count=1)
            config.write_text(text, encoding="utf-8")
            return extra
        settings = home / (".claude.json" if client == "claude" else ".gemini/settings.json")
        data = json.loads(settings.read_text())
        entry = data["mcpServers"][SERVER]
        entry["command"], entry["args"] = tapped_server(entry, capture)
        settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
        if client == "claude":
            # -p waits only for servers given by --mcp-config (clients.md)
            flag = work / "mcp.json"
            flag.write_text(json.dumps({"mcpServers": {SERVER: entry}}), encoding="utf-8")
            extra += ["--mcp-config", str(flag), "--strict-mcp-config"]
        return extra

    return prepare


def bash_docs_expected(bridge: BridgeEnv, root: Path, rel: str) -> str | None:
    """The scoped docs the bridge has for ``rel`` (a fresh session)."""
    from providers.clients import wire

    body = json.dumps({"kind": "scoped_docs", "files": [rel], "session_id": "bench-expect"})
    try:
        verb, _, answer = wire.call(bridge.socket(root), "section", body.encode(), timeout=60)
    except OSError:
        return None
    if verb != "ok":
        return None
    return "\n".join(s["text"] for s in json.loads(answer).get("sections", []))


def run_one(
    project: Project, repo: Repo, root: Path, client: str, mode: str, timeout_s: float, base: Path
) -> Outcome:
    outcome = Outcome(repo.name, client, mode)
    reason = missing_reason(client)
    if reason is not None:
        outcome.status = f"missing: {reason}"
        return outcome
    outcome.scripted = "\n".join(
        (root / rel).read_text(encoding="utf-8", errors="replace")
        for rel in (repo.read, repo.cat)
        if (root / rel).is_file()
    )
    work = Path(tempfile.mkdtemp(prefix=f"{repo.name}-{client}-{mode}-", dir=base))
    bridge = BridgeEnv(idle_s=300, wait_s=10, start_s=90, base_dir=str(base))
    try:
        env = {k: v for k, v in bridge.env.items() if k not in ("PATH", "HOME")}
        env["CONTEXT_PROVIDERS_MCP_START_S"] = "30"
        if mode != "baseline":
            project.warm(client, root, {**bridge.env, **env})
        run = run_client(
            client,
            root,
            PROMPT.format(read=repo.read),
            script=script_for(client, repo, root),
            extra_env=env,
            workdir=work,
            timeout_s=timeout_s,
            prepare=prepare_for(project, client, mode, root, work),
        )
        outcome.run = run
        if run.timed_out:
            outcome.status = f"timed out after {timeout_s:g} s"
        elif run.exit_code != 0:
            outcome.status = f"failed: exit {run.exit_code}: {run.stderr.strip()[-200:]}"
        elif len(run.model_requests) < 2:
            outcome.status = f"incomplete: {len(run.model_requests)} model requests"
        capture = work / "capture.jsonl"
        records = [
            json.loads(line)
            for line in (capture.read_text().splitlines() if capture.exists() else [])
            if line.strip()
        ]
        if mode == "hooks":
            outcome.hook_calls = records
            strays = {r.get("command") for r in records} - {None}
            ours = (str(project.root / HOOK_MARK), str(Path(project.python).parent / LAUNCHER))
            strays = {c for c in strays if not any(mark in str(c) for mark in ours)}
            if strays:
                outcome.status = f"hook not of the project measured: {sorted(strays)[0][:160]}"
        if client == "claude" and mode != "baseline":
            outcome.bash_docs = bash_docs_expected(bridge, root, repo.cat)
        if mode == "mcp":
            outcome.instructions = [
                str(r["result"]["instructions"])
                for r in records
                if isinstance(r.get("result"), dict) and r["result"].get("instructions")
            ][:1]
        outcome.log_problems = [
            line for line in bridge.log().splitlines() if "bench-reach-warm-up" not in line
        ][-5:]
    except Exception as error:  # a failing run is a row, not the end
        outcome.status = f"error: {type(error).__name__}: {str(error)[:200]}"
    finally:
        bridge.close()
        shutil.rmtree(work, ignore_errors=True)
    return outcome


# -- what reached the model ----------------------------------------------------------------


def strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def corpus(run: Run | None) -> str:
    """Every string of every conversation request, Gemini's HTML escaping undone."""
    if run is None:
        return ""
    parts: list[str] = []
    for request in run.model_requests:
        parts.extend(strings(request.body))
    return html.unescape("\n".join(parts))


def reached_chars(text: str, seen: str) -> int:
    """Characters of ``text`` whose lines are in ``seen`` (short lines go with the line
    before them)."""
    total = 0
    last = False
    for line in text.splitlines(keepends=True):
        key = line.strip()
        if len(key) >= MIN_LINE:
            last = key in seen
        if last:
            total += len(line)
    return min(total, len(text))


def normalised(line: str) -> str:
    return line.strip().lstrip("-*#>|`├└│─ \t").strip()


def variants(key: str) -> list[str]:
    """The forms of one of our lines the client's own listing may have: whole, without
    our trailing ``(path)``, its first 80 characters (a description the client cut)."""
    forms = [key]
    bare = re.sub(r"\s*\([^()]*\)$", "", key)
    if bare != key and len(bare) >= MIN_DUP:
        forms.append(bare)
    if len(bare) > 100:
        forms.append(bare[:80])
    return forms


def duplicates(text: str, own: str, scripted: str) -> tuple[int, set[str]]:
    """Characters of ``text`` (and the labels of their sections) on lines the client had
    sent by itself in the baseline run (not those of the files the script reads)."""
    chars = 0
    labels: set[str] = set()
    label = ""
    for line in text.splitlines(keepends=True):
        found = LABEL.search(line)
        if found:
            label = found.group(1)
            continue
        key = normalised(line)
        if len(key) >= MIN_DUP and key not in scripted and any(v in own for v in variants(key)):
            chars += len(line)
            labels.add(label.split(" (")[0] or "?")
    return chars, labels


def context_of(record: Mapping[str, Any]) -> str:
    out = str(record.get("stdout") or "")
    if not out.strip():
        return ""
    try:
        data = json.loads(out)
    except ValueError:
        return out  # plain stdout
    if not isinstance(data, dict):
        return ""
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        return str(specific.get("additionalContext") or "")
    return str(data.get("systemMessage") or "")


def event_of(record: Mapping[str, Any]) -> tuple[str, str]:
    try:
        payload = json.loads(record.get("stdin") or "{}")
    except ValueError:
        return "?", ""
    return str(payload.get("hook_event_name", "?")), str(payload.get("tool_name") or "")


KIND_OF_EVENT = {
    "SessionStart": "start",
    "UserPromptSubmit": "prompt",
    "BeforeAgent": "prompt",
    "PostToolUse": "tool",
    "AfterTool": "tool",
}


@dataclass
class Row:
    repo: str
    client: str
    mode: str
    status: str
    sent: dict[str, int] = field(default_factory=dict)
    reached: int = 0
    largest: int = 0
    cut: str = ""
    at_files: str = ""
    at_chars: int = 0
    dup: int = 0
    dup_labels: str = ""
    bash: str = ""
    seconds: float = 0.0
    requests: int = 0
    calls: int = 0
    escaped: bool = False
    bash_docs: int | None = None
    """Claude: characters of scoped docs the bridge has for the file of the Bash cat."""
    bash_sent: int = 0
    bash_reached: int = 0
    """Characters of those docs in the requests (whoever sent them)."""
    bash_alone: int = 0
    """The same in the baseline run: what the client brought by itself."""
    """Gemini: our ``<context>`` markup arrived HTML-escaped."""

    @property
    def sent_total(self) -> int:
        return sum(self.sent.values())


def measure(outcome: Outcome, baseline: Outcome | None) -> Row:
    row = Row(outcome.repo, outcome.client, outcome.mode, outcome.status)
    run = outcome.run
    if run is not None:
        row.seconds = run.seconds
        row.requests = len(run.model_requests)
    seen = corpus(run)
    own = corpus(baseline.run) if baseline is not None else ""
    texts: list[str] = []
    if outcome.mode == "hooks":
        row.calls = len(outcome.hook_calls)
        for record in outcome.hook_calls:
            event, tool = event_of(record)
            text = context_of(record)
            kind = KIND_OF_EVENT.get(event, event)
            row.sent[kind] = row.sent.get(kind, 0) + len(text)
            texts.append(text)
            row.reached += reached_chars(text, seen)
            row.largest = max(row.largest, len(text))
            if outcome.client == "claude" and tool == "Bash":
                row.bash_sent = len(text)
    elif outcome.mode == "mcp":
        for text in outcome.instructions:
            row.sent["instructions"] = len(text)
            texts.append(text)
            row.reached += reached_chars(text, seen)
            row.largest = max(row.largest, len(text))
    if outcome.client == "claude" and outcome.mode != "baseline" and run is not None:
        calls = [r for r in outcome.hook_calls if event_of(r)[1] == "Bash"]
        docs = outcome.bash_docs
        if outcome.mode == "hooks" and not calls:
            row.bash = "no hook call for Bash"
        elif docs is None:
            row.bash = f"we sent {row.bash_sent:,}; the file's docs unknown"
        elif not docs:
            row.bash = f"the file has no scoped docs; we sent {row.bash_sent:,}"
        else:
            row.bash_docs = len(docs)
            row.bash_reached = reached_chars(docs, seen)
            row.bash_alone = reached_chars(docs, own)
            row.bash = (
                f"{row.bash_docs:,} of docs: {row.bash_reached:,} reached"
                f" (client alone {row.bash_alone:,}); we sent {row.bash_sent:,}"
            )
    marks = []
    if CLAUDE_SPILL in seen and CLAUDE_SPILL not in own:
        marks.append("spilled to a file (preview)")
    if CODEX_CUT.search(seen) and not CODEX_CUT.search(own):
        marks.append("middle cut (tokens truncated)")
    if row.sent_total and row.reached < 0.95 * row.sent_total and not marks:
        missing = f"{row.sent_total - row.reached:,} chars missing"
        marks.append(f"instructions cut: {missing}" if outcome.mode == "mcp" else missing)
    if outcome.client == "gemini" and any("<" in t for t in texts):
        raw = "".join(r.text for r in run.model_requests) if run is not None else ""
        row.escaped = "&lt;context" in raw
    row.cut = "; ".join(marks)
    if outcome.client == "gemini" and GEMINI_AT_START in seen and GEMINI_AT_START not in own:
        start = seen.find(GEMINI_AT_START)
        end = seen.find(GEMINI_AT_END, start)
        row.at_chars = (end if end > 0 else len(seen)) - start
        files = sorted(set(GEMINI_AT_FILE.findall(seen[start : end if end > 0 else None])))
        row.at_files = ", ".join(files[:4]) + (" ..." if len(files) > 4 else "")
    if own:
        for text in texts:
            chars, labels = duplicates(text, own, baseline.scripted if baseline else "")
            row.dup += chars
            if labels:
                row.dup_labels = ", ".join(sorted(set(row.dup_labels.split(", ")) - {""} | labels))
    return row


# -- the report ---------------------------------------------------------------------------------


def fmt(n: int) -> str:
    return f"{n:,}" if n else "0"


def table(rows: Sequence[Row]) -> list[str]:
    out = [
        "| repository | client | mode | run | sent (start / prompt / tool) | reached inline |"
        " largest one | spilled or cut | `@` inlined by Gemini | duplicates of the client's"
        " own | Claude `Bash cat` docs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.mode == "mcp":
            sent = f"{fmt(r.sent_total)} (instructions)"
        elif r.mode == "hooks":
            sent = (
                f"{fmt(r.sent_total)} ({fmt(r.sent.get('start', 0))} / "
                f"{fmt(r.sent.get('prompt', 0))} / {fmt(r.sent.get('tool', 0))}),"
                f" {r.calls} calls"
            )
        else:
            sent = "-"
        share = f" ({100 * r.reached // r.sent_total}%)" if r.sent_total else ""
        run = r.status if r.status != "ok" else f"ok, {r.requests} req, {r.seconds:.0f} s"
        at = (
            f"{fmt(r.at_chars)} ({r.at_files})"
            if r.at_chars
            else ("-" if r.client != "gemini" else "0")
        )
        dup = f"{fmt(r.dup)}" + (f" ({r.dup_labels})" if r.dup_labels else "")
        cut = "; ".join([*([r.cut] if r.cut else []), *(["`<` `>` escaped"] if r.escaped else [])])
        cut = cut or "-"
        out.append(
            f"| {r.repo} | {r.client} | {r.mode} | {run.replace('|', '/')} | {sent} |"
            f" {fmt(r.reached)}{share} | {fmt(r.largest)} | {cut} | {at} | {dup} |"
            f" {r.bash or '-'} |"
        )
    return out


def summary(rows: Sequence[Row]) -> list[str]:
    """Per client and mode, over the repositories that ran."""
    out = [
        "| client | mode | runs ok | sent | reached inline | spilled or cut (runs) |"
        " `@` inlined | duplicates | `Bash cat` docs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for client in CLIENTS:
        for mode in MODES:
            group = [r for r in rows if r.client == client and r.mode == mode]
            if not group:
                continue
            ok = [r for r in group if r.status == "ok"]
            sent = sum(r.sent_total for r in ok)
            reached = sum(r.reached for r in ok)
            share = f" ({100 * reached // sent}%)" if sent else ""
            cut = sum(1 for r in ok if r.cut)
            at = sum(r.at_chars for r in ok)
            dup = sum(r.dup for r in ok)
            bash = "-"
            if client == "claude":
                with_docs = [r for r in ok if r.bash_docs]
                whole = sum(1 for r in with_docs if r.bash_reached >= 0.9 * (r.bash_docs or 0))
                alone = sum(1 for r in with_docs if r.bash_alone >= 0.9 * (r.bash_docs or 0))
                bash = f"{whole} of {len(with_docs)} (client alone: {alone})"
            out.append(
                f"| {client} | {mode} | {len(ok)} of {len(group)} | {fmt(sent)} |"
                f" {fmt(reached)}{share} | {cut} | {fmt(at) if client == 'gemini' else '-'} |"
                f" {fmt(dup)} | {bash} |"
            )
    return out


def report(
    rows: Sequence[Row], repos: Sequence[Repo], project: Project, command: str, seconds: float
) -> str:
    versions = ", ".join(f"{c} {installed_version(c) or 'not installed'}" for c in CLIENTS)
    lines = [
        "# What of our context reaches the model (issue 29)",
        "",
        f"Made by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"in {seconds / 60:.0f} min; project measured: {project.describe()}; "
        f"clients: {versions}.",
        "",
        "One scripted session per row (`benchmarks/bench_reach.py`: session start, a prompt,"
        " the model reading one file, for Claude also a `Bash` `cat` of another, a final"
        " answer), offline against the stub model, which records every request. Characters"
        " are counted on what our hook printed as additionalContext (start / prompt / tool"
        " events) or the MCP server's instructions, as recorded between the client and our"
        " command; *reached inline* counts the lines of it found in the requests' text"
        " (Gemini's HTML escaping undone); *duplicates* are our lines (20 characters or"
        " more) that the client had already sent by itself in the baseline run (no hooks,"
        " no server) of the same repository; *`Bash cat` docs* is what the after-tool hook"
        " sent for Claude's `Bash` `cat`, and how much of the scoped docs the bridge has for that"
        " file reached the model (from us or the client; *client alone*: in the baseline run);"
        " the summary counts the runs where 90% or more of them reached it.",
        "",
        "Conditions: each run has its own background process (its own runtime and state"
        " directories), started by a throwaway session-start hook before the client runs, so"
        " the measured session is not racing a cold start; the hook waits up to 10 s"
        " (`CONTEXT_PROVIDERS_HOOK_WAIT_S=10`): this measures what is sent, not how fast."
        " Line matching is textual: a line of ours of 20 characters or more that also occurs"
        " in a file the client loads counts as a duplicate even if the provider meant"
        " something else by it (a path in the file tree that a convention file names).",
        "",
        "Another checkout (the *after* figures): make its environment once"
        " (`DIR/dev python -c pass`), then, from this one,"
        " `./dev python benchmarks/bench_reach.py --project DIR --out"
        " benchmarks/results/reach_after.md`: that checkout's `setup` registers the hooks"
        " and the server and its hook and server run; the clients, the stub and the"
        " repositories stay the same.",
        "",
        "## Repositories",
        "",
        "| name | repository | commit | kind | file read | file `cat` (Claude) |",
        "|---|---|---|---|---|---|",
    ]
    for repo in repos:
        where = f"`{repo.github}`" if repo.github else "local"
        lines.append(
            f"| {repo.name} | {where} | `{repo.commit[:12]}` | {repo.kind} | `{repo.read}` |"
            f" `{repo.cat}` |"
        )
    lines += ["", "## Summary", "", *summary(rows), "", "## Each run", "", *table(rows), ""]
    return "\n".join(lines)


# -- main -----------------------------------------------------------------------------------------


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench_reach.py", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    names = ",".join(r.name for r in REPOS)
    parser.add_argument(
        "--repos", default=None, help=f"comma-separated, of {names} (all, unless --local)"
    )
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--modes", default=",".join(MODES), help="hooks,mcp")
    parser.add_argument("--project", default=str(ROOT), help="the checkout measured")
    parser.add_argument("--mirrors", default="/work/.mirror", help="owner+name/repo git dirs")
    parser.add_argument("--local", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds per client run")
    parser.add_argument("--jobs", type=int, default=2, help="client runs at once")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "reach.md"))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    started = time.monotonic()
    project = Project.at(Path(args.project))
    known = {r.name: r for r in REPOS}
    default = "" if args.local else ",".join(known)
    wanted = [n for n in (args.repos if args.repos is not None else default).split(",") if n]
    repos = [known[n] for n in wanted if n in known] + [local_repo(s) for s in args.local]
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise SystemExit(f"unknown repositories: {', '.join(unknown)} (known: {', '.join(known)})")
    clients = [c for c in args.clients.split(",") if c]
    modes = [m for m in args.modes.split(",") if m]
    for given, allowed in ((clients, CLIENTS), (modes, MODES)):
        if not given or set(given) - set(allowed):
            raise SystemExit(f"choose among {', '.join(allowed)}: {', '.join(given) or 'none'}")
    base = Path(tempfile.mkdtemp(prefix="reach", dir="/tmp"))
    outcomes: dict[tuple[str, str, str], Outcome] = {}
    try:
        roots: dict[str, Path | str] = {}
        for repo in repos:
            try:
                roots[repo.name] = check_out(repo, base / "repos", Path(args.mirrors))
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
                roots[repo.name] = f"checkout failed: {error}"
        jobs = [
            (repo, client, mode)
            for repo in repos
            for client in clients
            for mode in ("baseline", *modes)
        ]

        def one(job: tuple[Repo, str, str]) -> Outcome:
            repo, client, mode = job
            root = roots[repo.name]
            if isinstance(root, str):
                return Outcome(repo.name, client, mode, status=root)
            outcome = run_one(project, repo, root, client, mode, args.timeout, base)
            print(
                f"{repo.name} {client} {mode}: {outcome.status}"
                + (f" ({outcome.run.seconds:.0f} s)" if outcome.run else ""),
                file=sys.stderr,
                flush=True,
            )
            return outcome

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for outcome in pool.map(one, jobs):
                outcomes[(outcome.repo, outcome.client, outcome.mode)] = outcome
    finally:
        shutil.rmtree(base, ignore_errors=True)
    rows = [
        measure(outcomes[(repo.name, client, mode)], outcomes.get((repo.name, client, "baseline")))
        for repo in repos
        for client in clients
        for mode in ("baseline", *modes)
    ]
    command = "./dev python benchmarks/bench_reach.py " + shlex.join(
        list(argv if argv is not None else sys.argv[1:])
    )
    text = report(rows, repos, project, command.strip(), time.monotonic() - started)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
        print("\n".join(summary(rows)))
        print(f"written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
