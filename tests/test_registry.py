"""Issue 10 item 4: the providers are listed once (providers/registry.py) and each package has
the same shape; item 3: the standalone preview never loads grpc."""

from __future__ import annotations

import ast
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
