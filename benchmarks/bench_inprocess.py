"""Issue 31: the four providers inside the bridge's background process, measured as the
plugins are (the same repository, the same turns, ratios against floors in one run).

On a generated repository mid-task (10,000 files by default; a staged edit, two unstaged
ones, an untracked folder), for each provider:

- cold: the first Contribute of a freshly started provider in this process (the host's
  in-process path, :mod:`providers.host.inprocess`, as the background process runs it:
  brought up, configured, asked) against the same provider's first Contribute as a
  plugin process; the median of ``--starts`` fresh starts each;
- warm: a turn where nothing changed, once its watcher is in place: in this process
  against a no-op call through the same path (a provider that answers nothing), and as a
  plugin process against a bare gRPC round trip.

The imports (the background process's start) are in ``bench_bridge.py``'s first hook.

    python benchmarks/bench_inprocess.py [--files 10000] [--starts 5] [--turns 200]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_git_status import work_in_progress
from benchmarks.floor import BarePlugin, median_seconds, row
from benchmarks.provider_process import SETTLED_S, TimedProvider
from benchmarks.repos import generate
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.core.budget import TokenCounter
from providers.core.request import Turn
from providers.core.types import Capabilities, Contribution, Identity, Stability
from providers.host.bringup import configured
from providers.host.chain import Slot
from providers.host.inprocess import InProcessPlugin
from providers.registry import PROVIDERS

BUDGET = 2000


class NoOpProvider:
    """The in-process floor: a provider that answers nothing, at once."""

    def identity(self) -> Identity:
        return Identity("noop", "0.0.0", "benchmarks/bench_inprocess.py")

    def capabilities(self) -> Capabilities:
        return Capabilities(default_token_budget=100, stability=Stability.DYNAMIC, config_schema=())

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        return Contribution()


def request(repo: Path) -> context_pb2.ContextRequest:
    return context_pb2.ContextRequest(
        token_budget=BUDGET,
        working_directory=str(repo),
        model_target=model_pb2.ModelTarget(id="bench-model"),
        session_id="bench",
    )


def here(factory: str, name: str) -> Slot:
    """A provider started in this process as the background process starts it."""
    return configured(InProcessPlugin.start(factory, local_name=name), name, {})


def timed(slot: Slot, repo: Path) -> float:
    started = time.perf_counter()
    slot.plugin.stub.Contribute(request(repo), timeout=60)
    return time.perf_counter() - started


def settle(call: Any, limit: float = 60.0) -> None:
    """Turns until three in a row answer warm (the watcher is in place)."""
    started = time.perf_counter()
    fast = 0
    while time.perf_counter() - started < limit and fast < 3:
        seconds = call()
        fast = fast + 1 if seconds < SETTLED_S else 0
        time.sleep(0.1)


def cold_here(factory: str, name: str, repo: Path, starts: int) -> float:
    samples = []
    for _ in range(starts):
        slot = here(factory, name)
        try:
            samples.append(timed(slot, repo))
        finally:
            slot.plugin.close()
    return statistics.median(samples)


def cold_plugin(published: str, repo: Path, starts: int) -> float:
    samples = []
    for _ in range(starts):
        provider = TimedProvider(published)
        try:
            samples.append(provider.contribute(request(repo))[0])
        finally:
            provider.close()
    return statistics.median(samples)


def warm_here(factory: str, name: str, repo: Path, turns: int) -> float:
    slot = here(factory, name)
    try:
        settle(lambda: timed(slot, repo))
        return median_seconds(lambda: timed(slot, repo), turns)
    finally:
        slot.plugin.close()


def warm_plugin(published: str, repo: Path, turns: int) -> float:
    provider = TimedProvider(published)
    try:
        settle(lambda: provider.contribute(request(repo))[0])
        return median_seconds(lambda: provider.contribute(request(repo)), turns)
    finally:
        provider.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-inprocess-"))
    bare = BarePlugin()
    noop = here(f"{__name__}:NoOpProvider", "noop")
    try:
        repo = generate(scratch / "repo", args.files)
        work_in_progress(repo)
        ms = 1000.0
        print(f"-- {args.files:,} files, in the background process's path vs a plugin process")
        for entry in PROVIDERS:
            name = entry.package
            cold_in = cold_here(entry.factory, name, repo, args.starts)
            cold_out = cold_plugin(entry.published, repo, args.starts)
            floor_in = median_seconds(lambda: timed(noop, repo), args.turns)
            warm_in = warm_here(entry.factory, name, repo, args.turns)
            floor_out = median_seconds(bare.round_trip, args.turns)
            warm_out = warm_plugin(entry.published, repo, args.turns)
            print(row(f"{name}: cold, here vs as a plugin", cold_in * ms, cold_out * ms, 1.0))
            print(row(f"{name}: warm here vs a no-op call here", warm_in * ms, floor_in * ms, 2.0))
            print(row(f"{name}: warm plugin vs round trip", warm_out * ms, floor_out * ms, 2.0))
    finally:
        noop.plugin.close()
        bare.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
