"""Issue 28 item 5: one reader of the bridge's timing variables (hook.env_seconds), each
variable with its own upper bound."""

from __future__ import annotations

import pytest

from providers.clients import daemon, hook, mcp_session


@pytest.mark.parametrize(
    ("value", "expected"), [("", 8.0), ("x", 8.0), ("0", 8.0), ("-1", 8.0), ("2.5", 2.5)]
)
def test_a_timing_variable_is_read_or_its_default(
    value: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(hook.ENV_START, value)
    assert hook.start_seconds() == expected


def test_each_variable_has_its_own_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(hook.ENV_WAIT, "1000")
    assert hook.wait_seconds() == hook.WAIT_S  # a hook never waits 1000 s
    monkeypatch.setenv(mcp_session.ENV_WAIT, "1000")
    assert hook.env_seconds(mcp_session.ENV_WAIT, mcp_session.WAIT_S, most=3600) == 1000
    monkeypatch.setenv(daemon.ENV_IDLE, "7200")
    assert daemon.idle_seconds() == 7200
    monkeypatch.setenv(daemon.ENV_IDLE, "100000")
    assert daemon.idle_seconds() == daemon.IDLE_S
