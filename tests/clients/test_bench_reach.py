"""``benchmarks/bench_reach.py`` (issue 29's measurement of what reaches the model) keeps
working: run on one small repository with one client and a short time budget, it writes
its report with a row per mode, and, where the client is installed, the hooks row shows
context sent and reaching the model. A client that is not installed is a row saying so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.bridge import make_repo
from tests.clients.real_clients import missing_reason
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "bench_reach.py"
FILES = {
    "AGENTS.md": "# Agents\n\nAgents marker RB-A1.\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\nCursor marker RB-C1.\n",
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "src/util.py": "def one():\n    return 1\n",
}


@pytest.mark.slow
def test_the_reach_benchmark_runs_on_a_small_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "small", FILES)
    out = tmp_path / "reach.md"
    argv = [sys.executable, str(SCRIPT), "--local", f"small={repo}", "--clients", "codex"]
    argv += ["--modes", "hooks,mcp", "--timeout", "60", "--jobs", "1", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split(" | ") for line in out.read_text().splitlines()]
    ours = [row for row in rows if row[0] == "| small" and row[1] == "codex"]
    assert [row[2] for row in ours] == ["baseline", "hooks", "mcp"], out.read_text()
    reason = missing_reason("codex")
    if reason is not None:
        assert all(row[3].startswith("missing: ") for row in ours), ours
        return
    hooks = ours[1]
    assert hooks[3].startswith("ok,"), hooks
    sent = int(hooks[4].split(" ")[0].replace(",", ""))
    reached = int(hooks[5].split(" ")[0].replace(",", ""))
    assert sent > 0 and reached > 0, hooks
