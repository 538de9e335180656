"""``context-providers setup CLIENT --mcp`` on real settings files that already hold a
user's servers, hooks and keys: the MCP server registered where each client reads it
(facts.mcp.server_files, with Claude's permission rule in facts.mcp.approval_files),
merged, idempotent, ``--remove`` exact, ``--print`` writes nothing (issue 21)."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from providers.clients import facts, json_text
from providers.clients.mcp_session import SERVER_NAME
from providers.clients.mcp_setup import ENV_PASSED, RULE
from tests.clients import gemini_json, test_setup
from tests.clients.test_setup import USER_SETTINGS, setup

CLIENTS = tuple(facts.FACTS)
CLAUDE_STATE = {"numStartups": 7, "projects": {"/somewhere": {"allowedTools": []}}}
CODEX_CONFIG = """\
# my Codex settings
model = "gpt-5"

[mcp_servers.mine]
command = "my-server"
args = ["--fast"]

[projects."/somewhere"]
trust_level = "trusted"
"""


def server_file(client: str, scope: str, home: Path, repo: Path) -> Path:
    files = facts.FACTS[client].mcp.server_files
    if scope == "project":
        return repo / files.project
    return (home / ".codex" / files.user) if client == "codex" else home / files.user


def approval_file(scope: str, home: Path, repo: Path) -> Path:
    files = facts.CLAUDE.mcp.approval_files
    assert files is not None
    return repo / files.project if scope == "project" else home / files.user


def registered(client: str, path: Path) -> dict[str, object]:
    if client == "codex":
        servers = tomllib.loads(path.read_text())["mcp_servers"]
    else:
        servers = json.loads(path.read_text())["mcpServers"]
    entry: dict[str, object] = servers[SERVER_NAME]
    return entry


def first_contents(client: str) -> str:
    if client == "codex":
        return CODEX_CONFIG
    return json.dumps({**USER_SETTINGS, **(CLAUDE_STATE if client == "claude" else {})}, indent=2)


@pytest.mark.parametrize("scope", ["user", "project"])
@pytest.mark.parametrize("client", CLIENTS)
def test_setup_mcp_merges_is_idempotent_and_removes_exactly_its_own(
    tmp_path: Path, client: str, scope: str
) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    path = server_file(client, scope, home, repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    before = first_contents(client) + "\n"
    path.write_text(before)
    approval = approval_file(scope, home, repo) if client == "claude" else None
    if approval is not None:
        approval.parent.mkdir(parents=True, exist_ok=True)
        approval.write_text(json.dumps({"permissions": {"allow": ["Bash(ls:*)"]}}, indent=2))
    args = [client, "--mcp", "--scope", scope]

    first = setup(args, home, repo)
    assert first.returncode == 0, first.stderr
    entry = registered(client, path)
    assert entry["args"] == ["mcp", "--client", client]
    # the console script: by name in a project's file, beside the interpreter in the user's
    script = Path(sys.executable).parent / "context-providers"
    assert entry["command"] == ("context-providers" if scope == "project" else str(script))
    if client == "codex":
        table = tomllib.loads(path.read_text())
        assert table["model"] == "gpt-5" and table["mcp_servers"]["mine"]["command"] == "my-server"
        # a project's server is not required: without the tool a session must not fail
        assert entry["required"] is (scope == "user")
        assert entry["default_tools_approval_mode"] == "approve"
        assert entry["env_vars"] == list(ENV_PASSED) and "XDG_RUNTIME_DIR" in ENV_PASSED
        assert path.read_text().startswith(before)  # appended: nothing of theirs moved
    else:
        merged = json.loads(path.read_text())
        assert merged["mcpServers"]["mine"] == USER_SETTINGS["mcpServers"]["mine"]
        assert merged["hooks"] == USER_SETTINGS["hooks"]
        assert entry.get("trust") is (True if client == "gemini" else None)
    if approval is not None:
        assert json.loads(approval.read_text())["permissions"]["allow"] == ["Bash(ls:*)", RULE]
        assert f"{approval}: MCP server {SERVER_NAME} added" in first.stdout
    after_first = path.read_text()

    second = setup(args, home, repo)
    assert second.returncode == 0 and "already set up" in second.stdout
    assert path.read_text() == after_first

    removed = setup([*args, "--remove"], home, repo)
    assert removed.returncode == 0, removed.stderr
    if client == "codex":
        assert path.read_text() == before  # byte for byte
    else:
        assert json.loads(path.read_text()) == json.loads(before)
    if approval is not None:
        assert json.loads(approval.read_text()) == {"permissions": {"allow": ["Bash(ls:*)"]}}
    again = setup([*args, "--remove"], home, repo)
    assert "no context-providers MCP server" in again.stdout


@pytest.mark.parametrize("client", CLIENTS)
def test_print_shows_the_registration_and_writes_nothing(tmp_path: Path, client: str) -> None:
    home = tmp_path / "home"
    done = setup([client, "--mcp", "--print"], home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"# {server_file(client, 'user', home, tmp_path)}" in done.stdout
    assert SERVER_NAME in done.stdout and "--client" in done.stdout
    assert (RULE in done.stdout) is (client == "claude")
    assert not home.exists()


def test_new_files_are_created_and_removed_again(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    for client in CLIENTS:
        assert setup([client, "--mcp", "--scope", "project"], home, repo).returncode == 0
    made = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file())
    assert made == [
        ".claude/settings.local.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".mcp.json",
    ]
    tomllib.loads((repo / ".codex/config.toml").read_text())
    for client in CLIENTS:
        assert (
            setup([client, "--mcp", "--scope", "project", "--remove"], home, repo).returncode == 0
        )
    assert not [p for p in repo.rglob("*") if p.is_file()]


def test_hooks_and_the_server_are_set_up_apart(tmp_path: Path) -> None:
    """setup claude (hooks) and setup claude --mcp share ~/.claude/settings.json; removing
    one leaves the other."""
    home = tmp_path / "home"
    assert setup(["claude"], home, tmp_path).returncode == 0
    assert setup(["claude", "--mcp", "--start-budget", "3000"], home, tmp_path).returncode == 0
    settings = json.loads((home / ".claude/settings.json").read_text())
    assert "SessionStart" in settings["hooks"] and settings["permissions"]["allow"] == [RULE]
    assert registered("claude", home / ".claude.json")["args"][-2:] == ["--budget", "3000"]
    assert setup(["claude", "--mcp", "--remove"], home, tmp_path).returncode == 0
    settings = json.loads((home / ".claude/settings.json").read_text())
    assert "permissions" not in settings and "SessionStart" in settings["hooks"]
    assert not (home / ".claude.json").exists()


def test_a_table_added_after_ours_stays(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CODEX_CONFIG)
    assert setup(["codex", "--mcp"], home, tmp_path).returncode == 0
    later = '\n[mcp_servers.other]\ncommand = "other"\n'
    path.write_text(path.read_text() + later)
    assert setup(["codex", "--mcp", "--remove"], home, tmp_path).returncode == 0
    assert path.read_text() == CODEX_CONFIG + later


@pytest.mark.parametrize(
    ("client", "name", "text", "why"),
    [
        (
            "gemini",
            ".gemini/settings.json",
            '{"mcpServers": {"context_providers": {}}}',
            "not ours",
        ),
        (
            "codex",
            ".codex/config.toml",
            "[mcp_servers.context_providers]\ncommand = 'x'\n",
            "not ours",
        ),
        ("codex", ".codex/config.toml", "model = [unclosed\n", "not valid TOML"),
        ("claude", ".claude.json", "{ not json", "not valid JSON"),
    ],
)
def test_what_is_not_ours_is_left_alone(
    tmp_path: Path, client: str, name: str, text: str, why: str
) -> None:
    home = tmp_path / "home"
    path = home / name
    path.parent.mkdir(parents=True)
    path.write_text(text)
    done = setup([client, "--mcp"], home, tmp_path)
    assert done.returncode == 1 and why in done.stderr
    assert path.read_text() == text
    assert not (home / ".claude" / "settings.json").exists()  # nothing written elsewhere


# -- never damage a settings file (issue 27 item 4) ----------------------------------------

CLAUDE_JSON = json.dumps(
    {
        "numStartups": 42,
        "installMethod": "npm",
        "oauthAccount": {"accountUuid": "0000", "emailAddress": "me@example.com"},
        "userID": "deadbeef",
        "mcpServers": {
            "github": {"type": "stdio", "command": "gh-mcp", "args": [], "env": {"T": "x"}},
            "fs": {"type": "stdio", "command": "fs-mcp", "args": ["/home"], "env": {}},
        },
        "projects": {"/somewhere": {"allowedTools": [], "hasTrustDialogAccepted": True}},
    },
    indent=2,
)  # as Claude Code writes it: two spaces, no final newline
CODEX_WITH_COMMENTS = """\
# ~/.codex/config.toml, by hand
model = "gpt-5"            # the default model
approval_policy = "on-request"

# my servers
[mcp_servers.mine]
command = "my-server"
args = ["--fast"]  # quicker

# trusted projects, one table each
[projects."/somewhere"]
trust_level = "trusted"

# the end
"""
JSON_ROUND_TRIPS = {
    "claude": ("~/.claude.json with other servers", CLAUDE_JSON),
    "gemini": ("settings with comments", test_setup.GEMINI_SETTINGS),
}


@pytest.mark.parametrize("client", CLIENTS)
def test_setup_mcp_then_remove_gives_back_the_files_byte_for_byte(
    tmp_path: Path, client: str
) -> None:
    """~/.claude.json (0600: it holds tokens) with other servers and Claude's settings with
    other hooks, Gemini's commented settings, Codex's commented config.toml: the server
    goes in and out, and every byte, the mode and the owner stay."""
    home = tmp_path / "home"
    path = server_file(client, "user", home, tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    before = CODEX_WITH_COMMENTS if client == "codex" else JSON_ROUND_TRIPS[client][1]
    path.write_text(before)
    path.chmod(0o600)
    approval = approval_file("user", home, tmp_path) if client == "claude" else None
    if approval is not None:
        approval.parent.mkdir(parents=True, exist_ok=True)
        approval.write_text(test_setup.CLAUDE_SETTINGS)
    done = setup([client, "--mcp"], home, tmp_path)
    assert done.returncode == 0, done.stderr
    if client == "codex":
        assert path.read_text().startswith(before)
        assert registered(client, path)["required"] is True
    elif client == "gemini":
        (reading,) = (
            gemini_json.readings([path.read_text()]) if gemini_json.missing() is None else [None]
        )
        assert reading is None or SERVER_NAME in reading.value["mcpServers"]
        assert path.read_text().count("//") == before.count("//")
    else:
        assert list(json.loads(path.read_text())["mcpServers"]) == ["github", "fs", SERVER_NAME]
    if approval is not None:
        allow = json.loads(approval.read_text())["permissions"]["allow"]
        assert allow == ["Bash(npm run lint)", "Read(~/.zshrc)", RULE]
    assert path.stat().st_mode & 0o7777 == 0o600
    removed = setup([client, "--mcp", "--remove"], home, tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert path.read_text() == before
    assert path.stat().st_mode & 0o7777 == 0o600
    if approval is not None:
        assert approval.read_text() == test_setup.CLAUDE_SETTINGS


def test_codex_comments_before_the_next_table_are_kept(tmp_path: Path) -> None:
    """Our table, then a comment and another table added by hand: setup (again, with other
    arguments) and --remove keep the comment (both deleted it before issue 27)."""
    home = tmp_path / "home"
    path = home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CODEX_WITH_COMMENTS)
    assert setup(["codex", "--mcp"], home, tmp_path).returncode == 0
    later = '\n# added later, by hand\n[mcp_servers.other]\ncommand = "other"  # note\n'
    path.write_text(path.read_text() + later)
    again = setup(["codex", "--mcp", "--start-budget", "3000"], home, tmp_path)
    assert again.returncode == 0, again.stderr
    text = path.read_text()
    assert text.startswith(CODEX_WITH_COMMENTS) and text.endswith(later)
    assert registered("codex", path)["args"][-2:] == ["--budget", "3000"]
    assert setup(["codex", "--mcp", "--remove"], home, tmp_path).returncode == 0
    assert path.read_text() == CODEX_WITH_COMMENTS + later


def test_our_server_is_replaced_where_it_stands(tmp_path: Path) -> None:
    """A changed registration keeps its place among the user's servers."""
    home = tmp_path / "home"
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(test_setup.GEMINI_SETTINGS)
    assert setup(["gemini", "--mcp"], home, tmp_path).returncode == 0
    later = json_text.append(
        path.read_text(), ("mcpServers",), {"command": "z"}, key="z", comments=True
    )
    path.write_text(later)
    assert setup(["gemini", "--mcp", "--start-budget", "10"], home, tmp_path).returncode == 0
    text = path.read_text()
    servers = json_text.parse(text, comments=True).value()["mcpServers"]
    assert list(servers) == ["github", SERVER_NAME, "z"]
    assert text.count("//") == later.count("//") and text.endswith(later[-40:])
    assert servers[SERVER_NAME]["args"][-1] == "10"


@pytest.mark.parametrize("client", ["claude", "gemini"])
def test_a_symlinked_server_file_stays_a_symlink(tmp_path: Path, client: str) -> None:
    home = tmp_path / "home"
    path = server_file(client, "user", home, tmp_path)
    target = home / "dotfiles" / path.name
    target.parent.mkdir(parents=True)
    before = JSON_ROUND_TRIPS[client][1]
    target.write_text(before)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    assert setup([client, "--mcp"], home, tmp_path).returncode == 0
    assert path.is_symlink() and SERVER_NAME in target.read_text()
    assert setup([client, "--mcp", "--remove"], home, tmp_path).returncode == 0
    assert path.is_symlink() and target.read_text() == before
