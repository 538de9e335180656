"""Issue 15 item 6: an unusable PLUGIN_UNIX_SOCKET_DIR (or a full disk) is passed over, down
to TCP on loopback, and stderr says why; issue 11 item 6 and issue 20 item 11: after a
launch and a shutdown, graceful or killed, no file or directory of ours is left, in the
socket directory or the temporary directory; issue 20 item 10: a long TMPDIR changes
nothing (the host's sockets go in a short directory of its own)."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.host.launcher import SOCKET_DIR_ENV, PluginProcess
from tests.conftest import REPO_ROOT, script


def describe(plugin: PluginProcess) -> str:
    return plugin.stub.Describe(context_pb2.DescribeRequest(), timeout=30).producer.name


@pytest.fixture
def short_dir(short_socket_dir: str) -> Iterator[Path]:
    """A fresh directory with a short path (under the session's socket directory)."""
    path = Path(tempfile.mkdtemp(prefix="t-", dir=short_socket_dir))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_an_unusable_socket_dir_is_passed_over_and_said(short_dir: Path) -> None:
    missing = short_dir / "no-such-dir"
    plugin = PluginProcess.launch(
        [script("context-repo-conventions")],
        local_name="rc",
        env_overrides={"PLUGIN_UNIX_SOCKET_DIR": str(missing), "TMPDIR": str(short_dir)},
    )
    try:
        assert plugin.handshake.network == "unix"
        assert Path(plugin.handshake.address).parent.parent == short_dir
        assert describe(plugin) == "repo-conventions"
    finally:
        plugin.close()
    assert any(str(missing) in line and "not usable" in line for line in plugin.stderr_lines)


def test_with_no_usable_directory_at_all_it_listens_on_tcp(tmp_path: Path) -> None:
    """/tmp and /var/tmp full (tmpfs with no inodes left, in a mount namespace of its own),
    the working directory there too, the configured directories gone: TCP on loopback."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=4k tmpfs /tmp"],
        capture_output=True,
    )
    if probe.returncode != 0:
        pytest.skip("no mount namespace here: " + probe.stderr.decode().strip())
    # What the plugin runs from: a clone in /tmp has its .venv and source there.
    needed = [
        Path(os.path.realpath(path))
        for path in (script("context-repo-conventions"), sys.executable, *sys.path)
        if path
    ]
    deep = tmp_path / "gone"
    wrapper = tmp_path / "plugin-with-full-tmp"
    wrapper.write_text(
        "#!/bin/sh\n"
        "exec unshare -m sh -c '"
        "set -e; "
        + "".join(_full_tmpfs(d, needed) for d in ("/tmp", "/var/tmp"))
        + 'cd /tmp; exec "$0"\''
        f" {script('context-repo-conventions')}\n"
    )
    wrapper.chmod(0o755)
    plugin = PluginProcess.launch(
        [str(wrapper)],
        local_name="rc",
        env_overrides={"PLUGIN_UNIX_SOCKET_DIR": str(deep), "TMPDIR": str(deep)},
    )
    try:
        assert plugin.handshake.network == "tcp"
        assert plugin.handshake.address.startswith("127.0.0.1:")
        assert describe(plugin) == "repo-conventions"
    finally:
        plugin.close()
    assert any("listening on 127.0.0.1" in line for line in plugin.stderr_lines)


def _full_tmpfs(directory: str, needed: list[Path]) -> str:
    """Shell that covers ``directory`` with a full tmpfs (no inode left).

    The plugin's own files (``needed``: a checkout's .venv and its editable source) may
    live under it, as in a clone in /tmp: those are held open before the tmpfs covers
    them, bound back in it (``-c``: the kernel follows /proc/self/fd, mount must not
    resolve the path itself), and the inodes left are then used up.
    """
    keep = sorted(
        {
            path if path.is_dir() else path.parent
            for path in (*needed, REPO_ROOT)
            if path.is_relative_to(directory) and path.exists()
        }
    )
    keep = [p for p in keep if not any(p != q and p.is_relative_to(q) for q in keep)]
    if not keep:
        return f"mount -t tmpfs -o size=4k,nr_inodes=1 tmpfs {directory}; "
    held = [(3 + n, shlex.quote(str(path))) for n, path in enumerate(keep)]
    lines = [f"exec {fd}<{path}" for fd, path in held]
    lines.append(f"mount -t tmpfs -o size=64k,nr_inodes=64 tmpfs {directory}")
    for fd, path in held:
        lines += [f"mkdir -p {path}", f"mount -c --bind /proc/self/fd/{fd} {path}"]
        lines.append(f"exec {fd}<&-")
    lines.append(f"i=0; while {{ true >{directory}/.full$i; }} 2>/dev/null; do i=$((i+1)); done")
    return "; ".join(lines) + "; "


@pytest.mark.parametrize("how", ["graceful", "killed"])
def test_nothing_of_ours_is_left_behind(
    tmp_path: Path, short_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The plugin's socket (``ctxp-*``) and the host's callback socket (``ctxk-*``, which
    every test run used to leave in TMPDIR) both go in the host's socket directory, and
    both are gone after the close, whether the plugin shut down or was killed."""
    monkeypatch.setenv(SOCKET_DIR_ENV, str(short_dir))
    plugin_tmp, host_tmp = tmp_path / "plugin", tmp_path / "host"
    plugin_tmp.mkdir()
    host_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(host_tmp))
    plugin = PluginProcess.launch(
        [script("context-repo-conventions")],
        local_name="rc",
        env_overrides={"TMPDIR": str(plugin_tmp)},
    )
    try:
        assert describe(plugin) == "repo-conventions"
        assert sorted(p.name[:5] for p in short_dir.iterdir()) == ["ctxk-", "ctxp-"]
        if how == "killed":
            os.kill(plugin.process.pid, signal.SIGKILL)
            plugin.process.wait(10)
    finally:
        plugin.close()
    assert list(short_dir.iterdir()) == []
    assert list(plugin_tmp.iterdir()) == []
    assert list(host_tmp.iterdir()) == []


def test_launch_tests_pass_with_a_long_tmpdir(tmp_path: Path) -> None:
    """Issue 20 items 10-11: with TMPDIR 60 characters longer (14 more failed 3 tests:
    sockets over the 108-byte limit, then a plugin left open failed an unrelated test),
    launch tests pass, a host killed mid-call included, and leave nothing in TMPDIR."""
    long_tmp = tmp_path / ("t" * 60)
    long_tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != SOCKET_DIR_ENV}
    env["TMPDIR"] = str(long_tmp)
    tests = [
        "tests/reliability/test_sockets.py::test_nothing_of_ours_is_left_behind",
        "tests/reliability/test_sockets.py::test_an_unusable_socket_dir_is_passed_over_and_said",
        "tests/reliability/test_host_death.py::test_a_plugin_busy_in_python_exits_within_2s_of_its_host",
        "tests/goplugin/test_plugin_process.py::test_answer_sent_is_called_after_the_answer_goes_out",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.stdout.split()[0] == "....."  # five passed (the configuration is -q)
    left = [p.name for p in long_tmp.iterdir() if p.name.startswith("ctx")]
    assert left == []
