"""The reference host's launcher: a launch that fails leaves nothing open (issue 20 item 11:
its pipes leaked, and with warnings as errors the next test to collect them failed)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from providers.host import launcher
from providers.host.launcher import PluginProcess
from providers.host.plugin_start import LaunchError


@pytest.mark.parametrize(
    ("code", "timeout", "message"),
    [
        ("pass", 30.0, "plugin exited before we could connect"),
        ("print('not a handshake', flush=True)", 30.0, "Unrecognized remote plugin message"),
        ("print('1|1|unix|/nowhere|netrpc', flush=True)", 30.0, "unsupported plugin protocol"),
        ("import time; time.sleep(60)", 0.5, "timeout waiting for the plugin handshake"),
    ],
)
def test_a_failed_launch_closes_its_process_and_pipes(
    monkeypatch: pytest.MonkeyPatch, code: str, timeout: float, message: str
) -> None:
    """Issue 20 item 11: whatever makes a launch fail (an early exit, a bad handshake, no
    handshake in time), the process is gone and both of its pipes are closed."""
    started: list[subprocess.Popen[bytes]] = []

    class Recorded(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(launcher.subprocess, "Popen", Recorded)
    with pytest.raises(LaunchError, match=message):
        PluginProcess.launch([sys.executable, "-c", code], local_name="x", start_timeout=timeout)
    (process,) = started
    assert process.returncode is not None
    assert process.stdout is not None and process.stdout.closed
    assert process.stderr is not None and process.stderr.closed
