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


def test_dev_overrides_map_local_names_to_executables(tmp_path: Path) -> None:
    hcl = tmp_path / "agent.hcl"
    hcl.write_text(
        'required_providers {\n  mine = { source = "example.com/x/y", version = "1" }\n}\n'
        'provider "mine" {\n  token_budget = 10\n}\n'
        'dev_overrides {\n  mine = "/opt/bin/my-provider"\n}\n'
    )
    config = load_agent_config(hcl, global_config=Path("/nonexistent"))
    assert resolve_command(config.providers[0], config.dev_overrides) == ["/opt/bin/my-provider"]


def test_unknown_source_without_override_is_not_launchable(tmp_path: Path) -> None:
    hcl = tmp_path / "agent.hcl"
    hcl.write_text('required_providers {\n  x = { source = "example.com/a/b" }\n}\n')
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
