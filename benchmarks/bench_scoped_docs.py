"""Issue 5's numbers: the scoped docs provider with 1,000 rules and 10,000 paths seen.

In one run: a bare gRPC round trip (the floor), then on a session that has
already seen 10,000 paths, a turn that adds one new path and a turn that adds
none, each as a ratio against the floor (target: under 2x for both).

    python benchmarks/bench_scoped_docs.py [--rules 1000] [--paths 10000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from benchmarks.floor import BarePlugin, median_seconds, row
from benchmarks.provider_process import TimedProvider
from benchmarks.repos import git
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.kernel.v1 import kernel_pb2, kernel_pb2_grpc
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.goplugin.convert import text_block


def make_repo(root: Path, rules: int, paths: int) -> list[str]:
    """``rules`` Cursor rules, each scoped to one package; ``paths`` source files."""
    rule_dir = root / ".cursor" / "rules"
    rule_dir.mkdir(parents=True)
    for i in range(rules):
        (rule_dir / f"pkg{i}.mdc").write_text(
            f'---\ndescription: package {i}\nglobs: "src/pkg{i}/**"\nalwaysApply: false\n---\n'
            f"# Package {i}\n\nRules for package {i}.\n"
        )
    files = []
    for n in range(paths):
        rel = f"src/pkg{n % (rules * 2)}/m{n}.py"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
        files.append(rel)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")
    return files


def count_tokens_call(
    provider: TimedProvider, reply: context_pb2.ContextContribution
) -> Callable[[], None]:
    """One CountTokens round trip to the kernel's callback server, for a text as long as
    the provider's answer: what a turn with a new text must ask the kernel (the kernel's
    protocol, not the provider's work)."""
    channel = grpc.insecure_channel(f"unix:{provider.plugin.callback_server.address}")
    stub = kernel_pb2_grpc.KernelCallbackServiceStub(channel)
    text = "".join(s.content[0].text.text for s in reply.sections) or "x"
    request = kernel_pb2.CountTokensRequest(
        content=[text_block(text)], model_ref=model_pb2.ModelRef(id="bench-model")
    )

    def call() -> None:
        stub.CountTokens(request, timeout=10)

    return call


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--paths", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=50)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-docs-"))
    repo = scratch / "repo"
    files = make_repo(repo, args.rules, args.paths)
    bare = BarePlugin()
    provider = TimedProvider("scoped-docs")
    try:
        rt = median_seconds(bare.round_trip, 200)
        seen = list(files)
        full = provider.request(repo, 4000, seen)
        payload = full.ByteSize()
        cold, reply = provider.contribute(full)
        rt_payload = median_seconds(bare.same_bytes_round_trip(full, reply), 50)
        provider.settle(full, rt_payload)
        none_new = median_seconds(lambda: provider.contribute(full), args.turns)
        growing = []
        for i in range(args.turns):
            seen.append(f"src/pkg{(i * 7) % (args.rules * 2)}/new{i}.py")
            growing.append(provider.request(repo, 4000, list(seen)))
        counts_before = provider.plugin.callbacks.stats.count_tokens_calls
        one_new = [provider.contribute(request)[0] for request in growing]
        callbacks = provider.plugin.callbacks.stats.count_tokens_calls - counts_before
        count_rt = median_seconds(count_tokens_call(provider, reply), 50)
    finally:
        provider.close()
        bare.close()
        shutil.rmtree(scratch, ignore_errors=True)
    ms = 1000.0
    size = f"request {payload / 1024:.0f} KiB"
    print(f"{args.rules:,} rules, {args.paths:,} paths already seen ({size})")
    one = statistics.median(one_new) * ms
    print(row("first Contribute with all paths", cold * ms, rt * ms))
    print(row("turn adding no path vs bare round trip", none_new * ms, rt * ms, 2.0))
    print(row("turn adding one path vs bare round trip", one, rt * ms, 2.0))
    print(row("no-op round trip with the same bytes", rt_payload * ms, rt * ms))
    print(row("turn adding no path vs that", none_new * ms, rt_payload * ms, 2.0))
    print(row("turn adding one path vs that", one, rt_payload * ms, 2.0))
    per_turn = callbacks / args.turns
    with_counts = (rt_payload + per_turn * count_rt) * ms
    each = f"(each {count_rt * ms:.3f} ms)"
    print(f"{'CountTokens callbacks per one-path turn':<42} {per_turn:9.2f}  {each}")
    print(row("turn adding one path vs that + callbacks", one, with_counts, 1.5))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
