"""Issue 21's numbers: the hooks bridge, as ratios against floors measured in the same run.

1. A warm hook call (a prompt where nothing changed, the background process running)
   against a bare ``python3 -c pass`` plus one Unix-socket round trip (target 1.5x);
   and ``setup``'s command (the launcher) against the former one (``python -S hook.py``),
   run from an installed (non-editable) environment to compare what users get.
2. The first hook of a session (SessionStart) against the slowest of the four
   standalone commands (``context-file-tree --repo R`` ...) on the same repository, at
   1k, 10k and 100k files (target 1.3x): cold (no background process yet: it starts
   and brings the providers up) and warm (a new session of a running process).
3. The tokens a scripted 20-prompt session with reads and edits adds to the transcript,
   against the sum of the distinct section texts it had to see once, without their
   framing (target 1.0x: what is over is the labels and separators), and what sending
   each turn's whole context would have cost. ``--only tokens`` runs this part alone.

    python benchmarks/bench_bridge.py [--sizes 1000 10000 100000] [--repeat 5] [--only tokens]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from benchmarks.floor import row
from benchmarks.repos import generate, git
from providers.clients import places, setup, wire
from providers.clients.deltas import tokens
from providers.registry import PROVIDERS

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "providers" / "clients" / "hook.py"
SAMPLE = ROOT / "sample_repo"
HEADER = re.compile(r"^--- (.*) ---$", re.M)
"""The line the hooks open a section with (``--- LABEL ---``, or ``--- LABEL (updated) ---``
for one sent again); its text runs to the next such line."""


def bodies(text: str) -> list[str]:
    """The section texts of one hook's output, without their framing."""
    heads = list(HEADER.finditer(text))
    ends = [h.start() for h in heads[1:]] + [len(text)] * bool(heads)
    return [text[h.end() + 1 : end].rstrip("\n") for h, end in zip(heads, ends, strict=True)]


class Env:
    """Hook runs in an environment of their own (sockets, log, idle time)."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="bb", dir="/tmp"))
        (self.base / "run").mkdir(mode=0o700)
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": os.environ.get("HOME", str(self.base)),
            "XDG_RUNTIME_DIR": str(self.base / "run"),
            "XDG_STATE_HOME": str(self.base / "state"),
            "CONTEXT_PROVIDERS_IDLE_S": "600",
            "CONTEXT_PROVIDERS_HOOK_WAIT_S": "30",
            "CONTEXT_PROVIDERS_HOOK_START_S": "300",
        }

    def hook(
        self, client: str, payload: dict[str, Any], cwd: Path, command: list[str] | None = None
    ) -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(
            [*(command or [sys.executable, "-S", "-E", "-s", str(HOOK)]), client],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=cwd,
            env=self.env,
            check=True,
        )
        seconds = time.perf_counter() - started
        out = done.stdout.decode()
        text = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""
        return seconds, text

    def stop(self, root: Path) -> None:
        path = places.socket_path(str(self.base / "run" / places.APP), str(root))
        try:
            _verb, _, body = wire.call(path, "status", timeout=5)
            pid = int(json.loads(body)["pid"])
            wire.call(path, "stop", timeout=5)
        except OSError:
            return
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        for path in (self.base / "run" / places.APP).glob("*.sock"):
            with contextlib.suppress(OSError):
                wire.call(str(path), "stop", timeout=5)
        time.sleep(1)
        shutil.rmtree(self.base, ignore_errors=True)


def event(name: str, session: str, cwd: Path, **extra: Any) -> dict[str, Any]:
    return {"hook_event_name": name, "session_id": session, "cwd": str(cwd), **extra}


def median(samples: list[float]) -> float:
    return statistics.median(samples)


# -- 1. the warm hook ---------------------------------------------------------------


def socket_round_trip(repeat: int) -> float:
    """One connect, request and answer on a Unix socket to a thread that echoes."""
    directory = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    path = os.path.join(directory, "s")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(conn.recv(4096))

    threading.Thread(target=serve, daemon=True).start()
    samples = []
    for _ in range(repeat + 3):
        started = time.perf_counter()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
        client.sendall(b"x" * 300)
        client.recv(4096)
        client.close()
        samples.append(time.perf_counter() - started)
    server.close()
    shutil.rmtree(directory, ignore_errors=True)
    return median(samples[3:])


def python_pass(repeat: int, *flags: str) -> float:
    """A bare ``python3 -c pass``: the base interpreter, outside any virtual environment
    (with ``flags``: ``-I -S``, the cheapest start there is, a stricter floor)."""
    python = getattr(sys, "_base_executable", sys.executable)
    samples = []
    for _ in range(repeat + 2):
        started = time.perf_counter()
        subprocess.run([python, *flags, "-c", "pass"], check=True)
        samples.append(time.perf_counter() - started)
    return median(samples[2:])


LAUNCHED = [
    "/bin/sh",
    "-c",
    setup.GUARD,
    str(setup.installed_launcher(setup.LAUNCHER)),
]
"""The hook as ``setup`` registers it: the fail-open guard around the launcher."""
FORMER = ["/bin/sh", "-c", setup.OLD_GUARD, sys.executable, "-S", "-E", "-s", str(HOOK)]
"""The hook as ``setup`` registered it before the launcher (issue 30)."""


def warm_hook(env: Env, repo: Path, repeat: int, *commands: list[str] | None) -> list[float]:
    """The median warm hook of each command (None: ``python -S -E -s hook.py``), their
    runs interleaved so that the machine's drift weighs on each alike."""
    env.hook("claude", event("SessionStart", "warm", repo, source="startup"), repo)
    samples: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat + 3):
        for index, command in enumerate(commands):
            seconds, text = env.hook(
                "claude", event("UserPromptSubmit", "warm", repo, prompt="x"), repo, command
            )
            assert text == "", text
            samples[index].append(seconds)
    return [median(each[3:]) for each in samples]


# -- 2. the first hook of a session -------------------------------------------------


def standalone(repo: Path, repeat: int) -> tuple[str, float]:
    """The slowest of the four standalone commands (median of ``repeat`` each)."""
    bin_dir = Path(sys.executable).parent
    worst = ("", 0.0)
    for entry in PROVIDERS:
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run(
                [str(bin_dir / entry.script), "--repo", str(repo)],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            samples.append(time.perf_counter() - started)
        if median(samples) > worst[1]:
            worst = (entry.script, median(samples))
    return worst


def first_hooks(env: Env, repo: Path, repeat: int) -> tuple[float, float]:
    cold, warm = [], []
    for n in range(repeat):
        env.stop(repo)
        payload = event("SessionStart", f"cold-{n}", repo, source="startup")
        seconds, text = env.hook("claude", payload, repo)
        assert "file tree" in text, text[:200]
        cold.append(seconds)
        payload = event("SessionStart", f"warm-{n}", repo, source="startup")
        seconds, text = env.hook("claude", payload, repo)
        assert "file tree" in text
        warm.append(seconds)
    env.stop(repo)
    return median(cold), median(warm)


# -- 3. tokens over a session -------------------------------------------------------

READS = [
    "src/tasklane/auth/login.py",
    "src/tasklane/api/routes.py",
    "src/tasklane/storage/db.py",
    "tests/test_auth.py",
    "src/tasklane/auth/tokens.py",
    "src/tasklane/cli.py",
    "tests/test_api.py",
    "src/tasklane/storage/queue.py",
    "docs/deploy.md",
    "scripts/release.sh",
]


def session_tokens(env: Env, work: Path) -> tuple[int, int, int, int]:
    """(tokens added, tokens of the distinct texts, hook calls that added nothing, tokens a
    kernel-like resend of every turn's context would have cost)."""
    repo = work / "sample"
    shutil.copytree(SAMPLE, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "sample")
    added: list[str] = []
    quiet = 0
    resend = 0
    last_full = ""

    def call(payload: dict[str, Any]) -> None:
        nonlocal quiet
        _, text = env.hook("claude", payload, repo)
        added.append(text)
        quiet += not text

    call(event("SessionStart", "s20", repo, source="startup"))
    last_full = added[-1]
    for turn in range(20):
        call(event("UserPromptSubmit", "s20", repo, prompt=f"turn {turn}"))
        read = READS[turn % len(READS)]
        call(
            event(
                "PostToolUse",
                "s20",
                repo,
                tool_name="Read",
                tool_input={"file_path": str(repo / read)},
            )
        )
        if turn % 4 == 1:  # an edit
            with (repo / read).open("a", encoding="utf-8") as handle:
                handle.write(f"# edited on turn {turn}\n")
            time.sleep(0.3)
        if turn % 7 == 3:  # a new file
            (repo / "src" / f"new_{turn}.py").write_text("x = 1\n")
            time.sleep(0.3)
        resend += tokens(last_full)
    env.stop(repo)
    total = sum(tokens(t) for t in added)
    distinct = {body for t in added for body in bodies(t)}
    return total, sum(tokens(b) for b in distinct), quiet, resend


def report_tokens(env: Env, work: Path) -> None:
    print("3. tokens over a scripted 20-prompt session with reads and edits")
    total, distinct, quiet, resend = session_tokens(env, work)
    print(f"  added {total:,} tokens; distinct section texts {distinct:,}: {total / distinct:.2f}x")
    print(f"  hook calls that added nothing: {quiet} of 41")
    print(f"  resending the start context every turn would add {resend:,} tokens")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=["tokens"], help="run part 3 alone")
    args = parser.parse_args()
    env = Env()
    work = Path(tempfile.mkdtemp(prefix="bench-bridge-"))
    try:
        if args.only == "tokens":
            report_tokens(env, work)
            return 0
        small = generate(work / "warm", 1000)
        print("1. warm hook (a prompt where nothing changed)")
        trip = socket_round_trip(args.repeat * 4)
        floor = python_pass(args.repeat * 4) + trip
        strict = python_pass(args.repeat * 4, "-I", "-S") + trip
        hook, bare = warm_hook(env, small, args.repeat * 4, LAUNCHED, FORMER)
        print(row("  hook vs python3 -c pass + socket RTT", hook * 1e3, floor * 1e3, 1.5))
        print(row("  hook vs python3 -I -S -c pass + RTT", hook * 1e3, strict * 1e3, 1.5))
        print(row("  setup's command vs the former one", hook * 1e3, bare * 1e3, 1.1))
        env.stop(small)

        print("2. first hook of a session vs the slowest standalone command")
        for size in args.sizes:
            repo = generate(work / f"r{size}", size)
            name, slowest = standalone(repo, max(3, args.repeat // 2))
            cold, warm = first_hooks(env, repo, max(3, args.repeat // 2))
            print(f"  {size:,} files: slowest standalone is {name}")
            print(row(f"  {size:>7,} cold (process starts)", cold * 1e3, slowest * 1e3, 1.3))
            print(row(f"  {size:>7,} warm (new session)", warm * 1e3, slowest * 1e3, 1.3))
            shutil.rmtree(repo, ignore_errors=True)

        report_tokens(env, work)
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
