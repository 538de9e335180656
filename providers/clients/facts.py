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

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from providers.rules import import_styles
from providers.rules.import_styles import ImportStyle

ClientName = Literal["claude", "gemini", "codex"]
TimeoutUnit = Literal["s", "ms"]


@dataclass(frozen=True)
class HookEvents:
    """The events whose ``additionalContext`` reaches the model (those that look right
    but must never be used: ``tests/clients/measured.py``)."""

    session_start: str
    per_prompt: str
    after_tool: str


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
    """Where a stdio MCP server is registered and how much of its instructions reach the
    model (Codex keeps the first line only)."""

    first_line_max: int | None
    """Characters of the first line kept (a longer one is cut to fit, ending "...")."""
    instructions_chars: int | None
    """Characters of the instructions kept (JavaScript string length: UTF-16 units);
    past that the client cuts them, ending "... [truncated]". None: no cut measured."""
    server_files: SettingsFiles
    """Where a stdio server is registered (project: in a trusted project for Codex)."""
    approval_files: SettingsFiles | None
    """Where the rule allowing its tools goes, when not on the server's entry (Claude)."""


@dataclass(frozen=True)
class ClientFacts:
    """What the bridge needs to know about one client at run time (what the tests also
    check of the real client, and nothing reads here, is in ``tests/clients/measured.py``)."""

    name: ClientName
    events: HookEvents
    hook_files: SettingsFiles
    timeout_unit: TimeoutUnit
    settings_comments: bool
    """Whether its JSON settings files may hold comments: Gemini CLI reads them with
    ``JSON.parse(stripJsonComments(text))`` (``//`` and ``/* */``); Claude Code's and
    Codex CLI's are plain JSON to setup (it refuses what it cannot read as the client does)."""
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
    inline_chars: int | None
    """The longest ``additionalContext`` of one hook the model gets whole, in the
    client's own measure (``inline_unit``); a longer one is saved to a file and the model
    gets a preview of about 2 KB and the path. None: no cap measured."""
    expands_at: frozenset[str]
    """Events whose additionalContext the client reads as a prompt, expanding ``@path``
    mentions in it into the files' content (:func:`neutralise_at` keeps them text)."""


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
    events=HookEvents(
        session_start="SessionStart",
        per_prompt="UserPromptSubmit",
        after_tool="PostToolUse",
    ),
    hook_files=SettingsFiles(
        project=".claude/settings.json", user=".claude/settings.json", user_root="~"
    ),
    timeout_unit="s",
    settings_comments=False,
    file_tools=(
        FileTool("Read", ("file_path",)),
        FileTool("Edit", ("file_path",)),
        FileTool("Write", ("file_path",)),
        FileTool("MultiEdit", ("file_path",)),
        # Its auto mode reads and edits through Bash; the command is parsed as Codex's is.
        FileTool("Bash", ("command",), kind="shell"),
    ),
    mcp=McpFacts(
        first_line_max=None,
        # 2.1.328: instructions longer than 4096 (.length) are cut, "\u2026 [truncated]"
        # (CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH changes it).
        instructions_chars=4096,
        server_files=SettingsFiles(project=".mcp.json", user=".claude.json", user_root="~"),
        approval_files=SettingsFiles(
            project=".claude/settings.local.json", user=".claude/settings.json", user_root="~"
        ),
    ),
    loads_by_itself=("CLAUDE.md", ".claude/rules/"),
    loads_unless={"AGENTS.md": "CLAUDE.md"},
    loads_nested=True,
    import_style=import_styles.CLAUDE,
    companions={"CLAUDE.md": ("CLAUDE.local.md", ".claude/CLAUDE.md")},
    # Claude Code 2.1.328: a hook's additionalContext longer than 1e4 (its .length) is
    # persisted to a file and replaced by a <persisted-output> preview of 2,000 characters.
    inline_chars=10_000,
    expands_at=frozenset(),
)

GEMINI: Final = ClientFacts(
    name="gemini",
    events=HookEvents(
        session_start="SessionStart",
        per_prompt="BeforeAgent",
        after_tool="AfterTool",
    ),
    hook_files=SettingsFiles(
        project=".gemini/settings.json", user=".gemini/settings.json", user_root="~"
    ),
    # measured in a trusted workspace (GEMINI_CLI_TRUST_WORKSPACE=true)
    timeout_unit="ms",
    settings_comments=True,
    file_tools=(
        FileTool("read_file", ("file_path",)),
        FileTool("write_file", ("file_path",)),
        FileTool("replace", ("file_path",)),
        # Offered outside the default approval mode (--approval-mode auto_edit / yolo).
        FileTool("run_shell_command", ("command",), kind="shell"),
    ),
    mcp=McpFacts(
        first_line_max=None,
        instructions_chars=None,
        server_files=SettingsFiles(
            project=".gemini/settings.json", user=".gemini/settings.json", user_root="~"
        ),
        approval_files=None,
    ),
    loads_by_itself=("GEMINI.md",),
    loads_unless={},
    loads_nested=True,
    import_style=import_styles.GEMINI,
    companions={},
    inline_chars=None,
    # gemini -p prepends SessionStart context to the prompt and runs its @-command
    # processor over it (packages/cli/src/ui/hooks/atCommandProcessor.ts); BeforeAgent and
    # AfterTool context is added after that, as it is.
    expands_at=frozenset({"SessionStart"}),
    # HookOutput.getAdditionalContext: context.replace(/</g, "&lt;").replace(/>/g, "&gt;")
)

CODEX: Final = ClientFacts(
    name="codex",
    events=HookEvents(
        session_start="SessionStart",
        per_prompt="UserPromptSubmit",
        after_tool="PostToolUse",
    ),
    hook_files=SettingsFiles(
        project=".codex/hooks.json", user="hooks.json", user_root="$CODEX_HOME"
    ),
    # --trust writes [projects."ROOT"] trust_level = "trusted" into config.toml.
    timeout_unit="s",
    settings_comments=False,
    # With Codex's default model the shell runs inside its JavaScript "exec" tool (code
    # mode); the hooks still see Bash with the command string, and apply_patch with the patch.
    file_tools=(
        FileTool("Bash", ("command",), kind="shell"),
        FileTool("apply_patch", ("command",), kind="patch"),
    ),
    mcp=McpFacts(
        first_line_max=250,
        instructions_chars=None,
        server_files=SettingsFiles(
            project=".codex/config.toml", user="config.toml", user_root="$CODEX_HOME"
        ),
        approval_files=None,
    ),
    loads_by_itself=("AGENTS.md",),
    loads_unless={},
    loads_nested=False,
    import_style=None,
    companions={},
    # Codex 0.169.0 codex-rs/hooks/src/output_spill.rs: HOOK_OUTPUT_TOKEN_LIMIT = 2_500
    # approximate tokens, ceil(bytes / 4), spilled to $CODEX_HOME/hook_outputs/ past it.
    inline_chars=10_000,
    expands_at=frozenset(),
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


# -- what reaches the model as sent ------------------------------------------------------

GEMINI_AT_COMMAND: Final = re.compile(
    r"""(?<!\\)@(?=(?:"[^"]*"|\\.|[^ \t\n\r,;!?()\[\]{}.]|\.(?![ \t\n\r]|\Z)))"""
)
"""An ``@`` that Gemini CLI 0.61.0 reads as a file, folder, agent or resource reference:
``parseAllAtCommands`` matches ``(?<!\\)@`` followed by a path (``"quoted"``, an escaped
character, or any character but whitespace and ``,;!?()[]{}``, a ``.`` only inside the
path); a name that is no file is looked up by glob (``**/*NAME*``), so ``@claude review``
pulls in any file whose name holds "claude". A backslash before the ``@`` makes it text."""


def neutralise_at(text: str) -> str:
    """``text`` with a backslash before each ``@`` Gemini CLI would expand (its own escape:
    the ``@`` then stays text, and the model reads ``\\@name`` as the mention it was)."""
    return GEMINI_AT_COMMAND.sub(r"\\@", text)


def inline_size(text: str) -> int:
    """``text``'s size as :attr:`ClientFacts.inline_chars` bounds it: UTF-8 bytes, which
    Codex counts and which are never fewer than Claude Code's UTF-16 units."""
    return len(text.encode("utf-8"))


# -- building what a client reads --------------------------------------------------------


def hook_output(event: str, text: str) -> dict[str, Any]:
    """The JSON a hook prints so that ``text`` reaches the model (all three clients)."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
