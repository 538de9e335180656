"""Per-client facts the bridge relies on: hooks, settings files, MCP, what each loads itself.

Why a table: Claude Code, Gemini CLI and Codex CLI look alike (the same hook settings
shape, the same ``additionalContext`` answer) but differ in event names, timeout units,
where the context lands, what their file tools are called and which convention files
they already put in front of the model. The bridge must send only what is missing, at an
event that really reaches the model, so each fact here was observed on the real client
(the versions in ``tests/clients/versions.json``) and ``tests/clients/test_real_clients.py``
checks it again against that client. Pure data and pure functions: no I/O.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from providers.rules import import_styles
from providers.rules.import_styles import ImportStyle

ClientName = Literal["claude", "gemini", "codex"]
TimeoutUnit = Literal["s", "ms"]


@dataclass(frozen=True)
class Avoid:
    """Why an event must not carry context: the client ``rejects`` its name, ``ignores``
    its additionalContext, or the context ``reopens`` the finished turn (the model is
    called again, and again)."""

    kind: Literal["rejects", "ignores", "reopens"]
    why: str


@dataclass(frozen=True)
class HookEvents:
    """The event names to use, and those that look right but must never be used.

    ``session_start``, ``per_prompt`` and ``after_tool`` are the events whose
    ``additionalContext`` reaches the model; ``never`` maps an event name to why not.
    """

    session_start: str
    per_prompt: str
    after_tool: str
    never: Mapping[str, Avoid]


@dataclass(frozen=True)
class SettingsFiles:
    """Where hook settings live: ``project`` relative to the repository root, ``user``
    relative to ``user_root`` (the home directory, or ``$CODEX_HOME`` for Codex)."""

    project: str
    user: str
    user_root: str


@dataclass(frozen=True)
class FileTool:
    """A tool whose ``tool_input`` names files: the keys holding paths, or ``shell`` when
    the input is a shell command (key ``command``) to parse, or ``patch`` for a patch."""

    name: str
    path_keys: tuple[str, ...] = ()
    kind: Literal["paths", "shell", "patch"] = "paths"


@dataclass(frozen=True)
class McpFacts:
    """How a stdio MCP server is registered, when the client waits for it, and what of
    it reaches the model."""

    registration: str
    waits_for_server: str
    instructions_reach: str
    instructions_role: str
    """The role of the message carrying the server's instructions."""
    instructions_kept: Literal["all", "first_line"]
    """How much of multi-line instructions reaches the model: put what matters first."""
    first_line_max: int | None
    """Characters of that first line kept (a longer one is cut to fit, ending "...")."""
    tool_approval: str
    server_files: SettingsFiles
    """Where a stdio server is registered (project: in a trusted project for Codex)."""
    approval_files: SettingsFiles | None
    """Where the rule allowing its tools goes, when not on the server's entry (Claude)."""
    environment: Literal["inherited", "allowlist"]
    """What a server's environment holds: the client's, or (Codex) a short allowlist
    plus the variables its ``env_vars`` names (``XDG_RUNTIME_DIR`` is not in it)."""
    starts_in: Literal["project"]
    """The server's working directory: the project directory the client runs in."""


@dataclass(frozen=True)
class ClientFacts:
    """Everything the bridge needs to know about one client."""

    name: ClientName
    npm_package: str
    one_shot: tuple[str, ...]
    events: HookEvents
    context_role: str
    """The role of the message that carries a hook's additionalContext."""
    context_lands: Mapping[str, str]
    plain_stdout_reaches: frozenset[str]
    hook_files: SettingsFiles
    hook_trust_args: tuple[str, ...]
    """Command-line arguments without which the client skips the hooks (silently)."""
    project_trust_args: tuple[str, ...]
    """Command-line arguments without which the client ignores the project's hook file."""
    timeout_unit: TimeoutUnit
    settings_comments: bool
    """Whether its JSON settings files may hold comments: Gemini CLI reads them with
    ``JSON.parse(stripJsonComments(text))`` (``//`` and ``/* */``); Claude Code's and
    Codex CLI's are plain JSON to setup (it refuses what it cannot read as the client does)."""
    hook_input_fields: tuple[str, ...]
    prompt_input_fields: tuple[str, ...]
    tool_input_fields: tuple[str, ...]
    file_tools: tuple[FileTool, ...]
    mcp: McpFacts
    loads_by_itself: tuple[str, ...]
    """Convention files (or directories) the client puts before the model with no hook."""
    loads_unless: Mapping[str, str]
    """A convention file the client loads only when another one is absent."""
    loads_nested: bool
    """Whether it loads its convention files below the root too (Codex only along the
    path from the root to its working directory)."""
    import_style: ImportStyle | None
    """How it expands ``@imports`` in what it loads (``None``: it expands nothing)."""
    companions: Mapping[str, tuple[str, ...]]
    """Files it loads together with a convention file it names."""


COMMON_INPUT_FIELDS: Final = ("hook_event_name", "session_id", "cwd", "transcript_path")
"""Fields every hook input carries, in all three clients."""

HOOK_OUTPUT_SHAPE: Final = (
    '{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": TEXT}} on stdout'
)
"""The one answer shape that reaches the model in all three clients."""

CONVENTION_FILES: Final = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".claude/rules/")
"""The convention files whose loading differs between the clients."""

CLAUDE: Final = ClientFacts(
    name="claude",
    npm_package="@anthropic-ai/claude-code",
    one_shot=("claude", "-p"),
    events=HookEvents(
        session_start="SessionStart",
        per_prompt="UserPromptSubmit",
        after_tool="PostToolUse",
        never={"Stop": Avoid("reopens", "additionalContext on Stop makes a new model request")},
    ),
    context_role="system",
    context_lands={
        "SessionStart": "a system-role message in messages[], every request of the session",
        "UserPromptSubmit": "a system-role message in messages[], every request of the turn",
        "PostToolUse": "a system-role message after the tool result, from the next request on",
    },
    plain_stdout_reaches=frozenset({"SessionStart", "UserPromptSubmit"}),
    hook_files=SettingsFiles(
        project=".claude/settings.json", user=".claude/settings.json", user_root="~"
    ),
    hook_trust_args=(),
    project_trust_args=(),
    timeout_unit="s",
    settings_comments=False,
    hook_input_fields=COMMON_INPUT_FIELDS,
    prompt_input_fields=("prompt",),
    tool_input_fields=("tool_name", "tool_input", "tool_response"),
    file_tools=(
        FileTool("Read", ("file_path",)),
        FileTool("Edit", ("file_path",)),
        FileTool("Write", ("file_path",)),
        FileTool("MultiEdit", ("file_path",)),
        # Its auto mode reads and edits through Bash; the command is parsed as Codex's is.
        FileTool("Bash", ("command",), kind="shell"),
    ),
    mcp=McpFacts(
        registration=(
            '"mcpServers" (type "stdio") in a file given by --mcp-config, in ~/.claude.json '
            "(user scope) or in the repository's .mcp.json (project scope, needs approval: "
            '"enableAllProjectMcpServers")'
        ),
        waits_for_server=(
            "-p waits for --mcp-config servers only; .mcp.json and ~/.claude.json servers "
            'connect in the background and a request leaves "still connecting" without them'
        ),
        instructions_reach="every request once connected (a system-role message)",
        instructions_role="system",
        instructions_kept="all",
        first_line_max=None,
        tool_approval=(
            '"permissions": {"allow": ["mcp__NAME"]} in ~/.claude/settings.json or the '
            "project's .claude/settings.local.json (in .claude/settings.json it is ignored)"
        ),
        server_files=SettingsFiles(project=".mcp.json", user=".claude.json", user_root="~"),
        approval_files=SettingsFiles(
            project=".claude/settings.local.json", user=".claude/settings.json", user_root="~"
        ),
        environment="inherited",
        starts_in="project",
    ),
    loads_by_itself=("CLAUDE.md", ".claude/rules/"),
    loads_unless={"AGENTS.md": "CLAUDE.md"},
    loads_nested=True,
    import_style=import_styles.CLAUDE,
    companions={"CLAUDE.md": ("CLAUDE.local.md", ".claude/CLAUDE.md")},
)

GEMINI: Final = ClientFacts(
    name="gemini",
    npm_package="@google/gemini-cli",
    one_shot=("gemini", "-p"),
    events=HookEvents(
        session_start="SessionStart",
        per_prompt="BeforeAgent",
        after_tool="AfterTool",
        never={
            "UserPromptSubmit": Avoid("rejects", 'Claude\'s name: "Invalid hook event name"'),
            "PostToolUse": Avoid("rejects", 'Claude\'s name: "Invalid hook event name"'),
            "BeforeTool": Avoid("ignores", "fires with the tool input; additionalContext lost"),
            "BeforeModel": Avoid("ignores", "fires with the request; additionalContext lost"),
        },
    ),
    context_role="user",
    context_lands={
        "SessionStart": "prepended to the prompt as <hook_context>TEXT</hook_context> (and "
        "so part of the prompt BeforeAgent hooks receive)",
        "BeforeAgent": "an extra text part after the prompt",
        "AfterTool": "appended to the tool's output (the functionResponse)",
    },
    plain_stdout_reaches=frozenset(),
    hook_files=SettingsFiles(
        project=".gemini/settings.json", user=".gemini/settings.json", user_root="~"
    ),
    hook_trust_args=(),
    project_trust_args=(),  # measured in a trusted workspace (GEMINI_CLI_TRUST_WORKSPACE=true)
    timeout_unit="ms",
    settings_comments=True,
    hook_input_fields=COMMON_INPUT_FIELDS,
    prompt_input_fields=("prompt",),
    tool_input_fields=("tool_name", "tool_input", "tool_response"),
    file_tools=(
        FileTool("read_file", ("file_path",)),
        FileTool("write_file", ("file_path",)),
        FileTool("replace", ("file_path",)),
        # Offered outside the default approval mode (--approval-mode auto_edit / yolo).
        FileTool("run_shell_command", ("command",), kind="shell"),
    ),
    mcp=McpFacts(
        registration='"mcpServers" in .gemini/settings.json or ~/.gemini/settings.json',
        waits_for_server="yes: the first request leaves after the server is up",
        instructions_reach="every request (in the first user message)",
        instructions_role="user",
        instructions_kept="all",
        first_line_max=None,
        tool_approval='"trust": true on the server entry',
        server_files=SettingsFiles(
            project=".gemini/settings.json", user=".gemini/settings.json", user_root="~"
        ),
        approval_files=None,
        environment="inherited",
        starts_in="project",
    ),
    loads_by_itself=("GEMINI.md",),
    loads_unless={},
    loads_nested=True,
    import_style=import_styles.GEMINI,
    companions={},
)

CODEX: Final = ClientFacts(
    name="codex",
    npm_package="@openai/codex",
    one_shot=("codex", "exec"),
    events=HookEvents(
        session_start="SessionStart",
        per_prompt="UserPromptSubmit",
        after_tool="PostToolUse",
        never={"Stop": Avoid("ignores", "fires after the last request; context is lost")},
    ),
    context_role="developer",
    context_lands={
        "SessionStart": "a developer message in input[]",
        "UserPromptSubmit": "a developer message in input[]",
        "PostToolUse": "a developer message after the tool output",
    },
    plain_stdout_reaches=frozenset({"SessionStart", "UserPromptSubmit"}),
    hook_files=SettingsFiles(
        project=".codex/hooks.json", user="hooks.json", user_root="$CODEX_HOME"
    ),
    hook_trust_args=("--dangerously-bypass-hook-trust",),
    # --trust writes [projects."ROOT"] trust_level = "trusted" into config.toml.
    project_trust_args=("--trust",),
    timeout_unit="s",
    settings_comments=False,
    hook_input_fields=COMMON_INPUT_FIELDS,
    prompt_input_fields=("prompt",),
    tool_input_fields=("tool_name", "tool_input", "tool_response"),
    # With Codex's default model the shell runs inside its JavaScript "exec" tool (code
    # mode); the hooks still see Bash with the command string, and apply_patch with the patch.
    file_tools=(
        FileTool("Bash", ("command",), kind="shell"),
        FileTool("apply_patch", ("command",), kind="patch"),
    ),
    mcp=McpFacts(
        registration="[mcp_servers.NAME] (command, args) in $CODEX_HOME/config.toml",
        waits_for_server="only with required = true on the server's table",
        instructions_reach=(
            "every request: with the default model (code mode) a developer message listing "
            '"Deferred tool namespaces:" as "- mcp__NAME: FIRST LINE"; with models that get '
            "plain function tools (gpt-5) the whole text, as the mcp__NAME namespace's description"
        ),
        instructions_role="developer",
        instructions_kept="first_line",
        first_line_max=250,
        tool_approval='default_tools_approval_mode = "approve"',
        server_files=SettingsFiles(
            project=".codex/config.toml", user="config.toml", user_root="$CODEX_HOME"
        ),
        approval_files=None,
        environment="allowlist",
        starts_in="project",
    ),
    loads_by_itself=("AGENTS.md",),
    loads_unless={},
    loads_nested=False,
    import_style=None,
    companions={},
)

FACTS: Final[Mapping[str, ClientFacts]] = {f.name: f for f in (CLAUDE, GEMINI, CODEX)}
"""The table, by client name."""


@dataclass(frozen=True)
class Native:
    """What one client shows the model by itself beyond its convention files (measured
    with no hooks: same repository, same prompt, the request recorded), so that the
    bridge sends only the difference."""

    git_snapshot: bool
    """Its system prompt holds git status at the session's start (branch, status, recent
    commits), never refreshed: our git status is left out at start, sent when it changed."""
    listing_items: int
    """Its first request lists the working directory, up to this many items breadth
    first (0: none): a complete listing makes our file tree a second copy."""
    skill_roots: tuple[str, ...]
    """Skills folders whose skills (one folder level down) it lists to the model itself."""
    scoped_on: tuple[str, ...]
    """Tools after which it attaches nested convention files and ``paths:`` rules itself."""
    scoped_on_shell: Literal["claude", None]
    """Whose recogniser says which shell reads it follows too (``claude_bash``)."""
    nested_on_shell: tuple[str, ...]
    """Nested convention file names it attaches after a shell read it follows."""


NATIVE: Final[Mapping[str, Native]] = {
    # Claude Code 2.1.328: "# gitStatus ... Current branch, Status, Recent commits" in a
    # system reminder; .claude/skills only (not .agents/skills, not two levels down);
    # nested CLAUDE.md and paths: rules after Read, Write (Edit follows a Read) and after
    # a Bash read it recognises; a nested AGENTS.md only where its folder has no CLAUDE.md,
    # and never after Bash.
    "claude": Native(
        True,
        0,
        (".claude/skills",),
        ("Read", "Write", "Edit", "MultiEdit"),
        "claude",
        ("CLAUDE.md",),
    ),
    # Gemini CLI 0.61.0: a folder listing of up to 200 items in <session_context>;
    # .agents/skills and .gemini/skills.
    "gemini": Native(False, 200, (".agents/skills", ".gemini/skills"), (), None, ()),
    # Codex CLI 0.169.0: .agents/skills and .codex/skills.
    "codex": Native(False, 0, (".agents/skills", ".codex/skills"), (), None, ()),
}
"""The table, by client name."""


def loaded_conventions(client: str, present: Iterable[str]) -> frozenset[str]:
    """Which of the ``present`` convention files the client loads by itself: what the
    bridge must not send again."""
    info = FACTS[client]
    here = frozenset(present)
    loaded = {name for name in info.loads_by_itself if name in here}
    loaded |= {
        name for name, unless in info.loads_unless.items() if name in here and unless not in here
    }
    return frozenset(loaded)


# -- building what a client reads --------------------------------------------------------


def hook_output(event: str, text: str) -> dict[str, Any]:
    """The JSON a hook prints so that ``text`` reaches the model (all three clients)."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def timeout_value(client: str, seconds: float) -> int:
    """A hook timeout in the client's unit (Gemini counts milliseconds, the others seconds)."""
    unit = FACTS[client].timeout_unit
    return round(seconds * 1000) if unit == "ms" else max(1, round(seconds))


def hook_settings(client: str, hooks: Sequence[tuple[str, str, float]]) -> dict[str, Any]:
    """The settings object registering command hooks, one ``(event, command, timeout_s)``
    each; the same shape in all three clients, only the timeout unit differs."""
    by_event: dict[str, list[dict[str, Any]]] = {}
    for event, command, seconds in hooks:
        entry = {"type": "command", "command": command, "timeout": timeout_value(client, seconds)}
        by_event.setdefault(event, []).append(entry)
    return {
        "hooks": {
            event: [{"matcher": "*", "hooks": entries}] for event, entries in by_event.items()
        }
    }


def mcp_json(client: str, servers: Sequence[tuple[str, str, tuple[str, ...]]]) -> dict[str, Any]:
    """The JSON settings fragment registering stdio MCP servers ``(name, command, args)``
    for Claude Code (``~/.claude.json`` or ``.mcp.json``) or Gemini CLI (settings)."""
    entries: dict[str, Any] = {}
    for name, command, args in servers:
        if client == "claude":
            entries[name] = {"type": "stdio", "command": command, "args": list(args), "env": {}}
        elif client == "gemini":
            entries[name] = {"command": command, "args": list(args), "trust": True}
        else:
            raise ValueError(f"{client} registers MCP servers in TOML: codex_mcp_toml")
    return {"mcpServers": entries}


def codex_mcp_toml(
    servers: Sequence[tuple[str, str, tuple[str, ...]]],
    *,
    env_vars: Sequence[str] = (),
    startup_timeout_s: int | None = None,
) -> str:
    """The ``config.toml`` tables registering stdio MCP servers for Codex CLI; ``env_vars``
    names variables of Codex's environment to pass on (it passes few by itself)."""
    out = []
    for name, command, args in servers:
        out += [
            f"[mcp_servers.{name}]",
            f"command = {json.dumps(command)}",
            f"args = [{', '.join(json.dumps(a) for a in args)}]",
            "required = true",
            'default_tools_approval_mode = "approve"',
        ]
        if env_vars:
            out.append(f"env_vars = [{', '.join(json.dumps(v) for v in env_vars)}]")
        if startup_timeout_s is not None:
            out.append(f"startup_timeout_sec = {startup_timeout_s}")
        out.append("")
    return "\n".join(out)


# -- reading a hook's tool input --------------------------------------------------------


def paths_from_tool_input(
    client: str, tool_name: str, tool_input: Mapping[str, Any]
) -> tuple[str, ...]:
    """The file paths a tool call names (as the model wrote them: maybe relative), or ()
    when the tool is not a file tool or its input cannot be read with certainty."""
    for tool in FACTS[client].file_tools:
        if tool.name != tool_name:
            continue
        if tool.kind == "paths":
            return tuple(
                value for key in tool.path_keys if isinstance(value := tool_input.get(key), str)
            )
        command = tool_input.get("command")
        if tool.kind == "shell":
            if isinstance(command, list) and all(isinstance(a, str) for a in command):
                return paths_from_argv(command)
            return paths_from_shell(command) if isinstance(command, str) else ()
        patch = command if isinstance(command, str) else tool_input.get("patch")
        return paths_from_patch(patch) if isinstance(patch, str) else ()
    return ()


PATCH_HEADERS: Final = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
"""Codex's patch format names each file on one of these lines."""


def paths_from_patch(patch: str) -> tuple[str, ...]:
    """The files a Codex ``apply_patch`` patch adds, updates, deletes or moves to."""
    found: list[str] = []
    for line in patch.splitlines():
        for header in PATCH_HEADERS:
            if line.startswith(header) and (path := line[len(header) :].strip()):
                found.append(path)
    return tuple(dict.fromkeys(found))


SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash"})
CONNECTORS: Final = frozenset({"|", "||", "&&", ";"})
# Options that take a value as the next word, per reader; other short options are flags.
VALUE_OPTIONS: Final[Mapping[str, frozenset[str]]] = {
    "cat": frozenset(),
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "nl": frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"}),
    "sed": frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"}),
    "grep": frozenset(
        {
            "-e",
            "-f",
            "-m",
            "-A",
            "-B",
            "-C",
            "-d",
            "-D",
            "--regexp",
            "--file",
            "--max-count",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--context",
            "--after-context",
            "--before-context",
        }
    ),
    "rg": frozenset(
        {
            "-e",
            "-f",
            "-g",
            "-t",
            "-T",
            "-m",
            "-A",
            "-B",
            "-C",
            "-M",
            "-d",
            "-E",
            "-r",
            "-j",
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--max-count",
            "--max-depth",
            "--context",
            "--after-context",
            "--before-context",
            "--replace",
            "--threads",
            "--max-columns",
            "--sort",
            "--sortr",
            "--encoding",
            "--color",
        }
    ),
}
# Long options known to take no value; any other long option without "=" is not understood.
LONG_FLAGS: Final = frozenset(
    {
        "--quiet",
        "--silent",
        "--number",
        "--show-all",
        "--line-number",
        "--no-heading",
        "--heading",
        "--hidden",
        "--no-ignore",
        "--ignore-case",
        "--smart-case",
        "--fixed-strings",
        "--word-regexp",
        "--files-with-matches",
        "--count",
        "--with-filename",
        "--no-filename",
        "--recursive",
        "--json",
        "--vimgrep",
        "--follow",
        "--files",
        "--multiline",
        "--column",
        "--invert-match",
        "--only-matching",
        "--extended-regexp",
        "--regexp-extended",
        "--posix",
        "--null-data",
        "--separate",
        "--unbuffered",
        "--no-messages",
        "--case-sensitive",
    }
)
PATTERN_OPTIONS: Final = frozenset({"-e", "-f", "--regexp", "--file", "--expression", "--files"})
"""Options after which a sed script or grep/rg pattern is no longer the first operand."""


def paths_from_shell(command: str) -> tuple[str, ...]:
    """The files a shell command reads, for the conservative forms only.

    Codex reads files by shell (``cat src/a.py``, ``sed -n '1,80p' src/a.py``,
    ``nl -ba src/a.py | sed -n 1,40p``, ``rg -n foo src``: operands may be directories).
    Anything with an unquoted variable, substitution, glob or ``~``, a redirection or
    subshell, ``cd``, an edit (``sed -i``) or a command outside cat, head, tail, nl, sed,
    grep and rg gives no path at all: a wrong path would scope context to the wrong file,
    a missed one only leaves it out.
    """
    if _has_unquoted_expansion(command):
        return ()
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;<>()")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return ()
    found: list[str] = []
    simple: list[str] = []
    for word in [*words, ";"]:
        if word in CONNECTORS:
            paths = _argv_paths(simple) if simple else []
            if paths is None:
                return ()
            found += paths
            simple = []
        elif word and set(word) <= set("|&;<>()"):
            return ()  # a redirection, a subshell or a background job
        else:
            simple.append(word)
    return tuple(dict.fromkeys(found))


def _has_unquoted_expansion(command: str) -> bool:
    """Whether the shell would expand something in ``command`` (outside single quotes:
    ``$`` and backquotes; outside any quotes: globs, braces, a leading ``~``)."""
    quote = ""
    previous = " "
    escaped = False
    for ch in command:
        if escaped:
            escaped = False
        elif quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            escaped = True
        elif ch in "$`":
            return True
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "*?[{" or (ch == "~" and previous in " \t=:"):
            return True
        previous = ch
    return False


def paths_from_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """:func:`paths_from_shell` for a command already split into words (no shell
    expansion happens to them), e.g. ``["bash", "-lc", "cat src/a.py"]``."""
    result = _argv_paths(list(argv))
    return () if result is None else tuple(dict.fromkeys(result))


def _argv_paths(argv: list[str]) -> list[str] | None:
    """Paths one simple command reads; [] for a command that reads none from its
    arguments (a filter in a pipe), None when the command is not understood."""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if name in SHELLS and len(argv) == 3 and argv[1] in ("-c", "-lc"):
        inner = argv[2]
        return None if _has_unquoted_expansion(inner) else _words_paths(inner)
    if name not in VALUE_OPTIONS:
        return None
    takes_value = VALUE_OPTIONS[name]
    operands: list[str] = []
    pattern_given = False
    args = iter(argv[1:])
    for word in args:
        if word == "--":
            operands += list(args)
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if name == "sed" and (word.startswith("-i") or word.startswith("--in-place")):
            return None  # an edit, not a read
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            pattern_given |= option in PATTERN_OPTIONS
            if word in takes_value:
                if next(args, None) is None:
                    return None
            elif "=" not in word and word not in LONG_FLAGS:
                return None
            continue
        # A cluster of short options, read as getopt does: the first one that takes a
        # value takes the rest of the word, or the next word when nothing is left.
        for i, letter in enumerate(word[1:], start=1):
            if f"-{letter}" not in takes_value:
                continue
            pattern_given |= f"-{letter}" in PATTERN_OPTIONS
            if i == len(word) - 1 and next(args, None) is None:
                return None
            break
    if name == "sed":
        if not (
            {"-n", "--quiet", "--silent"} & set(argv)
            or any(w.startswith("-") and not w.startswith("--") and "n" in w for w in argv[1:])
        ):
            return None  # sed without -n prints the file whole: still a read, but rare
        if not pattern_given:
            operands = operands[1:]  # the sed script
    elif name in ("grep", "rg") and not pattern_given:
        operands = operands[1:]  # the pattern
    return [word for word in operands if word != "-"]


def _words_paths(command: str) -> list[str] | None:
    paths = paths_from_shell(command)
    return list(paths) if paths or not command.strip() else None
