"""Issue 11 item 7: the quick start works on a stock Debian/Ubuntu python3.

There `pip install` stops at ``externally-managed-environment`` (PEP 668) and
``python3 -m venv`` may lack ensurepip (no python3-venv package). ``./dev``
makes and keeps ``.venv`` in the checkout and never installs into the system's
interpreter. The tests build such a system Python for real: a copy of this
interpreter's installation (its stdlib linked, not copied) with an
``EXTERNALLY-MANAGED`` file in its stdlib directory, no ensurepip, and pip
only when asked; a venv would not do, since pip ignores the marker inside one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, copy_checkout

README = REPO_ROOT / "README.md"
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


def system_python(where: Path, *, pip: bool) -> Path:
    """A Python installation like Debian's without python3-venv; returns its ``bin``.

    Not a venv: ``sys.prefix`` is its own, so its stdlib directory is the copy's and
    pip honours the marker there. The interpreter binary is copied (it finds its stdlib
    from its real location), every stdlib entry is a link except ``ensurepip`` (left
    out) and the site directory (its own: empty, or holding a link to this pip).
    """
    base = Path(sys.base_prefix)
    stdlib = Path(sysconfig.get_paths(vars={"installed_base": str(base)})["stdlib"])
    assert stdlib.is_relative_to(base), stdlib
    prefix = where / "system"
    (prefix / "bin").mkdir(parents=True)
    binary = Path(os.path.realpath(sys._base_executable))  # type: ignore[attr-defined]
    shutil.copy2(binary, prefix / "bin" / VERSION)
    (prefix / "bin" / "python3").symlink_to(VERSION)
    own_stdlib = prefix / stdlib.relative_to(base)
    own_stdlib.mkdir(parents=True)
    for entry in (base / "lib").iterdir():  # libpython, for a binary linked to $ORIGIN/../lib
        if not entry.name.startswith("python"):
            (prefix / "lib" / entry.name).symlink_to(entry)
    for entry in stdlib.iterdir():
        if entry.name not in ("ensurepip", "site-packages", "dist-packages"):
            (own_stdlib / entry.name).symlink_to(entry)
    (own_stdlib / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=This is a stand-in for Debian's python3.\n"
    )
    python_bin = prefix / "bin"
    site = purelib(python_bin)  # Debian's is under local/, and on sys.path once it exists
    assert site.is_relative_to(prefix), site
    site.mkdir(parents=True, exist_ok=True)
    if pip:
        import pip as installed_pip

        (site / "pip").symlink_to(Path(installed_pip.__file__).parent)
    return python_bin


def purelib(python_bin: Path) -> Path:
    """Where that Python's pip would install (its site directory)."""
    return Path(
        subprocess.run(
            [
                str(python_bin / "python3"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )


def environment(python_bin: Path) -> dict[str, str]:
    """That Python first on PATH as ``python3``; no python of this test run leaks in."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "VIRTUAL_ENV")}
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join([str(python_bin), env.get("PATH", "")])
    return env


def site_packages(python_bin: Path) -> list[str]:
    return sorted(p.name for p in purelib(python_bin).iterdir())


@pytest.mark.slow
def test_dev_preview_and_test_on_an_externally_managed_python_without_ensurepip(
    tmp_path: Path,
) -> None:
    python_bin = system_python(tmp_path, pip=True)
    env = environment(python_bin)
    checkout = copy_checkout(tmp_path / "checkout")
    before = site_packages(python_bin)
    # The stand-in is what a Debian user has: the old quick start fails on it.
    refused = subprocess.run(
        ["python3", "-m", "pip", "install", "-e", "."],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr
    # A .venv left broken by an interrupted run is made again.
    (checkout / ".venv" / "bin").mkdir(parents=True)

    preview = subprocess.run(
        ["./dev", "preview"], cwd=checkout, env=env, capture_output=True, text=True, timeout=600
    )
    assert preview.returncode == 0, preview.stdout[-2000:] + preview.stderr
    assert "is not usable" in preview.stderr
    assert "has no ensurepip: pip was put into .venv" in preview.stderr, preview.stderr
    assert '<context provider="repo_conventions" label="AGENTS.md">' in preview.stdout
    assert "turn 3" in preview.stdout and "warnings:" in preview.stdout
    assert (checkout / ".venv" / "bin" / "context-providers").exists()
    assert site_packages(python_bin) == before, "something was installed into python3"

    # Run again: nothing to install, straight to the job.
    started = time.monotonic()
    again = subprocess.run(
        ["./dev", "preview", "--help"], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0 and "installing" not in again.stderr, again.stderr
    assert "main job" in again.stdout
    assert time.monotonic() - started < 30

    tests = subprocess.run(
        ["./dev", "test", "tests/test_registry.py"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-2000:] + tests.stderr
    assert "installing context-providers into .venv (pip install -e '.[dev]')" in tests.stderr
    assert re.search(r"\d+ passed", tests.stdout), tests.stdout
    assert site_packages(python_bin) == before


def test_dev_says_what_to_install_when_there_is_no_way_to_pip(tmp_path: Path) -> None:
    python_bin = system_python(tmp_path, pip=False)
    checkout = copy_checkout(tmp_path / "checkout")
    result = subprocess.run(
        ["./dev", "test"],
        cwd=checkout,
        env=environment(python_bin),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "sudo apt install python3-venv" in result.stderr, result.stderr
    assert not (checkout / ".venv").exists()


def quick_start_commands() -> list[str]:
    """The shell commands of the README's quick start, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_quick_start_is_two_commands_and_ci_runs_the_second() -> None:
    preview, test = quick_start_commands()
    assert preview == "./dev preview"
    assert test == "./dev python -m pytest"
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [
        line.strip() for line in ci.splitlines() if line.strip() and not line.startswith("#")
    ]
    assert commands[-1] == test, "the last thing .ci/run does is the README's test command"
    assert "bash .ci/install-go-host.sh" in commands
    assert os.access(REPO_ROOT / "dev", os.X_OK)
    assert (REPO_ROOT / "dev").read_text(encoding="utf-8").startswith("#!/bin/sh\n")


def test_dev_refuses_a_python_older_than_3_11(tmp_path: Path) -> None:
    """PYTHON names the interpreter for .venv; one that is not 3.11+ is refused by name
    (here a stand-in that answers the version check the way Python 3.10 would)."""
    old = tmp_path / "python3.10"
    old.write_text("#!/bin/sh\nexit 1\n")
    old.chmod(0o755)
    checkout = copy_checkout(tmp_path / "checkout")
    result = subprocess.run(
        ["./dev", "preview"],
        cwd=checkout,
        env={**os.environ, "PYTHON": str(old)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr == f"dev: PYTHON={old} is not a Python 3.11 or newer\n"
    assert not (checkout / ".venv").exists()
