"""agent.hcl loading and the kernel-side config-load warnings (SHOULD, kernel-side)."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.host.agent_config import (
    ConfigError,
    budget_sum_warning,
    load_agent_config,
    resolve_command,
    stability_order_warning,
)
from tests.conftest import SAMPLE_REPO


def test_sample_agent_hcl_declares_four_providers_in_order() -> None:
    config = load_agent_config(SAMPLE_REPO / "agent.hcl", global_config=Path("/nonexistent"))
    assert [p.local_name for p in config.providers] == [
        "repo_conventions",
        "git_status",
        "file_tree",
        "scoped_docs",
    ]
    assert config.providers[0].block == {"token_budget": 3000}
    assert config.providers[2].block["exclude"] == ["*.lock"]


def test_dev_overrides_come_from_the_global_config_only(tmp_path: Path) -> None:
    """internal/registry/globalconfig.go: dev_overrides live in the global config.hcl; in
    agent.hcl the block is unsupported, as in the kernel."""
    hcl = tmp_path / "agent.hcl"
    declared = (
        'required_providers {\n  mine = { source = "example.com/x/y", version = "1" }\n}\n'
        'provider "mine" {\n  token_budget = 10\n}\n'
    )
    hcl.write_text(declared)
    global_config = tmp_path / "config.hcl"
    global_config.write_text('dev_overrides {\n  mine = "/opt/bin/my-provider"\n}\n')
    config = load_agent_config(hcl, global_config=global_config)
    assert resolve_command(config.providers[0], config.dev_overrides) == ["/opt/bin/my-provider"]
    hcl.write_text(declared + 'dev_overrides {\n  mine = "/opt/bin/my-provider"\n}\n')
    with pytest.raises(ConfigError, match='Blocks of type "dev_overrides" are not expected'):
        load_agent_config(hcl, global_config=global_config)
    hcl.write_text(declared)
    global_config.write_text('provider "x" {}\n')
    with pytest.raises(ConfigError, match='Blocks of type "provider" are not expected'):
        load_agent_config(hcl, global_config=global_config)


def test_unknown_source_without_override_is_not_launchable(tmp_path: Path) -> None:
    hcl = tmp_path / "agent.hcl"
    hcl.write_text('required_providers {\n  x = { source = "example.com/a/b", version = "1" }\n}\n')
    config = load_agent_config(hcl, global_config=Path("/nonexistent"))
    assert resolve_command(config.providers[0], {}) is None


def test_provider_block_without_requirement_is_an_error(tmp_path: Path) -> None:
    hcl = tmp_path / "agent.hcl"
    hcl.write_text('provider "ghost" {\n  token_budget = 1\n}\n')
    with pytest.raises(ConfigError, match="ghost"):
        load_agent_config(hcl, global_config=Path("/nonexistent"))


def test_invalid_hcl_is_a_config_error(tmp_path: Path) -> None:
    hcl = tmp_path / "agent.hcl"
    hcl.write_text("provider {{{\n")
    with pytest.raises(ConfigError, match="not valid HCL"):
        load_agent_config(hcl, global_config=Path("/nonexistent"))


def test_budget_sum_warning_against_smallest_ceiling() -> None:
    """data-types.md Budget mechanics: warn if the sum could exceed the smallest ceiling."""
    assert budget_sum_warning([3000, 600], [200_000, 4000]) is None
    warning = budget_sum_warning([3000, 2000], [200_000, 4000])
    assert warning is not None and "5000" in warning and "4000" in warning


def test_stability_order_warning() -> None:
    """data-types.md Stability hint: warn if a dynamic provider precedes a static one."""
    assert stability_order_warning([("a", "static"), ("b", "dynamic")]) is None
    warning = stability_order_warning([("git", "dynamic"), ("conv", "static")])
    assert warning is not None and '"git"' in warning and '"conv"' in warning


KERNEL_LOADER = "internal/config/load.go and provider.go (upstream kernel, both branches)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo = 1\n", 'Unsupported argument; An argument named "foo" is not expected here.'),
        ("session {}\n", 'Unsupported block type; Blocks of type "session" are not expected'),
        (
            'required_providers {\n  a = { source = "s/a", version = "1" }\n}\n'
            'provider "a" {}\nprovider "a" {}\n',
            'config: provider "a": config: duplicate block',
        ),
        (
            'required_providers {\n  a = { source = "s/a", version = "1" }\n}\n'
            'required_providers {\n  b = { source = "s/b", version = "1" }\n}\n',
            "config: config: duplicate block: required_providers",
        ),
        (
            'required_providers {\n  a = { source = "s/a" }\n}\n',
            'config: required_providers: "a": version: config: missing required field',
        ),
        (
            'required_providers {\n  a = { version = "1" }\n}\n',
            'config: required_providers: "a": source: config: missing required field',
        ),
        ("provider {}\n", "Missing name for provider"),
    ],
)
def test_agent_hcl_is_read_as_the_kernel_reads_it(tmp_path: Path, text: str, message: str) -> None:
    """The reference host is never more lenient than the kernel's loader."""
    hcl = tmp_path / "agent.hcl"
    hcl.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_agent_config(hcl, global_config=Path("/nonexistent"))
    assert message in str(caught.value), KERNEL_LOADER


def test_policy_and_hook_blocks_are_allowed_and_repeatable(tmp_path: Path) -> None:
    hcl = tmp_path / "agent.hcl"
    hcl.write_text(
        'required_providers {\n  a = { source = "s/a", version = "1" }\n}\n'
        'policy "p" {}\npolicy "p" {}\nhook "context-assemble" {}\nsettings {}\n'
    )
    assert [p.local_name for p in load_agent_config(hcl).providers] == ["a"]
