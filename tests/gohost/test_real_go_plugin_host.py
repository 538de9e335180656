"""The plugin under a real hashicorp/go-plugin host, not only our Python reference host.

tests/gohost/host is a small Go program built against Debian's go-plugin
(1.0.1) that launches the installed console script exactly as the kernel
does (go-plugin.md sections 1, 5, 6, 9): the kernel's handshake, gRPC only,
KernelCallbackService on broker ID 1 answering CountTokens with the
documented fallback, then Describe, GetCapabilities, Configure, Contribute
and Kill(). It prints one JSON line per step; the checks here decode the raw
protobuf bytes with our own generated classes.
"""

from __future__ import annotations

import base64
import json
import math
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.rpc import code_pb2, status_pb2

from providers._gen.pluggableharness.common.v1 import common_pb2
from providers._gen.pluggableharness.config.v1 import config_pb2
from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.log.v1 import log_pb2
from tests.conftest import copy_sample, script

pytestmark = pytest.mark.skipif(
    shutil.which("go") is None,
    reason="go is not installed (.ci/install-go-host.sh installs Debian's golang-go and go-plugin)",
)

BUILD = Path(__file__).resolve().parent / "build.sh"
LOCAL_NAME = "conventions"  # what the host puts in OTEL_RESOURCE_ATTRIBUTES
MODEL_ID = "go-host-model"
BUDGET = 2000


@dataclass(frozen=True)
class HostRun:
    """What the Go host printed, by step."""

    handshake: dict[str, Any]
    calls: dict[str, dict[str, Any]]
    kill: dict[str, Any]
    callbacks: dict[str, Any]
    plugin_stderr: str
    host_stderr: str

    def response(self, method: str) -> bytes:
        call = self.calls[method]
        assert call["code"] == "OK", (method, call["message"], self.host_stderr)
        return base64.b64decode(call["response"])


@pytest.fixture(scope="session")
def go_host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The host binary, built once per session (GOPATH mode, offline)."""
    out = tmp_path_factory.mktemp("gohost") / "host"
    result = subprocess.run(
        ["bash", str(BUILD), str(out)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"go build failed:\n{result.stdout}{result.stderr}"
    return out


def run_host(
    host: Path,
    repo: Path,
    budget: int,
    min_logs: int = 0,
    plugin_script: str = "context-repo-conventions",
) -> HostRun:
    # The kernel's minimal environment: go-plugin 1.0.1 appends the host's
    # whole environment to the plugin's, so the host itself gets only these.
    env = {key: os.environ[key] for key in ("PATH", "HOME", "TMPDIR") if key in os.environ}
    plugin = script(plugin_script)
    result = subprocess.run(
        [str(host), plugin, str(budget), str(repo), str(min_logs)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    by_event = {e["event"]: e for e in events if e["event"] != "call"}
    return HostRun(
        handshake=by_event["handshake"],
        calls={e["method"]: e for e in events if e["event"] == "call"},
        kill=by_event["kill"],
        callbacks=by_event["callbacks"],
        plugin_stderr=by_event["stderr"]["text"],
        host_stderr=result.stderr,
    )


@pytest.fixture(scope="module")
def good(go_host: Path, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    return run_host(go_host, copy_sample(tmp_path_factory.mktemp("good")), BUDGET)


@pytest.fixture(scope="module")
def bad(go_host: Path, tmp_path_factory: pytest.TempPathFactory) -> HostRun:
    # The plugin logs the rejected request; wait for that one Log entry.
    return run_host(go_host, copy_sample(tmp_path_factory.mktemp("bad")), -5, min_logs=1)


def fallback_tokens(section: content_pb2.ContextSection) -> int:
    """The kernel's recount without an exact tokenizer (go-plugin.md section 9)."""
    size = sum(len(b.text.text.encode("utf-8")) for b in section.content if b.HasField("text"))
    return math.ceil(size / 4)


Exchange = tuple[context_pb2.ContextRequest, context_pb2.ContextContribution]


def contribution(run: HostRun) -> Exchange:
    call = run.calls["Contribute"]
    request = context_pb2.ContextRequest.FromString(base64.b64decode(call["request"]))
    return request, context_pb2.ContextContribution.FromString(run.response("Contribute"))


def test_handshake_under_real_go_plugin(good: HostRun) -> None:
    assert good.handshake["ok"] is True, good.host_stderr
    assert good.handshake["protocol"] == "grpc"
    assert good.handshake["negotiated_version"] == 1
    assert list(good.calls) == ["Describe", "GetCapabilities", "Configure", "Contribute"]


def test_describe_and_capabilities(good: HostRun) -> None:
    producer = context_pb2.DescribeResponse.FromString(good.response("Describe")).producer
    assert producer.category == common_pb2.CATEGORY_CONTEXT
    assert producer.name == "repo-conventions"
    assert producer.protocol_version == 1
    capabilities = context_pb2.GetCapabilitiesResponse.FromString(
        good.response("GetCapabilities")
    ).capabilities
    assert capabilities.stability == content_pb2.STABILITY_STATIC
    assert not capabilities.compactor
    attributes = {a.name: a.type for a in capabilities.config_schema.attributes}
    assert attributes["token_budget"] == config_pb2.ATTR_TYPE_NUMBER
    assert context_pb2.ConfigureResponse.FromString(good.response("Configure")) == (
        context_pb2.ConfigureResponse()
    )


def test_contribute_keeps_the_chain_and_appends_own_sections(good: HostRun) -> None:
    request, reply = contribution(good)
    assert request.token_budget == BUDGET and request.model_target.id == MODEL_ID
    (foreign,) = request.prior_sections
    first, *own = reply.sections
    assert first.SerializeToString() == foreign.SerializeToString()
    assert first == foreign
    assert own, "the sample repository has convention files"
    assert {s.provider for s in own} == {LOCAL_NAME}
    assert {s.label for s in own} >= {"AGENTS.md"}
    for section in own:
        assert section.tokens == fallback_tokens(section), section.label
        assert section.stability == content_pb2.STABILITY_STATIC
    assert sum(s.tokens for s in own) <= BUDGET


def test_plugin_counts_through_the_broker(good: HostRun) -> None:
    counts = good.callbacks["count_tokens"]
    assert len(counts) >= 1, good.plugin_stderr
    for call in counts:
        assert call["model_id"] == MODEL_ID
        assert call["count"] == math.ceil(call["text_bytes"] / 4)
    assert good.callbacks["rejected_logs"] == 0


def test_bad_request_carries_a_context_error(bad: HostRun) -> None:
    call = bad.calls["Contribute"]
    assert call["code"] == "InvalidArgument"
    status = status_pb2.Status.FromString(base64.b64decode(call["status"]))
    assert status.code == code_pb2.INVALID_ARGUMENT
    errors = []
    for detail in status.details:
        error = context_pb2.ContextError()
        if detail.Unpack(error):
            errors.append(error)
    assert [e.category for e in errors] == [context_pb2.CONTEXT_ERROR_CATEGORY_INVALID_REQUEST]
    assert "token_budget" in errors[0].message
    # Bring-up before the bad turn still worked.
    assert [bad.calls[m]["code"] for m in ("Describe", "GetCapabilities", "Configure")] == [
        "OK"
    ] * 3


def test_plugin_logs_through_the_broker(bad: HostRun) -> None:
    logs = bad.callbacks["logs"]
    assert bad.callbacks["rejected_logs"] == 0
    assert any(
        entry["level"] == log_pb2.LOG_LEVEL_WARN and "token_budget" in entry["message"]
        for entry in logs
    ), logs


@pytest.mark.parametrize("which", ["good", "bad"])
def test_kill_is_graceful_and_fast(which: str, request: pytest.FixtureRequest) -> None:
    run: HostRun = request.getfixturevalue(which)
    kill = run.kill
    assert kill["exited"] is True
    assert "signal" not in kill, (kill, run.host_stderr)
    assert kill["exit_code"] == 0, run.plugin_stderr
    assert kill["kill_ms"] < 1000, kill
    assert "failed to exit gracefully" not in run.host_stderr


@pytest.mark.parametrize(
    ("plugin_script", "published", "stability"),
    [
        ("context-git-status", "git-status", content_pb2.STABILITY_DYNAMIC),
        ("context-file-tree", "file-tree", content_pb2.STABILITY_DYNAMIC),
        ("context-scoped-docs", "scoped-docs", content_pb2.STABILITY_DYNAMIC),
    ],
)
def test_every_provider_runs_under_real_go_plugin(
    go_host: Path,
    tmp_path: Path,
    plugin_script: str,
    published: str,
    stability: int,
) -> None:
    """The other three providers come up, answer and shut down under go-plugin too."""
    run = run_host(go_host, copy_sample(tmp_path, as_git=True), BUDGET, plugin_script=plugin_script)
    assert run.handshake["ok"] is True, run.host_stderr
    describe = context_pb2.DescribeResponse.FromString(run.response("Describe"))
    assert describe.producer.name == published
    request, reply = contribution(run)
    assert list(reply.sections[: len(request.prior_sections)]) == list(request.prior_sections)
    ours = list(reply.sections[len(request.prior_sections) :])
    assert ours, run.plugin_stderr
    for section in ours:
        assert section.provider == "conventions"  # the local name the host passed
        assert section.stability == stability
        assert section.tokens == fallback_tokens(section)
    assert sum(s.tokens for s in ours) <= BUDGET
    assert run.kill["exit_code"] == 0 and "signal" not in run.kill, run.kill
