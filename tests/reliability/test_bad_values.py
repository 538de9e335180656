"""Issue 15 items 8 and 9: bad values are classified where they arrive, never a crash.

Configure checks ranges and names the attribute (context-conformance.md: ``invalid_request``);
Contribute classifies what is left (a path too long for the file system); an error message
never grows past what gRPC metadata carries; a config nested too deep is ``invalid_request``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.core.budget import FallbackCounter
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.goplugin.convert import config_to_proto
from providers.goplugin.status import context_error_from
from providers.host.launcher import PluginProcess
from providers.registry import PROVIDERS, ProviderHandle, by_package
from tests.conftest import SAMPLE_REPO, script


def provider(package: str) -> Any:
    return ProviderHandle(by_package(package).factory).load_now()


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("repo_conventions", "max_file_bytes"),
        ("repo_conventions", "max_import_depth"),
        ("git_status", "timeout_ms"),
        ("git_status", "recent_commits"),
        ("git_status", "max_entries"),
        ("file_tree", "max_depth"),
        ("scoped_docs", "max_docs"),
        ("file_tree", "token_budget"),
    ],
)
@pytest.mark.parametrize("value", [1e15, 1e300, -1.0, 2.5, float("inf")])
def test_configure_refuses_numbers_out_of_range(package: str, name: str, value: float) -> None:
    made = provider(package)
    with pytest.raises(ProviderError) as caught:
        made.configure({name: value})
    assert caught.value.category is ErrorCategory.INVALID_REQUEST
    assert repr(name) in caught.value.message
    getattr(made, "close", lambda: None)()


@pytest.mark.parametrize("pattern", ["\\", "foo\\", "[z-a]", "x\\   ", "!"])
def test_a_bad_exclude_pattern_is_left_out_not_a_crash(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "keep.txt").write_text("k\n")
    (tmp_path / "drop.log").write_text("d\n")
    made = provider("file_tree")
    try:
        made.configure({"exclude": [pattern, "*.log"], "watch": False})
        answer = contribute(
            made, ContextRequest(1000, str(tmp_path), ModelTarget("m")), FallbackCounter()
        )
    finally:
        made.close()
    text = answer.sections[0].text
    assert "keep.txt" in text and "drop.log" not in text


@pytest.mark.parametrize("entry", PROVIDERS, ids=lambda e: e.package)
def test_over_long_paths_are_classified(entry: Any, tmp_path: Path) -> None:
    made = ProviderHandle(entry.factory).load_now()
    try:
        made.configure({} if entry.package == "repo_conventions" else {"watch": False})
        long_wd = "/" + "a" * 1_000_000
        with pytest.raises(ProviderError) as caught:
            contribute(made, ContextRequest(1000, long_wd, ModelTarget("m")), FallbackCounter())
        assert caught.value.category is ErrorCategory.INVALID_REQUEST
        assert len(caught.value.message) < 200
        touched = ("x" * 5000 + "/y.py", "z/" * 3000 + "a.py", "b" * 1_000_000)
        answer = contribute(
            made,
            ContextRequest(1000, str(SAMPLE_REPO), ModelTarget("m"), files_touched=touched),
            FallbackCounter(),
        )
        assert answer is not None
    finally:
        getattr(made, "close", lambda: None)()


@pytest.fixture
def plugin() -> Iterator[PluginProcess]:
    process = PluginProcess.launch([script("context-file-tree")], local_name="tree")
    try:
        yield process
    finally:
        process.close()


def test_a_thousand_unknown_keys_get_a_short_invalid_request(plugin: PluginProcess) -> None:
    config = {f"unknown_attribute_number_{i:04}": 1 for i in range(1000)}
    with pytest.raises(grpc.RpcError) as caught:
        plugin.stub.Configure(config_to_proto(config), timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    detail = context_error_from(caught.value)
    assert detail is not None and "1000 unknown config attributes" in detail.message
    assert "unknown_attribute_number_0000" in detail.message
    assert len(detail.message) < 1000


def nested(depth: int) -> struct_pb2.Struct:
    inner = struct_pb2.Struct()
    for _ in range(depth):
        outer = struct_pb2.Struct()
        outer.fields["x"].struct_value.CopyFrom(inner)
        inner = outer
    return inner


@pytest.mark.parametrize("depth", [10, 60, 120])
def test_a_deeply_nested_config_is_invalid_request(plugin: PluginProcess, depth: int) -> None:
    request = context_pb2.ConfigureRequest()
    request.config.fields["exclude"].struct_value.CopyFrom(nested(depth))
    with pytest.raises(grpc.RpcError) as caught:
        plugin.stub.Configure(request, timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # The plugin goes on serving.
    reply = plugin.stub.Contribute(
        context_pb2.ContextRequest(
            token_budget=200,
            working_directory=str(SAMPLE_REPO),
            model_target=model_pb2.ModelTarget(id="m"),
        ),
        timeout=30,
    )
    assert reply.sections
