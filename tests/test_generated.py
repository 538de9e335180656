"""design.md principle 12: generated code is reproducible; a test fails when it drifts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT


def test_stubs_match_proto(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(REPO_ROOT / "proto" / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = tmp_path / "providers" / "_gen"
    committed = REPO_ROOT / "providers" / "_gen"
    fresh_files = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    committed_files = {
        p.relative_to(committed)
        for p in committed.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert fresh_files == committed_files
    drifted = [
        str(r) for r in fresh_files if (fresh / r).read_bytes() != (committed / r).read_bytes()
    ]
    assert not drifted, f"regenerate with python proto/generate.py: {drifted}"
