"""providers.clients.facts without the clients: the pure functions the bridge calls (hook
settings and output, timeout units, MCP registration, convention files, and the paths a
tool call names), on the inputs the real clients were seen to send."""

from __future__ import annotations

import dataclasses
import enum
import json
import tomllib
from pathlib import Path
from types import MappingProxyType

import pytest

from providers.clients import facts, settings_snippets, tool_paths
from tests.clients.measured import MEASURED

paths_of = tool_paths.paths_from_tool_input


def test_every_client_has_its_entry() -> None:
    """One entry per client, keyed by its name; the three one-shot commands."""
    assert set(facts.FACTS) == {"claude", "gemini", "codex"}
    assert {f.one_shot for f in MEASURED.values()} == {
        ("claude", "-p"),
        ("gemini", "-p"),
        ("codex", "exec"),
    }
    for info in facts.FACTS.values():
        events = info.events
        used = {events.session_start, events.per_prompt, events.after_tool}
        assert not used & set(MEASURED[info.name].never), info.name
        assert used == set(MEASURED[info.name].context_lands), info.name


def test_packages_agree_with_the_pins() -> None:
    """measured.npm_package names the package tests/clients/versions.json pins (the only place
    with versions)."""
    pins = json.loads((Path(__file__).parent / "versions.json").read_text())
    assert {name: f.npm_package for name, f in MEASURED.items()} == {
        name: pin["package"] for name, pin in pins.items()
    }


def test_hook_output_shape() -> None:
    """HOOK_OUTPUT_SHAPE: hookSpecificOutput with the event name and additionalContext."""
    assert facts.hook_output("SessionStart", "text") == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "text"}
    }


@pytest.mark.parametrize(
    ("client", "seconds", "expected"),
    [("claude", 5, 5), ("codex", 0.2, 1), ("gemini", 5, 5000), ("gemini", 0.25, 250)],
)
def test_timeout_value_in_the_clients_unit(client: str, seconds: float, expected: int) -> None:
    """facts.timeout_unit: Gemini counts milliseconds, the others whole seconds (at least 1)."""
    assert settings_snippets.timeout_value(client, seconds) == expected


def test_hook_settings_groups_hooks_by_event() -> None:
    """The settings shape shared by the three clients: event -> [{matcher, hooks: [...]}]."""
    settings = settings_snippets.hook_settings(
        "gemini", [("BeforeAgent", "a", 2), ("BeforeAgent", "b", 1), ("AfterTool", "c", 3)]
    )
    assert settings == {
        "hooks": {
            "BeforeAgent": [
                {
                    "matcher": "*",
                    "hooks": [
                        {"type": "command", "command": "a", "timeout": 2000},
                        {"type": "command", "command": "b", "timeout": 1000},
                    ],
                }
            ],
            "AfterTool": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "c", "timeout": 3000}]}
            ],
        }
    }


def test_mcp_registration_shapes() -> None:
    """measured.mcp_registration: JSON mcpServers for Claude (type stdio) and Gemini (trust),
    TOML [mcp_servers.NAME] for Codex (required, tools approved)."""
    servers = [("ctx", "/usr/bin/python3", ("-m", "bridge"))]
    claude = settings_snippets.mcp_json("claude", servers)["mcpServers"]["ctx"]
    assert claude == {
        "type": "stdio",
        "command": "/usr/bin/python3",
        "args": ["-m", "bridge"],
        "env": {},
    }
    assert settings_snippets.mcp_json("gemini", servers)["mcpServers"]["ctx"]["trust"] is True
    codex = tomllib.loads(settings_snippets.codex_mcp_toml(servers))["mcp_servers"]["ctx"]
    assert codex == {
        "command": "/usr/bin/python3",
        "args": ["-m", "bridge"],
        "required": True,
        "default_tools_approval_mode": "approve",
    }
    with pytest.raises(ValueError):
        settings_snippets.mcp_json("codex", servers)
    passed = tomllib.loads(
        settings_snippets.codex_mcp_toml(
            servers, env_vars=["XDG_RUNTIME_DIR"], startup_timeout_s=30
        )
    )["mcp_servers"]["ctx"]
    assert passed == {**codex, "env_vars": ["XDG_RUNTIME_DIR"], "startup_timeout_sec": 30}


def test_mcp_files_and_environment() -> None:
    """facts.mcp.server_files / approval_files / environment: where setup --mcp writes
    (tests/clients/test_mcp_clients.py runs each client on what it wrote)."""
    claude, gemini, codex = (facts.FACTS[c].mcp for c in ("claude", "gemini", "codex"))
    assert (claude.server_files.project, claude.server_files.user) == (".mcp.json", ".claude.json")
    assert claude.approval_files is not None
    assert claude.approval_files.project == ".claude/settings.local.json"
    assert gemini.server_files == facts.GEMINI.hook_files and gemini.approval_files is None
    assert codex.server_files.user_root == "$CODEX_HOME" and codex.approval_files is None
    assert [MEASURED[c].mcp_environment for c in ("claude", "gemini", "codex")] == [
        "inherited",
        "inherited",
        "allowlist",
    ]


@pytest.mark.parametrize(
    ("client", "present", "loaded"),
    [
        ("claude", {"AGENTS.md", "CLAUDE.md", "GEMINI.md"}, {"CLAUDE.md"}),
        ("claude", {"AGENTS.md", ".claude/rules/"}, {"AGENTS.md", ".claude/rules/"}),
        ("gemini", {"AGENTS.md", "CLAUDE.md", "GEMINI.md"}, {"GEMINI.md"}),
        ("gemini", {"AGENTS.md"}, set()),
        ("codex", {"AGENTS.md", "CLAUDE.md", "GEMINI.md"}, {"AGENTS.md"}),
    ],
)
def test_loaded_conventions(client: str, present: set[str], loaded: set[str]) -> None:
    """facts.loads_by_itself and loads_unless: what the bridge must not send again."""
    assert facts.loaded_conventions(client, present) == loaded


def test_paths_from_file_tools() -> None:
    """facts.file_tools: Claude and Gemini name the file in file_path, their shell tools
    (Claude's Bash, Gemini's run_shell_command) carry a command read by the one shell
    parser Codex's goes through; a tool that is not a file tool, or an input without the
    key, names none."""
    assert paths_of("claude", "Read", {"file_path": "/r/a.py"}) == ("/r/a.py",)
    assert paths_of("gemini", "read_file", {"file_path": "a.py"}) == ("a.py",)
    assert paths_of("claude", "Bash", {"command": "cat a.py"}) == ("a.py",)
    bash = {"command": "nl -ba src/a.py | sed -n 1,40p", "description": "show it"}
    assert paths_of("claude", "Bash", bash) == ("src/a.py",)
    shell = {"command": "head -n 5 lib/b.py", "description": "x"}
    assert paths_of("gemini", "run_shell_command", shell) == ("lib/b.py",)
    assert paths_of("claude", "Bash", {"command": "make test"}) == ()
    assert paths_of("claude", "WebFetch", {"command": "cat a.py"}) == ()
    assert paths_of("gemini", "replace", {}) == ()


def test_codex_tool_inputs() -> None:
    """facts.CODEX.file_tools: Bash carries a shell command (a string as seen, or argv),
    apply_patch the patch, both under "command"."""
    assert paths_of("codex", "Bash", {"command": "cat src/a.py"}) == ("src/a.py",)
    argv = ["bash", "-lc", "sed -n '1,20p' src/a.py"]
    assert paths_of("codex", "Bash", {"command": argv}) == ("src/a.py",)
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@\n-x\n+y\n"
        "*** Add File: docs/new.md\n+hi\n*** Delete File: old.txt\n*** End Patch\n"
    )
    assert paths_of("codex", "apply_patch", {"command": patch}) == (
        "src/a.py",
        "src/b.py",
        "docs/new.md",
        "old.txt",
    )


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("cat src/a.py", ["src/a.py"]),
        ("cat -n a.py b.py", ["a.py", "b.py"]),
        ('cat "dir with space/a.py"', ["dir with space/a.py"]),
        ("sed -n '1,80p' src/a.py", ["src/a.py"]),
        ("sed -n '1,$p' src/a.py", ["src/a.py"]),
        ("sed -n -e 1p -e 5p a.py", ["a.py"]),
        ("sed -ne 1p a.py", ["a.py"]),
        ("head -n 20 a.py", ["a.py"]),
        ("head -20 a.py", ["a.py"]),
        ("tail -n5 log.txt", ["log.txt"]),
        ("nl -ba src/a.py | sed -n '1,40p'", ["src/a.py"]),
        ("nl -b a src/a.py", ["src/a.py"]),
        ("rg -n foo src", ["src"]),
        ("rg -n -A3 'a b' src lib", ["src", "lib"]),
        ("rg -nA 3 foo src", ["src"]),
        ("rg -e foo -e bar src", ["src"]),
        ("rg --files src", ["src"]),
        ("rg --max-depth 2 foo src", ["src"]),
        ("rg --glob='*.py' foo src", ["src"]),
        ("grep -rn 'x y' src lib", ["src", "lib"]),
        ("grep -c x -- -weird", ["-weird"]),
        ("cat a.py && cat b.py; head c.py", ["a.py", "b.py", "c.py"]),
        ("cat a.py a.py", ["a.py"]),
        ("bash -lc 'cat src/a.py'", ["src/a.py"]),
        # Not understood, or not a plain read: no path at all.
        ("cat $FILE", []),
        ('cat "$FILE"', []),
        ("cat `which x`", []),
        ("cat $(ls)", []),
        ("cat *.py", []),
        ("cat src/{a,b}.py", []),
        ("rg --glob=*.py foo src", []),
        ("cat ~/notes", []),
        ("cat a.py > b.py", []),
        ("cat < a.py", []),
        ("(cat a.py)", []),
        ("cd src && cat a.py", []),
        ("ls src", []),
        ("sed -i s/a/b/ a.py", []),
        ("sed 1p a.py", []),
        ("rg --unknown-option x src", []),
        ("head -n", []),
        ("cat 'unterminated", []),
        ("python -c 'print(1)'", []),
    ],
)
def test_paths_from_shell(command: str, paths: list[str]) -> None:
    """tool_paths.paths_from_shell: the conservative forms give their file operands; anything the
    shell would expand, redirect, or a command outside the readers gives none."""
    assert list(tool_paths.paths_from_shell(command)) == paths


def test_facts_are_plain_data() -> None:
    """The table is plain data: it serialises to JSON (strings, tuples, mappings; an
    import style's enum by its value)."""

    def default(value: object) -> object:
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, frozenset):
            return sorted(value)
        if isinstance(value, MappingProxyType | dict):
            return dict(value)
        raise TypeError(type(value))

    table = {name: dataclasses.asdict(info) for name, info in facts.FACTS.items()}
    assert json.loads(json.dumps(table, default=default))["codex"]["timeout_unit"] == "s"
