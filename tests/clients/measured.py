"""What each real client does that the bridge need not know at run time, measured on
the installed clients (the versions in ``versions.json``): the events that must never
carry context, the one-shot command, where a hook's context lands, the trust arguments,
the hook input's fields, how an MCP server is registered and how much of its
instructions reach the model. ``test_real_clients.py`` checks each against the client;
the table the bridge reads is ``providers/clients/facts.py``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from providers.clients.facts import COMMON_INPUT_FIELDS


@dataclass(frozen=True)
class Avoid:
    """Why an event must not carry context: the client ``rejects`` its name, ``ignores``
    its additionalContext, or the context ``reopens`` the finished turn (the model is
    called again, and again)."""

    kind: Literal["rejects", "ignores", "reopens"]
    why: str


@dataclass(frozen=True)
class Measured:
    npm_package: str
    one_shot: tuple[str, ...]
    never: Mapping[str, Avoid]
    context_role: str
    """The role of the message that carries a hook's additionalContext."""
    context_lands: Mapping[str, str]
    plain_stdout_reaches: frozenset[str]
    hook_trust_args: tuple[str, ...]
    """Command-line arguments without which the client skips the hooks (silently)."""
    project_trust_args: tuple[str, ...]
    """Command-line arguments without which the client ignores the project's hook file."""
    hook_input_fields: tuple[str, ...]
    prompt_input_fields: tuple[str, ...]
    tool_input_fields: tuple[str, ...]
    mcp_registration: str
    mcp_waits_for_server: str
    mcp_instructions_role: str
    """The role of the message carrying the server's instructions."""
    mcp_instructions_kept: Literal["all", "first_line"]
    mcp_environment: Literal["inherited", "allowlist"]
    """What a server's environment holds: the client's, or (Codex) a short allowlist
    plus the variables its ``env_vars`` names."""


CLAUDE: Final = Measured(
    npm_package="@anthropic-ai/claude-code",
    one_shot=("claude", "-p"),
    never={"Stop": Avoid("reopens", "additionalContext on Stop makes a new model request")},
    context_role="system",
    context_lands={
        "SessionStart": "a system-role message in messages[], every request of the session",
        "UserPromptSubmit": "a system-role message in messages[], every request of the turn",
        "PostToolUse": "a system-role message after the tool result, from the next request on",
    },
    plain_stdout_reaches=frozenset({"SessionStart", "UserPromptSubmit"}),
    hook_trust_args=(),
    project_trust_args=(),
    hook_input_fields=COMMON_INPUT_FIELDS,
    prompt_input_fields=("prompt",),
    tool_input_fields=("tool_name", "tool_input", "tool_response"),
    mcp_registration=(
        '"mcpServers" (type "stdio") in a file given by --mcp-config, in ~/.claude.json '
        "(user scope) or in the repository's .mcp.json (project scope, needs approval: "
        '"enableAllProjectMcpServers")'
    ),
    mcp_waits_for_server=(
        "-p waits for --mcp-config servers only; .mcp.json and ~/.claude.json servers "
        'connect in the background and a request leaves "still connecting" without them'
    ),
    mcp_instructions_role="system",
    mcp_instructions_kept="all",
    mcp_environment="inherited",
)

GEMINI: Final = Measured(
    npm_package="@google/gemini-cli",
    one_shot=("gemini", "-p"),
    never={
        "UserPromptSubmit": Avoid("rejects", 'Claude\'s name: "Invalid hook event name"'),
        "PostToolUse": Avoid("rejects", 'Claude\'s name: "Invalid hook event name"'),
        "BeforeTool": Avoid("ignores", "fires with the tool input; additionalContext lost"),
        "BeforeModel": Avoid("ignores", "fires with the request; additionalContext lost"),
    },
    context_role="user",
    context_lands={
        "SessionStart": "prepended to the prompt as <hook_context>TEXT</hook_context> (and "
        "so part of the prompt BeforeAgent hooks receive)",
        "BeforeAgent": "an extra text part after the prompt",
        "AfterTool": "appended to the tool's output (the functionResponse)",
    },
    plain_stdout_reaches=frozenset(),
    hook_trust_args=(),
    project_trust_args=(),
    hook_input_fields=COMMON_INPUT_FIELDS,
    prompt_input_fields=("prompt",),
    tool_input_fields=("tool_name", "tool_input", "tool_response"),
    mcp_registration='"mcpServers" in .gemini/settings.json or ~/.gemini/settings.json',
    mcp_waits_for_server="yes: the first request leaves after the server is up",
    mcp_instructions_role="user",
    mcp_instructions_kept="all",
    mcp_environment="inherited",
)

CODEX: Final = Measured(
    npm_package="@openai/codex",
    one_shot=("codex", "exec"),
    never={"Stop": Avoid("ignores", "fires after the last request; context is lost")},
    context_role="developer",
    context_lands={
        "SessionStart": "a developer message in input[]",
        "UserPromptSubmit": "a developer message in input[]",
        "PostToolUse": "a developer message after the tool output",
    },
    plain_stdout_reaches=frozenset({"SessionStart", "UserPromptSubmit"}),
    hook_trust_args=("--dangerously-bypass-hook-trust",),
    project_trust_args=("--trust",),
    hook_input_fields=COMMON_INPUT_FIELDS,
    prompt_input_fields=("prompt",),
    tool_input_fields=("tool_name", "tool_input", "tool_response"),
    mcp_registration="[mcp_servers.NAME] (command, args) in $CODEX_HOME/config.toml",
    mcp_waits_for_server="only with required = true on the server's table",
    mcp_instructions_role="developer",
    mcp_instructions_kept="first_line",
    mcp_environment="allowlist",
)

MEASURED: Final[Mapping[str, Measured]] = {"claude": CLAUDE, "gemini": GEMINI, "codex": CODEX}
