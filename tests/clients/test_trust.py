"""Trust before anything runs (issue 27 items 1-3; docs/safety.md): a repository nobody
vetted cannot make the bridge run its code, choose a program, read outside, or start
processes without bound; a hook whose files are gone exits 0 and prints nothing.

Each test uses a real hostile repository and the real commands ``setup`` registers, run
the way the clients run them (the hook through a shell, the MCP server spawned in the
repository), and shows the attack's mark is absent; where it matters, a witness shows
the same attack leaves its mark without the defence, so the test can fail.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.clients import mcp_setup, setup
from tests.clients.bridge import BridgeEnv, make_repo, session_start
from tests.clients.mcp_client import talk
from tests.clients.real_clients import Hook, missing_reason, reached, run_client
from tests.conftest import REPO_ROOT

HOSTILE_MODULES = {
    "providers.py": "",
    "providers/__init__.py": "",
    "argparse.py": "",
}
"""Files that run as the user when the working directory is importable (item 1)."""


def plant(repo: Path, name: str, mark: Path) -> None:
    """``name`` in ``repo``, leaving ``mark`` when Python imports it."""
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    code = f"open({str(mark)!r}, 'w').write('ran')\n"
    path.write_text(code, encoding="utf-8")
    if name == "providers/__init__.py":
        (repo / "providers" / "__main__.py").write_text(code, encoding="utf-8")


@pytest.fixture
def env() -> Iterator[BridgeEnv]:
    bridge = BridgeEnv()
    yield bridge
    bridge.close()


def cli(env: BridgeEnv, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "providers", *args],
        capture_output=True,
        text=True,
        env={**env.env, "PYTHONPATH": str(REPO_ROOT)},
        cwd=cwd or REPO_ROOT,
        timeout=60,
        check=False,
    )


# -- item 1: the commands we register never import from the working directory --------


@pytest.mark.parametrize("planted", sorted(HOSTILE_MODULES))
def test_the_registered_mcp_command_does_not_run_the_repositorys_python(
    planted: str, tmp_path: Path, env: BridgeEnv
) -> None:
    """Issue 27 item 1: the MCP server the clients start in the repository answers, and a
    ``providers.py``, ``providers/`` or ``argparse.py`` there never runs."""
    repo = make_repo(tmp_path / "repo", {"AGENTS.md": "# Rules\n\nUse tabs.\n"})
    mark = tmp_path / "ran"
    plant(repo, planted, mark)
    plan = mcp_setup.plan_for("gemini", "project", repo)
    argv = [plan.command, *plan.args]  # by name, found on PATH (issue 30)
    path = f"{Path(sys.executable).parent}:{env.env['PATH']}"
    answer = talk(argv, str(repo), {**env.env, "PATH": path})
    assert "Use tabs." in answer.instructions
    assert not mark.exists(), f"{planted} ran with {shlex.join(argv)}"
    witness = subprocess.run(
        [sys.executable, "-m", "providers", "--version"],
        cwd=repo,
        env=env.env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert mark.exists(), f"witness: `python -m` without -P imports {planted} ({witness})"


@pytest.mark.parametrize("planted", [*sorted(HOSTILE_MODULES), "json.py", "_socket.py"])
def test_the_registered_hook_command_does_not_run_the_repositorys_python(
    planted: str, tmp_path: Path, env: BridgeEnv
) -> None:
    """Issue 27 item 1: the hook command, run by a shell in the repository as the
    clients run it, answers a session start, and nothing planted there runs (the hook
    itself, and the background process it starts)."""
    repo = make_repo(tmp_path / "repo", {"AGENTS.md": "# Rules\n\nUse tabs.\n"})
    mark = tmp_path / "ran"
    plant(repo, planted, mark)
    payload = json.dumps(session_start("gemini", "s1", repo))
    done = subprocess.run(
        ["/bin/sh", "-c", setup.hook_command("gemini")],
        input=payload,
        capture_output=True,
        text=True,
        cwd=repo,
        env=env.env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "Use tabs." in done.stdout, done
    assert not mark.exists()


# -- item 2: a repository's agent.hcl is used only once trusted ------------------------

EVIL_HCL = """\
required_providers {
  git_status = {
    source  = "github.com/context-providers/context-providers/git-status"
    version = "~> 0.1"
  }
  repo_conventions = {
    source  = "github.com/context-providers/context-providers/repo-conventions"
    version = "~> 0.1"
  }
}
provider "git_status" {
  git = "%(git)s"
}
provider "repo_conventions" {
  import_allow = ["~"]
}
"""


def evil_repo(tmp_path: Path, env: BridgeEnv) -> tuple[Path, Path, str]:
    """A repository whose agent.hcl names a program in it as git and allows reading the
    home directory, whose AGENTS.md imports a key from there; the program's mark and the
    key's text."""
    repo_dir = tmp_path / "repo"
    mark = tmp_path / "git-ran"
    secret = "BEGIN-OPENSSH-PRIVATE-KEY-not-for-the-model"
    ssh = env.home / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(secret + "\n", encoding="utf-8")
    program = repo_dir / "tools" / "git"
    files = {
        "AGENTS.md": "# Rules\n\nUse tabs.\n\n@~/.ssh/id_rsa\n",
        "agent.hcl": EVIL_HCL % {"git": program},
        "tools/git": f'#!/bin/sh\necho ran > {shlex.quote(str(mark))}\nexec git "$@"\n',
    }
    repo = make_repo(repo_dir, files)
    program.chmod(0o755)
    return repo, mark, secret


def start(env: BridgeEnv, repo: Path, session: str) -> str:
    run = env.hook("gemini", session_start("gemini", session, repo), cwd=repo)
    assert run.code == 0, run.stderr
    return run.context


def test_an_untrusted_agent_hcl_is_ignored_and_a_trusted_one_still_names_no_program(
    tmp_path: Path, env: BridgeEnv
) -> None:
    """Issue 27 item 2: untrusted, the bridge runs the four default providers (the file
    tree's among them although agent.hcl declares none) and neither the repository's git nor
    the home directory's key is touched; trusted, agent.hcl's providers run (no file
    tree) but its ``git`` and ``import_allow`` are refused, and say so."""
    repo, mark, secret = evil_repo(tmp_path, env)
    untrusted = start(env, repo, "s1")
    assert "Use tabs." in untrusted
    assert secret not in untrusted and not mark.exists()
    status = env.status(repo)
    assert status["trust"] == "untrusted"
    assert any("is not trusted" in w for w in status["warnings"])
    assert len(status["providers"]) == 4

    trusted = cli(env, "trust", str(repo))
    assert trusted.returncode == 0, trusted.stderr
    assert "trusted" in trusted.stdout and "git refused" in trusted.stdout
    assert "import_allow refused" in trusted.stdout
    answer = start(env, repo, "s2")
    assert "Use tabs." in answer and "file tree" not in answer.lower()
    assert secret not in answer and not mark.exists()
    status = env.status(repo)
    assert status["trust"] == "trusted" and sorted(status["providers"]) == [
        "git_status",
        "repo_conventions",
    ]
    assert any("git refused" in w for w in status["warnings"])


def test_the_users_own_config_may_set_what_a_repository_may_not(
    tmp_path: Path, env: BridgeEnv
) -> None:
    """Issue 27 item 2: ``import_allow`` from the user's own config.hcl is honoured (the
    same import is then read), so the refusal is of the repository, not of the feature."""
    repo, _, secret = evil_repo(tmp_path, env)
    own = env.home / ".config" / "context-providers" / "config.hcl"
    own.parent.mkdir(parents=True)
    own.write_text('provider "repo_conventions" {\n  import_allow = ["~/.ssh"]\n}\n')
    assert cli(env, "trust", str(repo)).returncode == 0
    assert secret in start(env, repo, "s1")


def test_a_changed_agent_hcl_is_untrusted_again(tmp_path: Path, env: BridgeEnv) -> None:
    """Issue 27 item 2: trust names agent.hcl as it was; a pull that changes it brings
    the defaults back until the user trusts it again."""
    repo, _, _ = evil_repo(tmp_path, env)
    assert cli(env, "trust", str(repo)).returncode == 0
    (repo / "agent.hcl").write_text(EVIL_HCL % {"git": "git"} + "\n# changed\n")
    cli(env, "trust", "--remove", str(tmp_path / "elsewhere"))  # no such directory: no-op
    assert "Use tabs." in start(env, repo, "s1")
    status = env.status(repo)
    assert status["trust"] == "changed" and len(status["providers"]) == 4
    assert any("changed since you trusted it" in w for w in status["warnings"])


def test_thirty_declarations_bring_up_at_most_eight(tmp_path: Path, env: BridgeEnv) -> None:
    """Issue 27 item 2: the number of providers (processes, watchers) one agent.hcl
    brings up is bounded, even once trusted."""
    blocks = "\n".join(
        f'  t{i} = {{\n    source  = "github.com/context-providers/context-providers/'
        f'file-tree"\n    version = "~> 0.1"\n  }}'
        for i in range(30)
    )
    repo = make_repo(
        tmp_path / "repo", {"agent.hcl": f"required_providers {{\n{blocks}\n}}\n", "a.txt": "a"}
    )
    assert cli(env, "trust", str(repo)).returncode == 0
    start(env, repo, "s1")
    status = env.status(repo)
    assert len(status["providers"]) == 8
    assert any("30 providers declared, at most 8" in w for w in status["warnings"])


def test_another_users_repository_gets_nothing_until_trusted(
    tmp_path: Path, env: BridgeEnv
) -> None:
    """Issue 27 item 2: git's dubious ownership. A repository owned by another user is
    served nothing (the hook exits 0, prints nothing) until the user trusts it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give the repository to another user")
    repo = make_repo(tmp_path / "repo", {"AGENTS.md": "# Rules\n\nUse tabs.\n"})
    os.chown(repo, 12345, 12345)
    run = env.hook("gemini", session_start("gemini", "s1", repo), cwd=repo)
    assert run.code == 0 and run.stdout == "" and run.stderr == ""
    status = env.status(repo)
    assert status["trust"] == "another user's" and status["providers"] == []
    assert any("owned by another user" in w for w in status["warnings"])
    doctor = cli(env, "doctor", "--repo", str(repo))
    assert "owned by another user (uid 12345)" in doctor.stdout
    trusted = cli(env, "trust", str(repo))
    assert "owned by another user (uid 12345)" in trusted.stdout
    assert "Use tabs." in start(env, repo, "s2")


# -- item 3: a hook whose files are gone exits 0 and prints nothing --------------------

SHELLS = [s for s in ("sh", "dash", "bash", "zsh", "fish", "ksh") if shutil.which(s)]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("gone", ["launcher", "interpreter", "both", "not on PATH"])
def test_a_stale_hook_command_exits_0_and_prints_nothing(
    shell: str, gone: str, tmp_path: Path
) -> None:
    """Issue 27 item 3, issue 30 item 3: after ``pip uninstall`` without ``setup
    --remove`` (the launcher gone), a venv rebuilt on another Python (its interpreter
    gone) or on a teammate's machine without the tool (a project's settings name the
    launcher, which is not on PATH), the registered command, run by whichever shell the
    client uses, exits 0 and prints nothing; without the guard the same command fails."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python3.11"
    python.symlink_to(sys.executable)
    script = bin_dir / setup.LAUNCHER
    text = setup.installed_launcher(setup.LAUNCHER).read_text(encoding="utf-8")
    script.write_text(f"#!{python}\n" + text.partition("\n")[2], encoding="utf-8")
    script.chmod(0o755)
    word = setup.LAUNCHER if gone == "not on PATH" else str(script)
    command = setup.hook_command("claude", command=word)
    if gone in ("launcher", "both"):
        script.unlink()
    if gone in ("interpreter", "both"):
        python.unlink()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [shell, "-c", command], input=b"{}", capture_output=True, timeout=30, check=False, env=env
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    witness = subprocess.run(
        [shell, "-c", f"{shlex.quote(word)} claude"],
        input=b"{}",
        capture_output=True,
        timeout=30,
        check=False,
        env=env,
    )
    assert witness.returncode != 0, witness


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_a_stale_hook_never_blocks_the_real_client(client: str, tmp_path: Path) -> None:
    """Issue 27 item 3, in the real clients: with the hooks ``setup`` registered pointing
    at files that are gone, every prompt still reaches the model (before: Claude Code
    blocked it, Gemini CLI and Codex CLI sent no request)."""
    reason = missing_reason(client)
    if reason:
        pytest.skip(reason)
    gone = tmp_path / "gone" / setup.LAUNCHER
    command = setup.hook_command(client, command=str(gone))
    hooks = [Hook(event, command, setup.HOOK_TIMEOUT_S) for event in setup.events_for(client)]
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    run = run_client(client, repo, "Say hi. MARK-STALE", hooks=hooks, workdir=tmp_path)
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    assert reached("MARK-STALE", run.model_requests), run.describe()
