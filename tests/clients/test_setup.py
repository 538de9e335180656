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

from providers.clients import facts, json_text
from providers.clients.setup import LAUNCHER as MARK
from providers.clients.setup import events_for, installed_launcher
from tests.clients import gemini_json

LAUNCHER_PATH = installed_launcher(MARK)

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
        launcher = "context-providers-hook" if scope == "project" else str(LAUNCHER_PATH)
        assert ours[0]["command"].endswith(f" {launcher} {client}"), ours[0]["command"]
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


# -- never damage a settings file (issue 27 item 4) ----------------------------------------

CLAUDE_SETTINGS = """\
{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Read(~/.zshrc)"
    ],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/.claude/hooks/check-bash.sh"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [{"type": "command", "command": "echo hello"}]
      }
    ]
  },
  "model": "opus",
  "env": {"FOO": "bar"}
}
"""
GEMINI_SETTINGS = """\
// Gemini CLI reads this file with comments
{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key" // the key is in the environment
    }
  },
  /* my own hooks */
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file",
        "hooks": [{ "type": "command", "command": "lint.sh", "timeout": 5000 }]
      }
    ]
  },
  "mcpServers": {
    "github": { "command": "gh-mcp" } // trailing comment
  },
  "ui": { "theme": "GitHub" }
}
"""
TABS = '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Notification": [\n\t\t\t{\n\t\t\t\t"hooks": [\n\t\t\t\t\t{\n\t\t\t\t\t\t"type": "command",\n\t\t\t\t\t\t"command": "notify-send hi"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n'  # noqa: E501
CODEX_HOOKS = '{\n    "hooks": {\n        "Stop": [\n            {\n                "hooks": [{"type": "command", "command": "say done"}]\n            }\n        ]\n    }\n}'  # noqa: E501
ROUND_TRIPS = {
    ("claude", "settings with other hooks"): CLAUDE_SETTINGS,
    ("claude", "tab-indented"): TABS,
    ("claude", "on one line"): json.dumps(USER_SETTINGS),
    ("gemini", "settings with comments"): GEMINI_SETTINGS,
    ("gemini", "tab-indented"): TABS,
    ("codex", "hooks.json without a final newline"): CODEX_HOOKS,
    ("codex", "empty object"): "{}\n",
}


def ours_in(path: Path, client: str) -> dict[str, int]:
    """Our hooks in ``path`` by event, read as the client reads the file."""
    settings = json_text.parse(path.read_text(), comments=client == "gemini").value()
    return {
        event: sum(MARK in h["command"] for g in groups for h in g.get("hooks", []))
        for event, groups in settings.get("hooks", {}).items()
        if any(MARK in h["command"] for g in groups for h in g.get("hooks", []))
    }


@pytest.mark.parametrize(("client", "kind"), list(ROUND_TRIPS))
def test_setup_then_remove_gives_back_the_file_byte_for_byte(
    tmp_path: Path, client: str, kind: str
) -> None:
    """The round trip leaves every byte: comments, indentation, key order, newlines."""
    home = tmp_path / "home"
    path = settings_file(client, "user", home, tmp_path)
    path.parent.mkdir(parents=True)
    before = ROUND_TRIPS[client, kind]
    path.write_text(before)
    assert setup([client], home, tmp_path).returncode == 0
    assert set(ours_in(path, client)) == set(events_for(client))
    text = path.read_text()
    if "\t" in before:
        assert "\n  " not in text  # what we added is indented with tabs too
    if "/*" in before:
        assert text.count("//") == before.count("//") and "/* my own hooks */" in text
    removed = setup([client, "--remove"], home, tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert path.read_text() == before


def test_gemini_settings_with_comments_are_accepted_and_read_by_gemini(tmp_path: Path) -> None:
    """Gemini CLI reads settings.json with // and /* */ comments; setup took them for
    invalid JSON before issue 27. Gemini's own reading finds our hooks and all of theirs."""
    home = tmp_path / "home"
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(GEMINI_SETTINGS)
    done = setup(["gemini"], home, tmp_path)
    assert done.returncode == 0, done.stderr
    if gemini_json.missing() is None:
        (reading,) = gemini_json.readings([path.read_text()])
        assert reading.ok
        assert reading.value["security"]["auth"]["selectedType"] == "gemini-api-key"
        assert reading.value["hooks"]["BeforeTool"][0]["matcher"] == "write_file"
        assert "BeforeAgent" in reading.value["hooks"]


def test_the_mode_of_the_file_is_kept(tmp_path: Path) -> None:
    """A 0600 settings file stayed 0600 (it became 0644 before issue 27)."""
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(CLAUDE_SETTINGS)
    path.chmod(0o600)
    assert setup(["claude"], home, tmp_path).returncode == 0
    assert path.stat().st_mode & 0o7777 == 0o600 and ours_in(path, "claude")
    assert setup(["claude", "--remove"], home, tmp_path).returncode == 0
    assert path.stat().st_mode & 0o7777 == 0o600 and path.read_text() == CLAUDE_SETTINGS


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_the_owner_of_the_file_is_kept(tmp_path: Path) -> None:
    """Run as root on a user's file (sudo): the file stays theirs."""
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(CLAUDE_SETTINGS)
    os.chown(path, 4321, 4322)
    assert setup(["claude"], home, tmp_path).returncode == 0
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (4321, 4322) and ours_in(path, "claude")
    assert setup(["claude", "--remove"], home, tmp_path).returncode == 0
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (4321, 4322) and path.read_text() == CLAUDE_SETTINGS


@pytest.mark.parametrize("relative", [True, False])
def test_a_symlinked_settings_file_stays_a_symlink_and_its_target_is_edited(
    tmp_path: Path, relative: bool
) -> None:
    """The dotfiles layout: ~/.claude/settings.json links into a dotfiles repository; the
    link was replaced by a plain file before issue 27."""
    home = tmp_path / "home"
    target = home / "dotfiles" / "claude" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_text(CLAUDE_SETTINGS)
    link = home / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(target, link.parent) if relative else target)
    link_text = os.readlink(link)
    assert setup(["claude"], home, tmp_path).returncode == 0
    assert link.is_symlink() and os.readlink(link) == link_text
    assert ours_in(target, "claude")
    assert [p.name for p in link.parent.iterdir()] == ["settings.json"]  # no stray copy
    assert setup(["claude", "--remove"], home, tmp_path).returncode == 0
    assert link.is_symlink() and os.readlink(link) == link_text
    assert target.read_text() == CLAUDE_SETTINGS


@pytest.mark.parametrize("client", CLIENTS)
def test_no_empty_folder_is_left_behind(tmp_path: Path, client: str) -> None:
    """A directory setup made (.claude/, .gemini/, .codex/) goes again with the file; one
    that was there before stays."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    for args in ([client, "--scope", "project"], [client, "--mcp", "--scope", "project"]):
        assert setup(args, home, repo).returncode == 0
        assert any(repo.iterdir())
        assert setup([*args, "--remove"], home, repo).returncode == 0
        assert not any(repo.iterdir()), list(repo.rglob("*"))
    own = repo / f".{client}"
    own.mkdir()
    assert setup([client, "--scope", "project"], home, repo).returncode == 0
    assert setup([client, "--scope", "project", "--remove"], home, repo).returncode == 0
    assert own.is_dir() and not any(own.iterdir())


def test_a_file_that_was_there_stays_even_when_setup_leaves_it_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    assert setup(["gemini"], home, tmp_path).returncode == 0
    assert setup(["gemini", "--remove"], home, tmp_path).returncode == 0
    assert path.read_text() == "{}"


def test_a_settings_file_left_as_it_was_when_its_json_is_broken_after_a_comment(
    tmp_path: Path,
) -> None:
    """Claude Code's files are plain JSON: a comment in one is refused, not rewritten."""
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"model": "opus"} // mine\n')
    done = setup(["claude"], home, tmp_path)
    assert done.returncode == 1 and "not valid JSON" in done.stderr
    assert path.read_text() == '{"model": "opus"} // mine\n'


@pytest.mark.slow
def test_setups_at_once_never_lose_an_entry(tmp_path: Path) -> None:
    """Hooks and MCP setups of all three clients started together, 12 times: every entry
    is there afterwards (4 runs in 12 lost the hooks before issue 27), and removals
    started together take every one out again."""
    runs = [[c] for c in CLIENTS] + [[c, "--mcp"] for c in CLIENTS]
    for attempt in range(12):
        home = tmp_path / f"home{attempt}"
        for extra in ([], ["--remove"]):
            started = [
                subprocess.Popen(
                    [str(Path(sys.executable).parent / "context-providers"), "setup", *a, *extra],
                    cwd=tmp_path,
                    env={
                        "PATH": os.environ.get("PATH", ""),
                        "HOME": str(home),
                        "CODEX_HOME": str(home / ".codex"),
                    },
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for a in runs
            ]
            for process in started:
                _, err = process.communicate(timeout=120)
                assert process.returncode == 0, err
            if extra:
                left = [p for p in home.rglob("*") if ".local" not in p.parts]
                assert not left, (attempt, left)
                continue
            for client in CLIENTS:
                path = settings_file(client, "user", home, tmp_path)
                assert set(ours_in(path, client)) == set(events_for(client))
            claude = json.loads((home / ".claude" / "settings.json").read_text())
            assert claude["permissions"]["allow"] == ["mcp__context_providers"], attempt
            assert (
                "context_providers" in json.loads((home / ".claude.json").read_text())["mcpServers"]
            )
            gemini = json.loads((home / ".gemini" / "settings.json").read_text())
            assert "context_providers" in gemini["mcpServers"], attempt
            assert "[mcp_servers.context_providers]" in (home / ".codex/config.toml").read_text()
