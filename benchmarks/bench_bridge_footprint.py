"""Issue 27 item 5: what one repository's background process keeps running.

Starts the bridge's background process for a repository (a SessionStart, a prompt and
a file read, as a client's hooks send them), then counts the processes it keeps (its
own and every descendant, from ``/proc``) and their resident memory (``VmRSS``), and
the same again after the providers' watchers settled. ``--declarations N`` writes an
``agent.hcl`` declaring our four providers ``N / 4`` times each (issue 29 item 5).

    python benchmarks/bench_bridge_footprint.py [--repo DIR] [--declarations 30]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_bridge import Env, event
from benchmarks.proc import rss_kib, tree
from providers.clients import places, wire
from providers.core.identity import SOURCE
from providers.registry import PROVIDERS

ROOT = Path(__file__).resolve().parent.parent


def footprint(pid: int) -> dict[str, Any]:
    pids = [pid, *sorted(p for p in tree(pid) if p != pid)]
    rss = {p: rss_kib(p) for p in pids}
    return {
        "processes": len(pids),
        "rss_mib": round(sum(rss.values()) / 1024, 1),
        "each_mib": [round(rss[p] / 1024, 1) for p in pids],
    }


def agent_hcl(count: int) -> str:
    """``count`` declarations of our providers, in turn, each with its defaults."""
    names = [f"{PROVIDERS[i % len(PROVIDERS)].package}_{i}" for i in range(count)]
    required = "".join(
        f'  {name} = {{\n    source  = "{SOURCE}/{PROVIDERS[i % len(PROVIDERS)].published}"\n'
        '    version = "~> 0.1"\n  }\n'
        for i, name in enumerate(names)
    )
    blocks = "".join(f'provider "{name}" {{\n}}\n\n' for name in names)
    return f"required_providers {{\n{required}}}\n\n{blocks}"


def measure(repo: Path, declarations: int) -> dict[str, Any]:
    env = Env()
    work = Path(tempfile.mkdtemp(prefix="fp", dir="/tmp"))
    try:
        target = work / "repo"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(repo), str(target)], check=True)
        if declarations:
            (target / "agent.hcl").write_text(agent_hcl(declarations), encoding="utf-8")
        target = target.resolve()
        started = time.perf_counter()
        env.hook("claude", event("SessionStart", "s", target, source="startup"), target)
        first = time.perf_counter() - started
        env.hook("claude", event("UserPromptSubmit", "s", target, prompt="go on"), target)
        read = {"tool_name": "Read", "tool_input": {"file_path": str(target / "README.md")}}
        env.hook("claude", event("PostToolUse", "s", target, **read), target)
        path = places.socket_path(str(env.base / "run" / places.APP), str(target))
        _verb, _, body = wire.call(path, "status", timeout=5)
        status = json.loads(body)
        pid = int(status["pid"])
        after_hooks = footprint(pid)
        time.sleep(5)  # the watchers set up after the answers
        settled = footprint(pid)
        env.stop(target)
        return {
            "repository": str(repo),
            "declarations": declarations or len(PROVIDERS),
            "first_hook_s": round(first, 2),
            "providers": status["providers"],
            "warnings": status["warnings"],
            "after_hooks": after_hooks,
            "settled": settled,
        }
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="a git repository (cloned)")
    parser.add_argument("--declarations", type=int, default=0, help="agent.hcl declarations")
    args = parser.parse_args()
    result = measure(args.repo, args.declarations)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
