"""``context-providers setup CLIENT`` on real settings files that already hold a user's
hooks and other keys: merged (never overwritten), idempotent, ``--remove`` undoes
exactly what it added, ``--print`` writes nothing (issue 21)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from providers.clients import facts
from providers.clients.setup import MARK
from tests.clients.bridge import HOOK

CLIENTS = tuple(facts.FACTS)
USER_SETTINGS = {
    "model": "whatever-the-user-chose",
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "my-linter", "timeout": 5}],
            }
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
    "mcpServers": {"mine": {"command": "my-server"}},
}


def setup(args: list[str], home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
    }
    return subprocess.run(
        [str(Path(sys.executable).parent / "context-providers"), "setup", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def settings_file(client: str, scope: str, home: Path, repo: Path) -> Path:
    files = facts.FACTS[client].hook_files
    if scope == "project":
        return repo / files.project
    return (home / ".codex" / files.user) if client == "codex" else home / files.user


@pytest.mark.parametrize("scope", ["user", "project"])
@pytest.mark.parametrize("client", CLIENTS)
def test_setup_merges_is_idempotent_and_removes_exactly_its_own(
    tmp_path: Path, client: str, scope: str
) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    path = settings_file(client, scope, home, repo)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(USER_SETTINGS, indent=4))
    args = [client, "--scope", scope]

    first = setup(args, home, repo)
    assert first.returncode == 0, first.stderr
    merged = json.loads(path.read_text())
    assert merged["model"] == USER_SETTINGS["model"]
    assert merged["mcpServers"] == USER_SETTINGS["mcpServers"]
    assert merged["hooks"]["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    events = facts.FACTS[client].events
    for event in (events.session_start, events.per_prompt, events.after_tool):
        ours = [h for g in merged["hooks"][event] for h in g["hooks"] if MARK in h["command"]]
        assert len(ours) == 1, event
        assert str(HOOK.resolve()) in ours[0]["command"] and ours[0]["command"].endswith(client)
        expected = 15000 if facts.FACTS[client].timeout_unit == "ms" else 15
        assert ours[0]["timeout"] == expected
    assert (events.after_tool == "PostToolUse") == (client != "gemini")
    # the user's own PostToolUse hook is still first, untouched
    tool_groups = merged["hooks"][events.after_tool]
    if events.after_tool == "PostToolUse":
        assert tool_groups[0] == USER_SETTINGS["hooks"]["PostToolUse"][0]
    assert ("SessionEnd" in merged["hooks"]) == (client != "codex")
    if client == "codex":
        assert "/hooks" in first.stdout and "trust" in first.stdout

    second = setup(args, home, repo)
    assert second.returncode == 0 and "already set up" in second.stdout
    assert json.loads(path.read_text()) == merged

    removed = setup([*args, "--remove"], home, repo)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(path.read_text()) == USER_SETTINGS
    assert "no context-providers hooks" in setup([*args, "--remove"], home, repo).stdout


@pytest.mark.parametrize("client", CLIENTS)
def test_print_shows_the_snippet_and_writes_nothing(tmp_path: Path, client: str) -> None:
    home = tmp_path / "home"
    done = setup([client, "--print"], home, tmp_path)
    assert done.returncode == 0
    header, _, body = done.stdout.partition("\n")
    assert header.startswith("# ") and header.endswith(facts.FACTS[client].hook_files.user)
    snippet = json.loads(body)
    assert facts.FACTS[client].events.per_prompt in snippet["hooks"]
    assert not home.exists()


def test_a_new_file_is_created_and_removed_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert setup(["gemini"], home, tmp_path).returncode == 0
    path = home / ".gemini" / "settings.json"
    assert "BeforeAgent" in json.loads(path.read_text())["hooks"]
    assert setup(["gemini", "--remove"], home, tmp_path).returncode == 0
    assert not path.exists()


def test_only_some_parts_and_budgets(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = setup(["claude", "--only", "start,tool", "--tool-budget", "500"], home, tmp_path)
    assert done.returncode == 0, done.stderr
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "PostToolUse", "SessionEnd"}
    assert hooks["PostToolUse"][0]["hooks"][0]["command"].endswith("claude tool=500")


def test_a_settings_file_that_is_not_json_is_left_alone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{ this is not json")
    done = setup(["claude"], home, tmp_path)
    assert done.returncode == 1 and "not valid JSON" in done.stderr
    assert path.read_text() == "{ this is not json"
