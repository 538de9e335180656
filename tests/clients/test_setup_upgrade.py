"""Issue 30 item 3: settings written by the versions before the launcher (the hook as
``/bin/sh -c GUARD PYTHON -S -E -s .../providers/clients/hook.py CLIENT``, the MCP
server as ``PYTHON -P -m providers mcp``) are ours: ``setup`` replaces them (one entry
per event, the launcher's) and ``--remove`` removes them. ``setup`` warns when
``--scope project`` names a directory in no git repository and when a client has both
the hooks and the MCP server, and ``doctor`` says both."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from providers.clients import facts, settings_snippets, setup
from providers.clients.mcp_session import SERVER_NAME
from tests.clients.bridge import make_repo
from tests.clients.test_setup import setup as run_setup

OLD_PYTHON = "/home/someone/.local/pipx/venvs/context-providers/bin/python3.11"
OLD_HOOK = "/home/someone/.local/pipx/venvs/context-providers/lib/python3.11/site-packages/providers/clients/hook.py"  # noqa: E501


def old_hook(client: str) -> str:
    return shlex.join(
        ["/bin/sh", "-c", setup.OLD_GUARD, OLD_PYTHON, "-S", "-E", "-s", OLD_HOOK, client]
    )


def commands(path: Path) -> list[str]:
    hooks = json.loads(path.read_text())["hooks"]
    return [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]


def test_old_hook_registrations_are_replaced_and_removed(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    path = home / facts.FACTS["claude"].hook_files.user
    path.parent.mkdir(parents=True)
    old = settings_snippets.hook_settings(
        "claude", [(e, old_hook("claude"), 15) for e in setup.events_for("claude")]
    )
    old["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "my-own"}]}]
    path.write_text(json.dumps(old, indent=2))
    assert setup.is_ours({"command": old_hook("claude")})

    done = run_setup(["claude"], home, repo)
    assert done.returncode == 0, done.stderr
    found = commands(path)
    assert not [c for c in found if OLD_HOOK in c], found
    ours = [c for c in found if setup.LAUNCHER in c]
    assert len(ours) == len(setup.events_for("claude")), found
    assert "my-own" in found

    path.write_text(json.dumps(old, indent=2))
    removed = run_setup(["claude", "--remove"], home, repo)
    assert removed.returncode == 0 and "removed" in removed.stdout, removed
    assert commands(path) == ["my-own"]


def test_an_old_mcp_registration_is_replaced_and_removed(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    path = repo / ".mcp.json"
    old = {"command": OLD_PYTHON, "args": ["-P", "-m", "providers", "mcp", "--client", "claude"]}
    path.write_text(json.dumps({"mcpServers": {SERVER_NAME: old, "mine": {"command": "x"}}}))
    done = run_setup(["claude", "--mcp", "--scope", "project"], home, repo)
    assert done.returncode == 0, done.stderr
    servers = json.loads(path.read_text())["mcpServers"]
    assert servers[SERVER_NAME]["command"] == "context-providers"
    assert servers[SERVER_NAME]["args"] == ["mcp", "--client", "claude"]
    path.write_text(json.dumps({"mcpServers": {SERVER_NAME: old, "mine": {"command": "x"}}}))
    removed = run_setup(["claude", "--mcp", "--scope", "project", "--remove"], home, repo)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(path.read_text())["mcpServers"] == {"mine": {"command": "x"}}


def test_setup_warns_outside_a_git_repository(tmp_path: Path) -> None:
    home, plain = tmp_path / "home", tmp_path / "plain"
    plain.mkdir()
    done = run_setup(["gemini", "--scope", "project"], home, plain)
    assert done.returncode == 0, done.stderr
    assert f"warning: {plain} is in no git repository" in done.stderr
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    assert "no git repository" not in run_setup(["gemini", "--scope", "project"], home, repo).stderr


def doctor(home: Path, repo: Path) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    env["XDG_RUNTIME_DIR"] = env["XDG_STATE_HOME"] = str(home / "xdg")
    bin_dir = setup.installed_launcher("context-providers")
    done = subprocess.run(
        [str(bin_dir), "doctor"], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_hooks_and_mcp_for_one_client_are_warned_about_by_setup_and_doctor(
    tmp_path: Path,
) -> None:
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    first = run_setup(["codex"], home, repo)
    assert first.returncode == 0 and "warning" not in first.stderr, first.stderr
    second = run_setup(["codex", "--mcp"], home, repo)
    assert second.returncode == 0, second.stderr
    assert "warning: codex has both the context-providers hooks" in second.stderr
    assert "reach the model twice" in second.stderr
    assert "codex has both the context-providers hooks" in doctor(home, repo)
    run_setup(["codex", "--mcp", "--remove"], home, repo)
    assert "has both" not in doctor(home, repo)


def test_doctor_says_a_directory_is_in_no_git_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert f"{plain} is in no git repository" in doctor(tmp_path / "home", plain)


def test_user_setup_says_when_the_launcher_is_not_on_path(tmp_path: Path) -> None:
    """Run from an environment whose commands are not on PATH (``./dev``'s ``.venv``, or
    uvx's cache), ``setup`` names the launcher there, and says so."""
    home, repo = tmp_path / "home", make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    done = subprocess.run(
        [str(setup.installed_launcher("context-providers")), "setup", "claude"],
        cwd=repo,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    launcher = setup.installed_launcher(setup.LAUNCHER)
    assert f"note: {setup.LAUNCHER} is not on your PATH" in done.stdout, done.stdout
    assert str(launcher) in done.stdout
