"""The standalone command: python -m providers.repo_conventions previews, exit 0;
bad input exits non-zero naming the error category."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "providers.repo_conventions", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_preview_lists_sections_with_tokens(sample: Path) -> None:
    result = run("--repo", str(sample), "--budget", "400")
    assert result.returncode == 0, result.stderr
    assert "=== AGENTS.md (" in result.stdout and "tokens, static" in result.stdout
    assert "/400 tokens" in result.stdout


def test_json_is_a_context_contribution(sample: Path) -> None:
    result = run("--repo", str(sample), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    labels = [s["label"] for s in data["sections"]]
    assert labels[0] == "AGENTS.md"
    assert all(s["stability"] == "STABILITY_STATIC" for s in data["sections"])
    assert all(s["provider"] == "repo-conventions" for s in data["sections"])


def test_bad_input_names_the_category(sample: Path, tmp_path: Path) -> None:
    for args in (
        ["--repo", str(sample), "--budget", "-5"],
        ["--repo", str(sample), "--config", '{"paths": ["NOPE.md"]}'],
        ["--repo", str(sample), "--config", "[1]"],
        ["--repo", str(sample), "--config", '{"bogus": 1}'],
    ):
        result = run(*args)
        assert result.returncode == 2, args
        assert "invalid_request" in result.stderr, (args, result.stderr)
    gone = run("--repo", str(tmp_path / "missing"))
    assert gone.returncode == 2 and "source_unavailable" in gone.stderr
