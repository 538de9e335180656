"""Issue 11 item 1: Configure with the config the kernel actually decodes.

The kernel's hcldec bridge sends every schema attribute, ``null`` where the block omits it,
numbers as doubles; the spec's alternative for an omitted attribute is the type's zero
value. Every provider must accept each shape over real gRPC, and then contribute."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from providers._gen.pluggableharness.config.v1 import config_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.goplugin.convert import config_to_proto
from providers.host.launcher import PluginProcess
from providers.registry import PROVIDERS, ProviderEntry
from tests.conftest import script

ZERO: dict[int, Any] = {
    config_pb2.ATTR_TYPE_STRING: "",
    config_pb2.ATTR_TYPE_NUMBER: 0.0,
    config_pb2.ATTR_TYPE_BOOL: False,
    config_pb2.ATTR_TYPE_LIST_STRING: [],
    config_pb2.ATTR_TYPE_LIST_NUMBER: [],
    config_pb2.ATTR_TYPE_MAP_STRING: {},
    config_pb2.ATTR_TYPE_OBJECT: {},
}

Shape = Callable[[list[config_pb2.ConfigAttribute]], dict[str, Any]]


def all_null(schema: list[config_pb2.ConfigAttribute]) -> dict[str, Any]:
    """An empty provider block, as the kernel sends it."""
    return {a.name: None for a in schema}


def partly_null(schema: list[config_pb2.ConfigAttribute]) -> dict[str, Any]:
    """Half the attributes written (their scalar defaults, numbers as doubles), half null."""
    config: dict[str, Any] = {}
    for i, attr in enumerate(schema):
        default = json.loads(attr.default_json) if attr.HasField("default_json") else None
        if isinstance(default, list | dict):
            default = None  # declared paths must exist: a user writes real ones
        if isinstance(default, int) and not isinstance(default, bool):
            default = float(default)
        config[attr.name] = default if i % 2 else None
    return config


def zero_values(schema: list[config_pb2.ConfigAttribute]) -> dict[str, Any]:
    """The spec's alternative: each omitted attribute as its type's zero value."""
    return {a.name: ZERO[a.type] for a in schema if a.name != "watch"}


@pytest.mark.parametrize("shape", [all_null, partly_null, zero_values], ids=lambda s: s.__name__)
@pytest.mark.parametrize("entry", PROVIDERS, ids=lambda e: e.package)
def test_the_kernels_config_shapes_configure_and_contribute(
    entry: ProviderEntry, shape: Shape, sample_git: Path
) -> None:
    plugin = PluginProcess.launch([script(entry.script)], local_name=entry.package)
    try:
        caps = plugin.stub.GetCapabilities(
            context_pb2.GetCapabilitiesRequest(), timeout=30
        ).capabilities
        config = shape(list(caps.config_schema.attributes))
        if "watch" in config:
            config["watch"] = False  # as written: a bool is read as it is
        plugin.stub.Configure(config_to_proto(config), timeout=30)
        (sample_git / "src" / "tasklane" / "new_module.py").write_text("x = 1\n")
        reply = plugin.stub.Contribute(
            context_pb2.ContextRequest(
                token_budget=caps.default_token_budget,
                working_directory=str(sample_git),
                model_target=model_pb2.ModelTarget(id="m"),
                files_touched=["src/tasklane/auth/login.py"],
            ),
            timeout=30,
        )
    finally:
        plugin.close()
    assert reply.sections, f"{entry.package} contributed nothing with {config}"
