"""Starting a plugin, the parts that need no grpcio: the environment the kernel gives a
plugin, and :class:`LaunchError` (it did not come up). Shared by the launcher
(:mod:`providers.host.launcher`, a process over go-plugin) and the host's own process
(:mod:`providers.host.inprocess`), which must not load grpcio to start ours.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from providers.goplugin.handshake import COOKIE_KEY, COOKIE_VALUE


class LaunchError(RuntimeError):
    """The plugin did not come up (exited early, bad handshake, timeout)."""


def plugin_environment(
    local_name: str, version: str = "", *, full_env: bool = False
) -> dict[str, str]:
    env = dict(os.environ) if full_env else {}
    for key in ("PATH", "HOME", "TMPDIR", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        if key in os.environ:
            env[key] = os.environ[key]
    env["OTEL_RESOURCE_ATTRIBUTES"] = (
        "pluggableharness.producer.category=context,"
        f"pluggableharness.producer.name={quote(local_name, safe='')},"
        f"pluggableharness.producer.version={quote(version, safe='')}"
    )
    env[COOKIE_KEY] = COOKIE_VALUE
    env["PLUGIN_PROTOCOL_VERSIONS"] = "1"
    env["PLUGIN_MIN_PORT"] = "10000"
    env["PLUGIN_MAX_PORT"] = "25000"
    return env
