"""Today's ranking, pinned: a revision's ``providers/`` extracted once and run in a subprocess.

The map under test (``ours``) changes as the ranking improves; this one stays
as it was at ``--baseline`` (the commit main was at when the benchmark was
written), so each run shows the change against a fixed point. All of a
repository's tasks go to one process, JSON in and out.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks.orientation.cases import CACHE, RepoCase, Task, git

PROJECT = Path(__file__).resolve().parents[2]
DEFAULT_BASELINE = "ad7132b68e07ebc573864c5144a16cf9da98fff2"
_RUNNER = Path(__file__).with_name("baseline_runner.py")


def resolve(rev: str) -> str:
    return git("rev-parse", "--verify", f"{rev}^{{commit}}", cwd=PROJECT).decode().strip()


def extract(sha: str) -> Path:
    """``git archive <sha> providers`` unpacked under the cache (once per revision)."""
    dest = CACHE / "baseline" / sha
    if (dest / "providers").is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    archive = git("archive", "--format=tar", sha, "providers", cwd=PROJECT)
    staging = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{sha[:12]}-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(staging, filter="data")
    staging.rename(dest)
    return dest


def baseline_texts(case: RepoCase, tasks: Sequence[Task], budget: int, revision: Path) -> list[str]:
    """The revision's section text for each task, in order."""
    request = {
        "providers": str(revision),
        "root": str(case.root),
        "paths": list(case.paths),
        "budget": budget,
        "touched": [list(t.touched) for t in tasks],
    }
    env = {**os.environ, "PYTHONPATH": str(revision), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, str(_RUNNER)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"baseline runner failed for {case.name}:\n{done.stderr}")
    texts: list[str] = json.loads(done.stdout)
    return texts
