"""Issue 10 item 4: the providers are listed once (providers/registry.py) and each package has
the same shape; item 3: the standalone preview never loads grpc. Issue 19: every provider
starts from its schema's defaults, written there only."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import subprocess
import sys
import tomllib

import pytest

from providers.registry import PROVIDERS, ProviderEntry, ProviderHandle
from tests.conftest import REPO_ROOT, SAMPLE_REPO


def test_console_scripts_are_the_registry() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    scripts = pyproject["project"]["scripts"]
    for entry in PROVIDERS:
        assert scripts[entry.script] == f"{entry.module}.__main__:main"
    provider_scripts = {name for name in scripts if name != "context-providers"}
    assert provider_scripts == {entry.script for entry in PROVIDERS}


@pytest.mark.parametrize("entry", PROVIDERS, ids=lambda e: e.package)
def test_each_provider_package_has_the_same_shape(entry: ProviderEntry) -> None:
    package = REPO_ROOT / "providers" / entry.package
    for module in ("__init__.py", "__main__.py", "provider.py", "settings.py"):
        assert (package / module).is_file(), f"providers/{entry.package}/{module} is missing"
    main = ast.parse((package / "__main__.py").read_text(encoding="utf-8"))
    calls = [
        node.args[0].value
        for node in ast.walk(main)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", "") == "run"
        and isinstance(node.args[0], ast.Constant)
    ]
    assert calls == [entry.package]
    provider = ProviderHandle(entry.factory).load_now()
    assert provider.identity().name == entry.published


@pytest.mark.parametrize("entry", PROVIDERS, ids=lambda e: e.package)
def test_each_provider_starts_from_its_schemas_defaults(entry: ProviderEntry) -> None:
    """docs/configuration.md: "The kernel sends every attribute of the schema, `null` for
    those the block omits"; a provider that never gets a Configure behaves as after that
    empty block, and its settings have no defaults of their own to drift from the
    schema's."""
    settings = importlib.import_module(f"{entry.module}.settings")
    empty_block = {attr.name: None for attr in settings.SCHEMA}
    provider = ProviderHandle(entry.factory).load_now()
    started = vars(provider)["_settings"]  # every provider keeps its resolved settings there
    assert started == settings.settings_from(empty_block)
    provider.configure(empty_block)
    assert vars(provider)["_settings"] == started
    own_defaults = [
        field.name
        for field in dataclasses.fields(settings.Settings)
        if field.default is not dataclasses.MISSING
        or field.default_factory is not dataclasses.MISSING
    ]
    assert own_defaults == [], "defaults are written once, in the schema"


def test_standalone_preview_loads_no_grpc() -> None:
    code = (
        "import sys\n"
        "from providers.cli.standalone import main\n"
        "from providers.registry import by_package\n"
        f"assert main(by_package('repo_conventions'), ['--repo', {str(SAMPLE_REPO)!r}]) == 0\n"
        "bad = [n for n in sys.modules if n == 'grpc' or n.startswith('grpc.')]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "=== " in result.stdout
