"""Issue 30 items 1, 3 and 4: the install lines of ``docs/install.md``, each run as a user
would, from a clean clone (``git clone`` of this checkout's commit; its path stands in for
the repository's URL: ``git+file://CLONE``), into tools directories of the test's own:

- ``pipx install git+URL``, ``uv tool install git+URL``, ``uvx --from git+URL
  context-providers ...``, and a wheel built with ``uv build`` installed with ``pipx``;
- ``uvx --from . context-providers preview sample_repo`` in the clone previews the sample
  (a scratch copy), not the clone;
- a project's settings written by ``setup --scope project`` in one repository work
  unchanged in a second one at another path, where PATH finds another installation (the
  pipx one, its own venv): the context reaches the real client's request; with no
  installation on PATH the client still answers.

pipx and uv come from the project's dev extras (``./dev`` installs them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from providers.clients import facts
from tests.clients.bridge import BridgeEnv, make_repo, session_start
from tests.clients.measured import MEASURED
from tests.clients.real_clients import missing_reason, reached, run_client
from tests.clients.stub_model import Text
from tests.conftest import REPO_ROOT

BIN = Path(sys.executable).parent
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
SCRIPTS = ("context-providers", "context-providers-hook")


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed in this environment (./dev installs it)")
    return str(path)


@dataclass(frozen=True)
class Tools:
    """A clean clone, and where the tools installed from it put their commands."""

    clone: Path
    url: str
    env: dict[str, str]
    pipx_bin: Path
    uv_bin: Path


def sh(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        list(argv),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"$ {' '.join(argv)}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    base = tmp_path_factory.mktemp("install-lines")
    clone = base / "clone"
    git_env = {"PATH": os.environ.get("PATH", SYSTEM_PATH), "HOME": str(base)}
    sh(["git", "clone", "--quiet", str(REPO_ROOT), str(clone)], git_env)
    # the user's environment (certificates, pip's index and caches), outside any venv
    dropped = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "UV_TOOL_DIR", "PIPX_HOME")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(
        PIPX_HOME=str(base / "pipx"),
        PIPX_BIN_DIR=str(base / "pipx-bin"),
        PIPX_MAN_DIR=str(base / "pipx-man"),
        UV_TOOL_DIR=str(base / "uv-tools"),
        UV_TOOL_BIN_DIR=str(base / "uv-bin"),
        PATH=f"{BIN}:{env.get('PATH', SYSTEM_PATH)}",  # pipx finds uv, as a user's would
    )
    yield Tools(clone, f"git+file://{clone}", env, base / "pipx-bin", base / "uv-bin")
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def pipx_installed(tools: Tools) -> Path:
    """``pipx install git+URL``: the bin directory it put the commands in."""
    sh([tool("pipx"), "install", tools.url], tools.env)
    return tools.pipx_bin


def works(bin_dir: Path, env: Mapping[str, str]) -> None:
    """The installed commands run: the version, and the hook command setup would write."""
    for script in SCRIPTS:
        assert (bin_dir / script).exists(), sorted(p.name for p in bin_dir.iterdir())
    version = sh([str(bin_dir / "context-providers"), "--version"], env)
    assert version.stdout.startswith("context-providers "), version.stdout
    shown = sh([str(bin_dir / "context-providers"), "setup", "claude", "--print"], env)
    assert "context-providers-hook claude" in shown.stdout


@pytest.mark.slow
def test_pipx_install_from_a_git_url(tools: Tools, pipx_installed: Path) -> None:
    works(pipx_installed, tools.env)


@pytest.mark.slow
def test_uv_tool_install_from_a_git_url(tools: Tools) -> None:
    sh([tool("uv"), "tool", "install", tools.url], tools.env)
    works(tools.uv_bin, tools.env)


@pytest.mark.slow
def test_uvx_from_a_git_url(tools: Tools, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine", {"AGENTS.md": "# Mine\n\nMarker UVX-1.\n"})
    argv = [tool("uvx"), "--from", tools.url, "context-providers", "preview", "."]
    done = sh(argv, tools.env, cwd=repo)
    assert done.stdout.startswith(f"(repository: {repo.resolve()}"), done.stdout[:300]
    assert "Marker UVX-1." in done.stdout


@pytest.mark.slow
def test_a_wheel_built_with_uv_installs_with_pipx(tools: Tools, tmp_path: Path) -> None:
    sh([tool("uv"), "build", "--wheel"], tools.env, cwd=tools.clone)
    (wheel,) = (tools.clone / "dist").glob("context_providers-*-py3-none-any.whl")
    env = {**tools.env, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "b")}
    sh([tool("pipx"), "install", f"dist/{wheel.name}"], env, cwd=tools.clone)
    works(tmp_path / "b", env)


@pytest.mark.slow
def test_uvx_from_the_clone_previews_the_sample(tools: Tools) -> None:
    """Item 4: ``uvx --from . context-providers preview sample_repo`` in a clone."""
    done = sh(
        [tool("uvx"), "--from", ".", "context-providers", "preview", "sample_repo"],
        tools.env,
        cwd=tools.clone,
    )
    first = done.stdout.splitlines()[0]
    sample = (tools.clone / "sample_repo").resolve()
    assert first.startswith(f"(repository: {sample}, as a scratch git copy"), first
    assert "tasklane" in done.stdout and "PluggableHarness" not in done.stdout


# -- item 3: a project's settings work in another clone, with another installation --------

FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker PS-A1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker PS-C1.\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
}


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_project_settings_work_unchanged_in_another_clone_with_another_install(
    client: str, pipx_installed: Path, bridge: BridgeEnv, tmp_path: Path
) -> None:
    reason = missing_reason(client)
    if reason:
        pytest.skip(reason)
    first = make_repo(tmp_path / "one" / "repo", FILES)
    written = sh(
        [str(BIN / "context-providers"), "setup", client, "--scope", "project"],
        {"PATH": f"{BIN}:{SYSTEM_PATH}", "HOME": str(tmp_path)},
        cwd=first,
    )
    settings = facts.FACTS[client].hook_files.project
    text = (first / settings).read_text(encoding="utf-8")
    for machine_specific in (str(BIN), sys.executable, str(REPO_ROOT), str(tmp_path)):
        assert machine_specific not in text, (machine_specific, text)
    assert "note: the project's settings run context-providers-hook" in written.stdout

    second = make_repo(tmp_path / "elsewhere" / "two", FILES)
    (second / settings).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(first / settings, second / settings)
    trust = [*MEASURED[client].hook_trust_args, *MEASURED[client].project_trust_args]
    env = bridge.for_client()
    outcomes = {}
    for label, path in (("installed", f"{pipx_installed}:"), ("not installed", "")):
        env["PATH"] = path + os.environ.get("PATH", SYSTEM_PATH).replace(f"{BIN}:", "")
        run = run_client(
            client,
            second,
            f"Say hi. MARK-PS-{label}",
            script=[Text("hi")],
            extra_env=env,
            workdir=tmp_path,
            timeout_s=180,
            prepare=lambda _env, trust=trust: trust,
        )
        assert run.exit_code == 0 and not run.timed_out, run.describe() + bridge.log()
        assert reached(f"MARK-PS-{label}", run.model_requests), run.describe()
        outcomes[label] = bool(reached("Cursor marker PS-C1.", run.model_requests))
    assert outcomes == {"installed": True, "not installed": False}, bridge.log()


@pytest.mark.slow
def test_user_settings_survive_pipx_reinstall(
    tools: Tools, pipx_installed: Path, bridge: BridgeEnv, tmp_path: Path
) -> None:
    """``setup`` (user scope) after ``pipx install`` names the launcher where PATH finds it
    (pipx's bin directory), not inside pipx's venv; after ``pipx reinstall`` (a new venv)
    the same command still answers a session start."""
    home = tmp_path / "home"
    env = {**tools.env, "HOME": str(home), "PATH": f"{pipx_installed}:{SYSTEM_PATH}"}
    written = sh([str(pipx_installed / "context-providers"), "setup", "claude"], env)
    assert "not on your PATH" not in written.stdout, written.stdout
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = {h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]}
    assert command.endswith(f" {pipx_installed / 'context-providers-hook'} claude"), command
    sh([tool("pipx"), "reinstall", "context-providers"], tools.env)
    repo = make_repo(tmp_path / "repo", FILES)
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(session_start("claude", "s1", repo)),
        capture_output=True,
        text=True,
        cwd=repo,
        env={**bridge.env, "PATH": SYSTEM_PATH},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "Cursor marker PS-C1." in done.stdout, (done, bridge.log())


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_a_projects_mcp_registration_fails_nothing_without_an_install(
    client: str, tmp_path: Path
) -> None:
    """``setup CLIENT --mcp --scope project`` names the console script bare: a teammate
    without context-providers on PATH still gets answers (Codex's server is not required
    there: a required one that cannot start fails every session)."""
    reason = missing_reason(client)
    if reason:
        pytest.skip(reason)
    repo = make_repo(tmp_path / "repo", FILES)
    sh(
        [str(BIN / "context-providers"), "setup", client, "--mcp", "--scope", "project"],
        {"PATH": f"{BIN}:{SYSTEM_PATH}", "HOME": str(tmp_path)},
        cwd=repo,
    )
    mcp_config = ["--mcp-config", str(repo / ".mcp.json")] if client == "claude" else []
    path = os.environ.get("PATH", SYSTEM_PATH).replace(f"{BIN}:", "")
    assert shutil.which("context-providers", path=path) is None
    run = run_client(
        client,
        repo,
        "Say hi. MARK-NO-INSTALL",
        script=[Text("hi")],
        extra_env={"PATH": path},
        extra_args=[*MEASURED[client].project_trust_args, *mcp_config],
        workdir=tmp_path,
        timeout_s=180,
    )
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    assert reached("MARK-NO-INSTALL", run.model_requests), run.describe()
