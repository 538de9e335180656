"""Issue 11 item 11: packaging as the ecosystem expects.

A real ``python -m build`` of a copy of the checkout: an sdist that holds what
it takes to regenerate the stubs and run the tests (every file git tracks:
proto/, sample_repo/ with its dotfiles, tests/ with the Go host and fixtures,
benchmarks/, .ci/, ./dev), and a wheel built from that sdist with PEP 639
license metadata (``License-Expression``, the LICENSE file, no License
classifier), the type-hint marker, the console scripts and the project URLs.
setuptools says nothing about the license on the way.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from providers.registry import PROVIDERS
from tests.conftest import REPO_ROOT, copy_checkout

NAME = "context_providers"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """(sdist, wheel, the build's output)."""
    root = tmp_path_factory.mktemp("packaging")
    source = copy_checkout(root / "source")
    out = root / "dist"
    result = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel, result.stdout + result.stderr


def tracked_files() -> set[str]:
    listed = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files", "-co", "--exclude-standard", "-z"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    return {rel for rel in listed.split("\0") if rel and (REPO_ROOT / rel).is_file()}


@pytest.mark.slow
def test_setuptools_does_not_warn_about_the_license(built: tuple[Path, Path, str]) -> None:
    output = built[2]
    assert not re.search(r"(?i)license", " ".join(re.findall(r"(?i).*warn.*", output))), output
    assert "SetuptoolsDeprecationWarning" not in output


@pytest.mark.slow
def test_sdist_holds_what_it_takes_to_regenerate_and_test(built: tuple[Path, Path, str]) -> None:
    with tarfile.open(built[0]) as sdist:
        members = {m.name.split("/", 1)[1]: m for m in sdist.getmembers() if "/" in m.name}
    names = {name for name, member in members.items() if member.isfile()}
    required = {
        "LICENSE",
        "README.md",
        "AGENTS.md",
        "docs/configuration.md",
        "docs/standalone.md",
        "pyproject.toml",
        "dev",
        ".ci/run",
        ".ci/install-go-host.sh",
        "proto/generate.py",
        "proto/pluggableharness/context/v1/context.proto",
        "proto/plugin/grpc_broker.proto",
        "sample_repo/agent.hcl",
        "sample_repo/.preview-session.json",
        "sample_repo/.gitignore",
        "sample_repo/.cursor/rules/always.mdc",
        "sample_repo/.claude/rules/storage.md",
        "sample_repo/.github/copilot-instructions.md",
        "sample_repo/build/output.txt",
        "tests/conftest.py",
        "tests/gohost/build.sh",
        "tests/gohost/host/main.go",
        "benchmarks/bench_platform.py",
        "providers/py.typed",
    }
    assert required <= names, sorted(required - names)
    assert any(name.startswith("tests/markdown/fixtures/markdown/") for name in names)
    if (REPO_ROOT / ".git").exists():
        assert tracked_files() <= names, sorted(tracked_files() - names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n in names if n.startswith((".venv/", ".git/", "build/", "dist/"))]
    assert members["dev"].mode & 0o111, "./dev stays executable"


@pytest.mark.slow
def test_wheel_metadata_license_typing_and_scripts(built: tuple[Path, Path, str]) -> None:
    with zipfile.ZipFile(built[1]) as wheel:
        names = set(wheel.namelist())
        (info,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
        metadata = Parser().parsestr(wheel.read(f"{info}/METADATA").decode())
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
        license_text = wheel.read(f"{info}/licenses/LICENSE").decode()
    assert "providers/py.typed" in names
    data = info.replace(".dist-info", ".data")  # the hook's launcher, a plain script
    assert {n.split("/")[0] for n in names} == {"providers", info, data}
    assert {n for n in names if n.startswith(data)} == {f"{data}/scripts/context-providers-hook"}
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert license_text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the context-providers authors" in license_text
    assert license_text == (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    classifiers = metadata.get_all("Classifier") or []
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639
    for version in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {version}" in classifiers
    assert "Typing :: Typed" in classifiers
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    base = "https://github.com/context-providers/context-providers"
    assert urls["Source"] == base and urls["Issues"] == f"{base}/issues"
    assert urls["Documentation"].startswith(f"{base}#")
    for url in urls.values():  # the README's headings, or a page of docs/ and its headings
        path, _, anchor = url.removeprefix(base).partition("#")
        if path.startswith("/blob/main/"):
            assert (REPO_ROOT / path.removeprefix("/blob/main/")).is_file(), url
        elif not anchor:
            continue
        page = REPO_ROOT / (path.removeprefix("/blob/main/") or "README.md")
        headings = {
            re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in page.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")
        }
        assert not anchor or anchor == "readme" or anchor in headings, url
    assert "context-providers = providers.__main__:main" in entry_points
    for entry in PROVIDERS:
        assert f"{entry.script} = {entry.module}.__main__:main" in entry_points
