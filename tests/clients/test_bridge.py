"""The hooks end to end: real hook commands (run as setup writes them) fed each client's
JSON, the real background process with the four real providers inside it (another
source's as plugin processes), real git repositories. Issue 21: each kind of context
reaches each client's hook output at its own events and in its output shape; a prompt
with no change prints nothing; a doc is shown once per session; two sessions; the
process stops when idle, at the last SessionEnd and when the repository is gone; a hook
that cannot reach it exits 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.clients import facts, wire
from tests.clients.bridge import (
    FILES,
    HOOK,
    BridgeEnv,
    daemon_pids,
    make_repo,
    prompt,
    read_file,
    session_end,
    session_start,
    wait_until,
)

CLIENTS = tuple(facts.FACTS)


@pytest.fixture(scope="module")
def bridge() -> Iterator[BridgeEnv]:
    env = BridgeEnv()
    try:
        yield env
    finally:
        env.close()


@pytest.fixture(scope="module")
def repo(bridge: BridgeEnv) -> Path:
    return make_repo(bridge.base / "repo", FILES)


def loads_agents_md_itself(client: str) -> bool:
    """Claude Code without a CLAUDE.md, and Codex CLI, load AGENTS.md (clients.md)."""
    return client in ("claude", "codex")


@pytest.mark.parametrize("client", CLIENTS)
def test_each_kind_of_context_reaches_each_client(
    bridge: BridgeEnv, repo: Path, client: str
) -> None:
    info = facts.FACTS[client]
    session = f"{client}-one"
    start = bridge.hook(client, session_start(client, session, repo), cwd=repo)
    assert start.code == 0, start.stderr
    assert start.output["hookSpecificOutput"]["hookEventName"] == info.events.session_start
    text = start.context
    assert "Cursor marker C1." in text  # a rule no client loads itself
    assert ("Agents marker A1." in text) != loads_agents_md_itself(client)
    native = facts.NATIVE[client]
    # git status, but not where the client has its own snapshot (Claude Code)
    assert ("On branch main" in text) != native.git_snapshot
    # the file tree, but not where the client lists this small repository whole (Gemini)
    assert ("(shown: " in text) != bool(native.listing_items)
    assert str(repo.parent) not in text  # no machine path beyond the repository's name

    quiet = bridge.hook(client, prompt(client, session, repo), cwd=repo)
    assert quiet.code == 0 and quiet.stdout == ""

    tool = bridge.hook(client, read_file(client, session, repo, "src/auth/login.py"), cwd=repo)
    assert tool.output["hookSpecificOutput"]["hookEventName"] == info.events.after_tool
    assert "Python marker G1." in tool.context
    # Claude Code loads nested AGENTS.md itself when there is no CLAUDE.md.
    assert ("Auth marker N1." in tool.context) != (client == "claude")

    again = bridge.hook(client, read_file(client, session, repo, "src/auth/tokens.py"), cwd=repo)
    assert again.code == 0 and again.stdout == ""  # each doc once per session

    silent = bridge.hook(client, prompt(client, session, repo), cwd=repo)
    assert silent.stdout == ""


def test_a_change_is_said_once_and_replaces_what_was_shown(bridge: BridgeEnv, repo: Path) -> None:
    client, session = "claude", "changes"
    bridge.hook(client, session_start(client, session, repo), cwd=repo)
    (repo / "src" / "app.py").write_text("print('changed')\n", encoding="utf-8")
    changed = wait_for_context(bridge, client, session, repo)
    assert changed.startswith("--- git status (updated) ---\n")
    assert "src/app.py" in changed and "file tree" not in changed
    assert bridge.hook(client, prompt(client, session, repo), cwd=repo).stdout == ""

    (repo / "src" / "new_module.py").write_text("x = 1\n", encoding="utf-8")
    added = wait_for_context(bridge, client, session, repo)
    assert "--- file tree (updated) ---\n" in added
    assert "new_module.py" in added
    assert bridge.hook(client, prompt(client, session, repo), cwd=repo).stdout == ""
    (repo / "src" / "new_module.py").unlink()
    (repo / "src" / "app.py").write_text("print('app')\n", encoding="utf-8")


def wait_for_context(bridge: BridgeEnv, client: str, session: str, repo: Path) -> str:
    """The next prompt's context, once the providers' watchers saw the change."""
    for _ in range(40):
        run = bridge.hook(client, prompt(client, session, repo), cwd=repo)
        assert run.code == 0
        if run.context:
            return run.context
        time.sleep(0.1)
    raise AssertionError("the change never reached a prompt")


def test_two_sessions_each_have_their_own_memory(bridge: BridgeEnv, repo: Path) -> None:
    one = bridge.hook("gemini", read_file("gemini", "first", repo, "src/app.py"), cwd=repo)
    two = bridge.hook("gemini", read_file("gemini", "second", repo, "src/app.py"), cwd=repo)
    assert "Python marker G1." in one.context and "Python marker G1." in two.context
    assert bridge.status(repo)["sessions"] >= 2
    assert len(daemon_pids(repo)) == 1


def test_an_answer_not_confirmed_is_sent_again(bridge: BridgeEnv, repo: Path) -> None:
    """A hook killed (or timed out) before it printed: the next event sends it."""
    payload = json.dumps(read_file("gemini", "unconfirmed", repo, "src/auth/login.py")).encode()
    body = str(repo).encode() + b"\0" + payload
    sock = wire.connect(bridge.socket(repo), 30)
    sock.sendall(wire.encode("hook", body, ("gemini",)))
    verb, _, first = wire.Reader(sock).message(time.monotonic() + 30)
    sock.close()  # no ack: as if the client killed the hook
    assert verb == "ok" and b"Auth marker N1." in first
    wait_until(lambda: "did not confirm" in bridge.log(), 5)
    again = bridge.hook(
        "gemini", read_file("gemini", "unconfirmed", repo, "src/auth/login.py"), cwd=repo
    )
    assert "Auth marker N1." in again.context


def test_a_session_below_the_root_gets_the_docs_of_its_files(bridge: BridgeEnv, repo: Path) -> None:
    """A client working in a subdirectory: the files it reads (relative to it) scope the
    docs as the root's paths (files_touched goes out absolute: a relative entry would be
    read from the working directory again)."""
    below = repo / "src"
    run = bridge.hook("gemini", read_file("gemini", "below", below, "auth/login.py"), cwd=below)
    assert "Auth marker N1." in run.context, run.context
    assert "--- src/auth/AGENTS.md ---\n" in run.context, run.context


def test_the_input_cwd_picks_the_repository(bridge: BridgeEnv, repo: Path) -> None:
    """The hook runs elsewhere (another repository): the input's cwd decides."""
    other = make_repo(
        bridge.base / "other", {"OTHER.md": "x\n", "CONVENTIONS.md": "Other marker O1.\n"}
    )
    run = bridge.hook("gemini", session_start("gemini", "elsewhere", other), cwd=repo)
    assert "Other marker O1." in run.context
    bridge_stop(bridge, other)


def bridge_stop(bridge: BridgeEnv, root: Path) -> None:
    wire.call(bridge.socket(root), "stop", timeout=10)
    assert wait_until(lambda: not daemon_pids(root), 20)


def test_fifty_prompts_in_a_row(bridge: BridgeEnv, repo: Path) -> None:
    client, session = "codex", "fifty"
    bridge.hook(client, session_start(client, session, repo), cwd=repo)
    runs = [bridge.hook(client, prompt(client, session, repo), cwd=repo) for _ in range(50)]
    assert all(r.code == 0 and r.stdout == "" for r in runs)
    assert len(daemon_pids(repo)) == 1
    assert "Traceback" not in bridge.log()


def test_the_last_session_end_stops_the_process(tmp_path: Path) -> None:
    env = BridgeEnv()
    try:
        repo = make_repo(env.base / "ends", {"README.md": "x\n"})
        env.hook("claude", session_start("claude", "a", repo), cwd=repo)
        env.hook("gemini", session_start("gemini", "b", repo), cwd=repo)
        assert len(daemon_pids(repo)) == 1
        end = env.hook("claude", session_end("a", repo), cwd=repo)
        assert end.code == 0 and end.stdout == ""
        time.sleep(1.0)
        assert len(daemon_pids(repo)) == 1  # session b goes on
        env.hook("gemini", session_end("b", repo), cwd=repo)
        assert wait_until(lambda: not daemon_pids(repo), 20)
        assert not os.path.exists(env.socket(repo))
        # The session's memory went with it; a new session starts a new process.
        run = env.hook("codex", session_start("codex", "c", repo), cwd=repo)
        assert "On branch main" in run.context
    finally:
        env.close()


def test_the_process_stops_when_idle_and_when_the_repository_is_gone() -> None:
    env = BridgeEnv(idle_s=2)
    try:
        idle = make_repo(env.base / "idle", {"README.md": "x\n"})
        gone = make_repo(env.base / "gone", {"README.md": "y\n"})
        env.hook("codex", session_start("codex", "i", idle), cwd=idle)
        env.hook("codex", session_start("codex", "g", gone), cwd=gone)
        shutil.rmtree(gone)
        late = env.hook("codex", prompt("codex", "g", gone), cwd=env.base)
        assert late.code == 0 and late.stdout == ""
        assert wait_until(lambda: not daemon_pids(gone), 10)
        assert wait_until(lambda: not daemon_pids(idle), 20)
        assert "idle for" in env.log() and "is gone" in env.log()
        assert not list((env.runtime / "context-providers").glob("*.sock"))
    finally:
        env.close()


def test_a_hook_that_cannot_start_the_process_exits_0_quickly_and_logs_why() -> None:
    env = BridgeEnv(start_s=1.5)
    try:
        repo = make_repo(env.base / "blocked", {"README.md": "x\n"})
        socket_dir = env.runtime / "context-providers"
        socket_dir.mkdir(mode=0o700)
        os.mkdir(env.socket(repo))  # a directory where the socket must go
        run = env.hook("claude", session_start("claude", "s", repo), cwd=repo)
        assert run.code == 0 and run.stdout == "" and run.stderr == ""
        assert run.seconds < 5
        log = env.log()
        assert "did not start in time" in log
        assert wait_until(lambda: "cannot serve" in env.log(), 10), env.log()
    finally:
        env.close()


def test_a_hook_outside_any_repository_prints_nothing(tmp_path: Path) -> None:
    env = BridgeEnv()
    try:
        plain = env.base / "plain"
        plain.mkdir()
        run = env.hook("claude", session_start("claude", "s", plain), cwd=plain)
        assert run.code == 0 and run.stdout == ""
        assert not daemon_pids(env.base)
    finally:
        env.close()


def test_bad_input_is_logged_never_printed(bridge: BridgeEnv, repo: Path) -> None:
    garbage = subprocess.run(
        [sys.executable, "-S", "-E", "-s", str(HOOK), "claude"],
        input=b"{not json",
        capture_output=True,
        cwd=repo,
        env=bridge.env,
        check=False,
    )
    assert garbage.returncode == 0 and garbage.stdout == b"" and garbage.stderr == b""
    assert wait_until(lambda: "Expecting property name" in bridge.log(), 5), bridge.log()


def test_the_hook_imports_almost_nothing(bridge: BridgeEnv, repo: Path) -> None:
    """A warm hook costs an interpreter start and a socket round trip: run as setup
    writes it, the hook loads no site, no json, no socket module, nothing of ours but
    places and wire."""
    bridge.hook("claude", session_start("claude", "imports", repo), cwd=repo)
    done = subprocess.run(
        [sys.executable, "-S", "-E", "-s", "-X", "importtime", str(HOOK), "claude"],
        input=json.dumps(prompt("claude", "imports", repo)).encode(),
        capture_output=True,
        cwd=repo,
        env=bridge.env,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == b""
    modules = {
        line.split("|")[-1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    } - {"imported package"}
    heavy = {"site", "json", "socket", "argparse", "grpc", "contextlib", "pathlib", "re"}
    assert not modules & heavy, sorted(modules)
    assert {"places", "wire"} <= modules, sorted(modules)


def test_doctor_shows_processes_settings_and_problems(bridge: BridgeEnv, repo: Path) -> None:
    bridge.hook("claude", session_start("claude", "doctor", repo), cwd=repo)
    script = Path(sys.executable).parent / "context-providers"
    subprocess.run(
        [str(script), "setup", "gemini", "--scope", "project", "--repo", str(repo)],
        env=bridge.env,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [str(script), "setup", "codex", "--mcp", "--scope", "project", "--repo", str(repo)],
        env=bridge.env,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [sys.executable, "-S", "-E", "-s", str(HOOK), "claude"],
        input=b"{broken",
        cwd=repo,
        env=bridge.env,
        check=True,
    )
    done = subprocess.run(
        [str(script), "doctor", "--repo", str(repo)],
        env=bridge.env,
        capture_output=True,
        text=True,
        check=True,
    )
    out = done.stdout
    assert f"{repo}: pid " in out and "providers: repo_conventions, git_status" in out
    assert "gemini project" in out and "SessionStart, BeforeAgent, AfterTool, SessionEnd" in out
    assert "Expecting property name" in out  # the last problem, from the log
    assert f"codex  project {repo / '.codex/config.toml'}: MCP server context_providers" in out
    (repo / ".gemini" / "settings.json").unlink()
    (repo / ".gemini").rmdir()
    (repo / ".codex" / "config.toml").unlink()
    (repo / ".codex").rmdir()


def children_of(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rsplit(") ", 1)[1].split()[1])
            if parent != pid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                found.append(handle.read().replace(b"\0", b" ").decode(errors="replace"))
        except (OSError, IndexError, ValueError):
            continue
    return found


def doctor(bridge: BridgeEnv, repo: Path) -> str:
    script = Path(sys.executable).parent / "context-providers"
    return subprocess.run(
        [str(script), "doctor", "--repo", str(repo)],
        env=bridge.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_our_providers_run_inside_the_background_process(bridge: BridgeEnv, repo: Path) -> None:
    """Issue 27 item 5: no plugin process for our own four; one process per repository."""
    bridge.hook("claude", session_start("claude", "inside", repo), cwd=repo)
    status = bridge.status(repo)
    assert status["providers"] == ["repo_conventions", "git_status", "file_tree", "scoped_docs"]
    assert status["plugin_processes"] == {}
    assert not [c for c in children_of(status["pid"]) if "context-" in c or "python" in c]
    assert "plugin processes: none" in doctor(bridge, repo)


def test_doctor_leaves_the_idle_clock_running(bridge: BridgeEnv, repo: Path) -> None:
    """Issue 27 item 2: asking for the status is not activity: the idle time doctor
    reports grows from one call to the next."""
    bridge.hook("claude", session_start("claude", "idle-clock", repo), cwd=repo)

    def idle() -> float:
        line = next(line for line in doctor(bridge, repo).splitlines() if f"{repo}: pid" in line)
        return float(line.split(" idle ", 1)[1].split(" of ", 1)[0])

    first = idle()
    time.sleep(1.0)
    second = idle()
    assert second >= first + 0.9, (first, second)
    assert bridge.status(repo)["idle_s"] >= second


def test_other_sources_are_plugin_processes_at_most_four(tmp_path: Path) -> None:
    """Issue 29 item 5: six declarations of another source (our script under another
    name, through dev_overrides) start four plugin processes; the other two are refused,
    said in the log, the status and doctor."""
    env = BridgeEnv()
    try:
        names = [f"other{i}" for i in range(6)]
        required = "".join(
            f'  {n} = {{\n    source = "example.com/someone/status"\n    version = "1.0.0"\n  }}\n'
            for n in names
        )
        repo = make_repo(
            env.base / "many",
            {
                "README.md": "x\n",
                "agent.hcl": f"required_providers {{\n{required}}}\n",
            },
        )
        command = Path(sys.executable).parent / "context-git-status"
        overrides = "".join(f'  {n} = "{command}"\n' for n in names)
        config = env.home / ".config" / "agent" / "config.hcl"
        config.parent.mkdir(parents=True)
        config.write_text(f"dev_overrides {{\n{overrides}}}\n", encoding="utf-8")
        env.trust(repo)  # a repository's agent.hcl is used only once trusted (issue 27)
        run = env.hook("codex", session_start("codex", "many", repo), cwd=repo)
        assert "On branch main" in run.context
        status = env.status(repo)
        assert sorted(status["plugin_processes"]) == names[:4]
        refused = [w for w in status["warnings"] if "at most 4 plugin processes" in w]
        assert [w.split('"')[1] for w in refused] == names[4:]
        assert sum("context-git-status" in c for c in children_of(status["pid"])) == 4
        assert "at most 4 plugin processes per repository" in env.log()
        out = doctor(env, repo)
        assert 'provider "other5" (example.com/someone/status) not started: at most 4' in out
        assert "plugin processes: other0 (pid " in out
    finally:
        env.close()


OTHER_UID = 12345
IN_PRIVATE_TMP = """
set -e
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -m 700 "/tmp/ctxp-$(id -u)"
chown 12345:12345 "/tmp/ctxp-$(id -u)"
cd "$REPO"
"$PY" -S -E -s "$HOOK" claude < "$BASE/start.json" > "$BASE/start.out"
"$CLI" doctor --repo "$REPO" > "$BASE/doctor.out"
XDG_STATE_HOME="$LONG" "$PY" -S -E -s "$HOOK" claude < "$BASE/start.json" > "$BASE/long.out"
XDG_STATE_HOME="$LONG" "$CLI" doctor --repo "$REPO" > "$BASE/long-doctor.out"
"""
"""Run in a mount namespace of its own with a /tmp of its own, where another user
(uid 12345) made ``/tmp/ctxp-<uid>`` first: the machine's /tmp is never touched."""


def private_tmp_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (a mount namespace, a directory given to another user)"
    if shutil.which("unshare") is None:
        return "no unshare command"
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "true"], capture_output=True, check=False
    )
    return None if probe.returncode == 0 else f"unshare -m fails: {probe.stderr.decode()}"


def test_a_socket_directory_another_user_made_first_does_not_stop_the_bridge() -> None:
    """Issue 27 item 3: with XDG_RUNTIME_DIR unset, another local user makes
    /tmp/ctxp-<uid> first. The hook still answers, through a directory under the state
    directory (or, that being too long a path, a random-named one recorded there), and
    the log and doctor say what was passed over and why."""
    reason = private_tmp_reason()
    if reason is not None:
        pytest.skip(reason)
    env = BridgeEnv(base_dir="/dev/shm")
    try:
        repo = make_repo(env.base / "repo", FILES)
        (env.base / "start.json").write_text(json.dumps(session_start("claude", "s", repo)))
        long_state = env.base / ("s" * 90)
        inside = {k: v for k, v in env.env.items() if k != "XDG_RUNTIME_DIR"}
        done = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", IN_PRIVATE_TMP],
            env={
                **inside,
                "PY": sys.executable,
                "HOOK": str(HOOK),
                "CLI": str(Path(sys.executable).parent / "context-providers"),
                "BASE": str(env.base),
                "REPO": str(repo),
                "LONG": str(long_state),
            },
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        taken = f"/tmp/ctxp-{os.getuid()}: owned by another user (uid {OTHER_UID})"
        start = json.loads((env.base / "start.out").read_text())
        assert "Cursor marker C1." in start["hookSpecificOutput"]["additionalContext"]
        run = env.state / "context-providers" / "run"
        assert list(run.glob("*.sock")), "the socket is not in the state directory"
        out = (env.base / "doctor.out").read_text()
        assert f"Socket directory: {run}\n  ! passed over: {taken}" in out, out
        assert f"! socket directory passed over: {taken}" in out, out
        assert taken in env.log()

        long_start = json.loads((env.base / "long.out").read_text())
        assert "Cursor marker C1." in long_start["hookSpecificOutput"]["additionalContext"]
        recorded = (long_state / "context-providers" / "runtime-dir").read_text().strip()
        assert recorded.startswith(f"/tmp/ctxp-{os.getuid()}-"), recorded
        long_out = (env.base / "long-doctor.out").read_text()
        assert f"Socket directory: {recorded}\n  ! passed over: {taken}" in long_out, long_out
        assert "too long a path for a socket" in long_out
    finally:
        env.close()
