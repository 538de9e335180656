"""The provider as a real subprocess, launched the way the kernel launches it.

Pins go-plugin.md's checklist (section 10) and context-conformance.md's
error taxonomy on the wire: every test here talks real gRPC to a real process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from providers._gen.pluggableharness.common.v1 import common_pb2
from providers._gen.pluggableharness.config.v1 import config_pb2
from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.goplugin.convert import config_to_proto, text_block
from providers.goplugin.handshake import COOKIE_KEY, COOKIE_VALUE
from providers.host.callback_server import KernelCallbacks
from providers.host.kernel_count import kernel_token_count
from providers.host.launcher import PluginProcess, parse_handshake
from providers.host.plugin_start import plugin_environment
from tests.goplugin.answer_hook import HOOK_DELAY_S
from tests.support.wire import error_of, request


@pytest.fixture
def plugin(repo_conventions_command: list[str]) -> Iterator[PluginProcess]:
    process = PluginProcess.launch(repo_conventions_command, local_name="conventions")
    try:
        yield process
    finally:
        process.close()


def test_handshake_line_has_exactly_five_fields(plugin: PluginProcess) -> None:
    """go-plugin.md section 3: CORE|APP|NETWORK|ADDRESS|grpc, nothing else on stdout first."""
    hs = plugin.handshake
    assert (hs.core, hs.app, hs.network, hs.protocol) == (1, 1, "unix", "grpc")
    assert len(hs.address.encode()) < 104


def test_parse_handshake_rejects_garbage() -> None:
    with pytest.raises(RuntimeError):
        parse_handshake("hello world\n")
    with pytest.raises(RuntimeError):
        parse_handshake("1|2|unix|/tmp/x|grpc\n")


def test_health_reports_plugin_serving(plugin: PluginProcess) -> None:
    """go-plugin.md 4.1: the service name "plugin" must report SERVING."""
    stub = health_pb2_grpc.HealthStub(plugin.channel)
    reply = stub.Check(health_pb2.HealthCheckRequest(service="plugin"), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_describe_reports_full_producer_ref(plugin: PluginProcess) -> None:
    """Describe RPC MUST: reports this build's own ProducerRef."""
    producer = plugin.stub.Describe(context_pb2.DescribeRequest(), timeout=5).producer
    assert producer.name == "repo-conventions"
    assert producer.category == common_pb2.CATEGORY_CONTEXT
    assert producer.protocol_version == 1
    assert producer.version.count(".") == 2
    assert producer.source.startswith("github.com/")


def test_capabilities_declare_budget_stability_and_schema(plugin: PluginProcess) -> None:
    """default_token_budget declaration MUST; stability declaration MUST; not a compactor."""
    caps = plugin.stub.GetCapabilities(context_pb2.GetCapabilitiesRequest(), timeout=5).capabilities
    assert caps.default_token_budget > 0
    assert caps.stability == content_pb2.STABILITY_STATIC
    assert caps.compactor is False
    attrs = {a.name: a for a in caps.config_schema.attributes}
    assert attrs["token_budget"].type == config_pb2.ATTR_TYPE_NUMBER
    assert attrs["paths"].type == config_pb2.ATTR_TYPE_LIST_STRING
    assert {"max_import_depth", "import_allow", "provider_name"} <= set(attrs)
    assert all(a.description for a in attrs.values())


def test_contribute_returns_prior_sections_untouched_then_ours(
    plugin: PluginProcess, sample: Path
) -> None:
    """Own-section-only mutation MUST (data-types.md, Ordering & chaining): foreign
    sections come back byte-identical and in order, ours appended."""
    foreign = [
        content_pb2.ContextSection(
            provider="other",
            label="weird \u00e9 label",
            content=[
                text_block("x" * 10),
                content_pb2.ContentBlock(image=content_pb2.ImageBlock(data=b"\x00\x01")),
            ],
            tokens=3,
            stability=content_pb2.STABILITY_DYNAMIC,
            truncated=True,
        ),
        content_pb2.ContextSection(provider="conventions-lookalike", label="b", tokens=0),
    ]
    message = request(sample)
    message.prior_sections.extend(foreign)
    reply = plugin.stub.Contribute(message, timeout=10)
    assert list(reply.sections[:2]) == foreign
    assert [s.SerializeToString() for s in reply.sections[:2]] == [
        s.SerializeToString() for s in foreign
    ]
    ours = list(reply.sections[2:])
    assert ours, "sample_repo has convention files"
    for section in ours:
        assert section.provider == "conventions"  # the local name from OTEL_RESOURCE_ATTRIBUTES
        assert section.label  # Section label MUST
        assert section.stability == content_pb2.STABILITY_STATIC
        assert all(b.WhichOneof("block") == "text" for b in section.content)  # text MUST
        assert section.tokens == kernel_token_count(list(section.content))  # via CountTokens
    assert sum(s.tokens for s in ours) <= 2000


@pytest.mark.parametrize(
    ("mutate", "category"),
    [
        (lambda m, repo: setattr(m, "token_budget", -1), "INVALID_REQUEST"),
        (lambda m, repo: m.ClearField("model_target"), "INVALID_REQUEST"),
        (lambda m, repo: setattr(m, "working_directory", ""), "INVALID_REQUEST"),
        (lambda m, repo: setattr(m, "working_directory", "relative/dir"), "INVALID_REQUEST"),
        (lambda m, repo: setattr(m, "working_directory", str(repo / "gone")), "SOURCE_UNAVAILABLE"),
    ],
)
def test_malformed_requests_get_classified_errors(
    plugin: PluginProcess, sample: Path, mutate: object, category: str
) -> None:
    """Structured error taxonomy MUST; invalid_request -> InvalidArgument, source_unavailable
    -> Unavailable (context-conformance.md, canonical gRPC mapping)."""
    message = request(sample)
    mutate(message, sample)  # type: ignore[operator]
    with pytest.raises(grpc.RpcError) as info:
        plugin.stub.Contribute(message, timeout=10)
    code, detail = error_of(info.value)
    expected_code = {
        "INVALID_REQUEST": grpc.StatusCode.INVALID_ARGUMENT,
        "SOURCE_UNAVAILABLE": grpc.StatusCode.UNAVAILABLE,
    }[category]
    assert code == expected_code
    assert context_pb2.ContextErrorCategory.Name(detail.category).endswith(category)
    assert detail.message
    assert detail.retryable is (category == "SOURCE_UNAVAILABLE")
    # The plugin survives bad input: the next good call works.
    assert plugin.stub.Contribute(request(sample), timeout=10).sections


def test_zero_budget_contributes_nothing_and_is_not_an_error(
    plugin: PluginProcess, sample: Path
) -> None:
    prior = content_pb2.ContextSection(provider="x", label="x", content=[text_block("x")])
    message = request(sample, budget=0)
    message.prior_sections.append(prior)
    reply = plugin.stub.Contribute(message, timeout=10)
    assert list(reply.sections) == [prior]


def test_configure_rejects_unknown_attributes_and_missing_paths(
    plugin: PluginProcess, sample: Path
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        plugin.stub.Configure(config_to_proto({"no_such_attribute": 1}), timeout=5)
    code, detail = error_of(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "no_such_attribute" in detail.message
    with pytest.raises(grpc.RpcError) as info:
        plugin.stub.Configure(
            config_to_proto({"paths": ["/nonexistent/CONVENTIONS.md"]}), timeout=5
        )
    code, detail = error_of(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "/nonexistent/CONVENTIONS.md" in detail.message


def test_provider_name_config_overrides_the_local_name(plugin: PluginProcess, sample: Path) -> None:
    """wire-contract.md: config override, then OTEL_RESOURCE_ATTRIBUTES, then our name."""
    plugin.stub.Configure(config_to_proto({"provider_name": "renamed"}), timeout=5)
    reply = plugin.stub.Contribute(request(sample), timeout=10)
    assert {s.provider for s in reply.sections} == {"renamed"}


def test_warm_turn_makes_no_count_tokens_callbacks(plugin: PluginProcess, sample: Path) -> None:
    """Issue 2: a warm turn (nothing changed) costs zero CountTokens callbacks and gives
    byte-identical content (prompt-cache friendly)."""
    first = plugin.stub.Contribute(request(sample), timeout=10)
    calls = plugin.callbacks.stats.count_tokens_calls
    assert calls > 0, "tokens are counted through the kernel's CountTokens"
    second = plugin.stub.Contribute(request(sample), timeout=10)
    assert plugin.callbacks.stats.count_tokens_calls == calls
    assert second.SerializeToString() == first.SerializeToString()


def test_count_tokens_unimplemented_falls_back_to_the_formula(
    repo_conventions_command: list[str], sample: Path
) -> None:
    """go-plugin.md section 9: tolerate UNIMPLEMENTED with exactly the fallback formula."""
    callbacks = KernelCallbacks(count_tokens=False, label="old-kernel")
    plugin = PluginProcess.launch(repo_conventions_command, local_name="c", callbacks=callbacks)
    try:
        reply = plugin.stub.Contribute(request(sample), timeout=10)
        assert reply.sections
        for section in reply.sections:
            assert section.tokens == kernel_token_count(list(section.content))
        deadline = time.monotonic() + 5

        def messages() -> list[str]:
            return [e.message for e in callbacks.stats.log_entries]

        while time.monotonic() < deadline and not any("fallback" in m for m in messages()):
            time.sleep(0.02)
        assert any("fallback" in m for m in messages()), messages()
        assert callbacks.stats.rejected_logs == 0
    finally:
        plugin.close()


def test_shutdown_exits_well_under_two_seconds(repo_conventions_command: list[str]) -> None:
    """go-plugin.md section 6: answer Shutdown and exit promptly (the host kills at 2 s)."""
    plugin = PluginProcess.launch(repo_conventions_command, local_name="c")
    took = plugin.close()
    assert plugin.process.returncode == 0
    assert took < 1.0


def test_sigint_is_ignored(repo_conventions_command: list[str], sample: Path) -> None:
    """go-plugin.md section 6: a terminal Ctrl-C must not kill the plugin."""
    plugin = PluginProcess.launch(repo_conventions_command, local_name="c")
    try:
        plugin.process.send_signal(signal.SIGINT)
        time.sleep(0.3)
        assert plugin.process.poll() is None
        assert plugin.stub.Contribute(request(sample), timeout=10).sections
    finally:
        plugin.close()


def test_exits_when_the_host_goes_away(repo_conventions_command: list[str], tmp_path: Path) -> None:
    """go-plugin.md section 10: exit when the host disappears without calling Kill()."""
    pid_file = tmp_path / "pid"
    host = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys\n"
            f"p = subprocess.Popen({repo_conventions_command!r}, stdout=subprocess.PIPE)\n"
            f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
            "p.stdout.readline()\n",  # handshake seen; then the host exits abruptly
        ],
        env=plugin_environment("c"),
    )
    host.wait(30)
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not _running(pid):
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("plugin outlived its host")


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's exit may not be reaped at once in a container)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_without_cookie_it_is_a_command_and_with_a_wrong_cookie_it_refuses(
    repo_conventions_command: list[str], sample: Path
) -> None:
    """go-plugin.md section 2: a wrong cookie is refused with a human message, exit != 0."""
    env = {**plugin_environment("c"), COOKIE_KEY: "wrong"}
    wrong = subprocess.run(
        repo_conventions_command, env=env, capture_output=True, text=True, timeout=30
    )
    assert wrong.returncode != 0
    assert wrong.stdout == ""
    assert "plugin" in wrong.stderr
    env = {k: v for k, v in plugin_environment("c").items() if k != COOKIE_KEY}
    preview = subprocess.run(
        [*repo_conventions_command, "--repo", str(sample)],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert preview.returncode == 0, preview.stderr
    assert "AGENTS.md" in preview.stdout
    assert COOKIE_VALUE not in preview.stdout


def test_works_with_the_kernels_full_environment(
    repo_conventions_command: list[str], sample: Path
) -> None:
    """go-plugin.md section 2: the kernel's whole environment also reaches the plugin,
    and a kernel-level OTEL_RESOURCE_ATTRIBUTES may override the name; both must work."""
    plugin = PluginProcess.launch(
        repo_conventions_command,
        local_name="c",
        full_env=True,
        env_overrides={
            "https_proxy": "http://127.0.0.1:9",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=kernel",
        },
    )
    try:
        reply = plugin.stub.Contribute(request(sample), timeout=10)
        assert reply.sections
        assert {s.provider for s in reply.sections} == {"repo-conventions"}
    finally:
        plugin.close()


def test_stdio_stream_ends_at_once(plugin: PluginProcess) -> None:
    """go-plugin.md 4.4: end GRPCStdio.StreamStdio at once (holding it pins a worker)."""
    from google.protobuf import empty_pb2

    from providers._gen.plugin import grpc_stdio_pb2_grpc

    started = time.monotonic()
    stream = grpc_stdio_pb2_grpc.GRPCStdioStub(plugin.channel).StreamStdio(
        empty_pb2.Empty(), timeout=5
    )
    assert list(stream) == []
    assert time.monotonic() - started < 1.0


def test_many_concurrent_calls_do_not_starve_workers(plugin: PluginProcess, sample: Path) -> None:
    """Broker and stdio streams must not pin the server's workers: 16 concurrent
    Contributes all complete."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=16) as pool:
        replies = list(
            pool.map(lambda _: plugin.stub.Contribute(request(sample), timeout=20), range(16))
        )
    assert all(r.sections for r in replies)
    assert len({r.SerializeToString() for r in replies}) == 1


def test_answer_sent_is_called_after_the_answer_goes_out(tmp_path: Path) -> None:
    """A provider's ``answer_sent`` (the file tree starts its watcher there) runs once the
    kernel has the answer: the Contribute call does not wait for it."""
    root = Path(__file__).resolve().parents[2]
    command = [
        sys.executable,
        "-c",
        f"import os, sys; sys.path.insert(0, {str(root)!r});"
        " from providers.goplugin.server import serve;"
        " raise SystemExit(serve('tests.goplugin.answer_hook:HookProvider', os.environ))",
    ]
    plugin = PluginProcess.launch(command, local_name="hook")
    try:
        started = time.monotonic()
        reply = plugin.stub.Contribute(request(tmp_path, 100), timeout=30)
        took = time.monotonic() - started
        assert reply.sections[-1].content[0].text.text == "hook\n"
        assert took < HOOK_DELAY_S
        events = tmp_path / "events"
        deadline = time.monotonic() + 10
        while "answer_sent" not in events.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert events.read_text() == "collect\nanswer_sent\n"
    finally:
        plugin.close()
