"""design.md principle 15: strict gates. ruff (lint and format) and mypy (strict for
providers/) run as part of the test command, so CI enforces them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_lint_clean() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_clean() -> None:
    result = run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
