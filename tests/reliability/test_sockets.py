"""Issue 15 item 6: an unusable PLUGIN_UNIX_SOCKET_DIR (or a full disk) is passed over, down
to TCP on loopback, and stderr says why; issue 11 item 6: after a launch and a shutdown,
graceful or killed, no file or directory of ours is left in the temporary directory."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.host.launcher import PluginProcess
from tests.conftest import REPO_ROOT, script


def describe(plugin: PluginProcess) -> str:
    return plugin.stub.Describe(context_pb2.DescribeRequest(), timeout=30).producer.name


def test_an_unusable_socket_dir_is_passed_over_and_said(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    plugin = PluginProcess.launch(
        [script("context-repo-conventions")],
        local_name="rc",
        env_overrides={"PLUGIN_UNIX_SOCKET_DIR": str(missing), "TMPDIR": str(tmp_path)},
    )
    try:
        assert plugin.handshake.network == "unix"
        assert Path(plugin.handshake.address).parent.parent == tmp_path
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    plugin_tmp, host_tmp = tmp_path / "plugin", tmp_path / "host"
    plugin_tmp.mkdir()
    host_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(host_tmp))  # the host's callback socket
    plugin = PluginProcess.launch(
        [script("context-repo-conventions")],
        local_name="rc",
        env_overrides={"TMPDIR": str(plugin_tmp)},
    )
    assert describe(plugin) == "repo-conventions"
    assert list(plugin_tmp.iterdir()) and list(host_tmp.iterdir())  # both were used
    if how == "killed":
        os.kill(plugin.process.pid, signal.SIGKILL)
        plugin.process.wait(10)
    plugin.close()
    assert list(plugin_tmp.iterdir()) == []
    assert list(host_tmp.iterdir()) == []
