"""Shared measurement helpers: every figure is reported as a ratio against a floor
measured in the same run, because these machines are noisy."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from providers._gen.pluggableharness.context.v1 import context_pb2, context_pb2_grpc
from providers.host.launcher import parse_handshake
from providers.host.plugin_start import plugin_environment

HERE = Path(__file__).resolve().parent


def median_seconds(call: Callable[[], object], repeat: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class BarePlugin:
    """The floor process: spawn -> handshake time, RSS, and a bare gRPC round trip."""

    def __init__(self) -> None:
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "bare_plugin.py")],
            env=plugin_environment("bare"),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode()
        self.launch_seconds = time.perf_counter() - started
        handshake = parse_handshake(line)
        self.channel = grpc.insecure_channel(f"unix:{handshake.address}")
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.context = context_pb2_grpc.ContextServiceStub(self.channel)

    def round_trip(self) -> None:
        self.health.Check(health_pb2.HealthCheckRequest(service="plugin"), timeout=5)

    def same_bytes_round_trip(
        self,
        request: context_pb2.ContextRequest,
        reply: context_pb2.ContextContribution,
    ) -> Callable[[], None]:
        """A Contribute that does no work but carries a real turn's bytes both ways:
        ``request`` up, and ``reply``'s sections back."""
        echo = context_pb2.ContextRequest()
        echo.CopyFrom(request)
        echo.prior_sections.extend(reply.sections)

        def call() -> None:
            self.context.Contribute(echo, timeout=30)

        return call

    def close(self) -> None:
        self.channel.close()
        self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def ratio(value: float, floor: float) -> str:
    return f"{value / floor:5.2f}x" if floor > 0 else "  n/a"


def row(name: str, value_ms: float, floor_ms: float, target: float | None = None) -> str:
    verdict = ""
    if target is not None:
        verdict = "  ok" if value_ms <= floor_ms * target else f"  OVER {target}x"
    shown = ratio(value_ms, floor_ms)
    return f"{name:<42} {value_ms:9.3f} ms  floor {floor_ms:9.3f} ms  {shown}{verdict}"
