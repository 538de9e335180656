"""Issue 2's numbers for the platform and the repo conventions provider, in one run.

Prints launch time (spawn to handshake) and RSS against a bare grpcio plugin
started the same way, and cold and warm Contribute latency against a bare
gRPC round trip, plus the CountTokens callbacks a warm turn makes (target 0).

    python benchmarks/bench_platform.py [--launches 10] [--turns 200]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.floor import BarePlugin, median_seconds, row, rss_kib
from benchmarks.provider_process import command
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.host.launcher import PluginProcess

SAMPLE = Path(__file__).resolve().parent.parent / "sample_repo"


def contribute_request(repo: Path, budget: int = 4000) -> context_pb2.ContextRequest:
    return context_pb2.ContextRequest(
        token_budget=budget,
        working_directory=str(repo),
        model_target=model_pb2.ModelTarget(id="bench-model"),
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    repo_cmd = command("repo-conventions")
    scratch = Path(tempfile.mkdtemp(prefix="bench-"))
    repo = scratch / "sample_repo"
    shutil.copytree(SAMPLE, repo)

    bare_launch, ours_launch, bare_rss, ours_rss, cold = [], [], [], [], []
    for _ in range(args.launches):
        bare = BarePlugin()
        bare_launch.append(bare.launch_seconds)
        bare.round_trip()
        bare_rss.append(rss_kib(bare.process.pid))
        bare.close()
        plugin = PluginProcess.launch(repo_cmd, local_name="repo_conventions")
        ours_launch.append(plugin.launch_seconds)
        plugin.stub.Describe(context_pb2.DescribeRequest(), timeout=10)
        started = time.perf_counter()
        plugin.stub.Contribute(contribute_request(repo), timeout=30)
        cold.append(time.perf_counter() - started)
        ours_rss.append(rss_kib(plugin.process.pid))
        plugin.close()

    bare = BarePlugin()
    plugin = PluginProcess.launch(repo_cmd, local_name="repo_conventions")
    try:
        reply = plugin.stub.Contribute(contribute_request(repo), timeout=30)
        floor = median_seconds(bare.round_trip, args.turns)
        same_bytes = median_seconds(
            bare.same_bytes_round_trip(contribute_request(repo), reply), args.turns
        )
        calls_before = plugin.callbacks.stats.count_tokens_calls
        warm = median_seconds(
            lambda: plugin.stub.Contribute(contribute_request(repo), timeout=30), args.turns
        )
        warm_calls = plugin.callbacks.stats.count_tokens_calls - calls_before
        floor_after = median_seconds(bare.round_trip, args.turns)
    finally:
        plugin.close()
        bare.close()
        shutil.rmtree(scratch)
    floor = min(floor, floor_after)

    ms = 1000.0
    print(f"repo conventions on sample_repo; {args.launches} launches, {args.turns} turns")
    print(
        row(
            "launch (spawn -> handshake), median",
            statistics.median(ours_launch) * ms,
            statistics.median(bare_launch) * ms,
            1.3,
        )
    )
    rss_ours, rss_bare = statistics.median(ours_rss), statistics.median(bare_rss)
    print(
        f"{'RSS after first Contribute, median':<42} {rss_ours / 1024:9.1f} MiB  "
        f"floor {rss_bare / 1024:9.1f} MiB  {rss_ours / rss_bare:5.2f}x"
        + ("  ok" if rss_ours <= 1.3 * rss_bare else "  OVER 1.3x")
    )
    print(row("cold Contribute (first on a process)", statistics.median(cold) * ms, floor * ms))
    print(row("warm Contribute (nothing changed)", warm * ms, floor * ms, 2.0))
    print(row("same, vs a no-op carrying its bytes", warm * ms, same_bytes * ms))
    print(f"{'CountTokens callbacks in warm turns':<42} {warm_calls:9d}  (target 0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
