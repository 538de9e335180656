"""Issue 27 item 5's numbers: what the bridge's background process of one repository holds
once its watchers are set up, against floors measured in the same run.

A generated repository of ``--files`` tracked files (a few hundred directories) with a
gitignored ``node_modules`` of ``--ignored-dirs`` directories (one file each). One
SessionStart hook is sent through the real hook command, as a client does
(``providers/clients/hook.py`` starts the background process), in an environment of
its own (``XDG_RUNTIME_DIR``, ``XDG_STATE_HOME``, ``XDG_CACHE_HOME`` and ``HOME`` under
a temporary directory). After ``--settle`` seconds the process tree is sampled until
its inotify watches stop changing; then, for the background process and its children:
processes, total RSS, inotify instances (``anon_inode:inotify`` descriptors) and
watches (``inotify wd:`` lines in ``/proc/PID/fdinfo``).

The same is measured for the four providers run in one process (``--in-process``
figures: what the background process holds once the providers run inside it, not as
plugin processes): each is loaded as the registry loads it, answers one turn, and is
told the answer went out, so its watcher starts.

Floors: a bare ``python -c`` process's RSS (the same interpreter), the directories a
watch needs at least (the repository's outside what git ignores, ``.git`` but its
objects and logs), and ``git ls-files``'s time on the repository.

    python benchmarks/bench_bridge_resources.py [--checkout DIR] [--files 10000]
        [--ignored-dirs 6000] [--settle 3]

``--checkout``: the code to run (its ``.venv/bin/python`` and hook), default this one;
point it at another checkout for a before/after comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.proc import rss_kib, tree
from benchmarks.repos import generate, git, time_command

ROOT = Path(__file__).resolve().parent.parent
DAEMON = b"providers.clients.daemon"
GIT_NOISE = ("objects", "logs")


def build_repo(base: Path, files: int, ignored_dirs: int) -> Path:
    """``files`` tracked files, and ``ignored_dirs`` directories git ignores."""
    root = generate(base / "repo", files)
    with (root / ".gitignore").open("a") as handle:
        handle.write("node_modules/\n")
    per = 100
    for i in range(ignored_dirs):
        folder = root / "node_modules" / f"pkg{i // per}" / f"lib{i % per}"
        folder.mkdir(parents=True)
        (folder / "index.js").write_text("module.exports = 1;\n")
    git(root, "add", ".gitignore")
    git(root, "commit", "-q", "-m", "ignore node_modules")
    return root.resolve()


def directories(root: Path) -> tuple[int, int]:
    """(directories a watch needs, directories git ignores) under ``root``."""
    needed = ignored = 0
    for directory, subdirs, _ in os.walk(root):
        rel = os.path.relpath(directory, root)
        if rel == "node_modules" or rel.startswith("node_modules" + os.sep):
            ignored += 1
            continue
        needed += 1
        if os.path.basename(directory) == ".git":
            subdirs[:] = [d for d in subdirs if d not in GIT_NOISE]
    return needed, ignored


def environment(base: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for key, name in (
        ("HOME", "home"),
        ("XDG_RUNTIME_DIR", "run"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        path = base / name
        path.mkdir(mode=0o700, exist_ok=True)
        env[key] = str(path)
    env["CONTEXT_PROVIDERS_IDLE_S"] = "600"
    env["CONTEXT_PROVIDERS_HOOK_START_S"] = "120"
    env["CONTEXT_PROVIDERS_HOOK_WAIT_S"] = "30"
    return env


def session_start(python: str, hook: Path, repo: Path, env: dict[str, str]) -> float:
    payload = {
        "hook_event_name": "SessionStart",
        "session_id": "bench",
        "cwd": str(repo),
        "transcript_path": str(repo / ".transcript.jsonl"),
        "source": "startup",
    }
    started = time.perf_counter()
    subprocess.run(
        [python, "-S", "-E", "-s", str(hook), "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=repo,
        env=env,
        check=True,
        timeout=300,
    )
    return time.perf_counter() - started


def daemon_pid(repo: Path, deadline: float) -> int:
    needle = os.fsencode(str(repo))
    while time.monotonic() < deadline:
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if DAEMON in cmdline and needle in cmdline:
                return int(entry)
        time.sleep(0.05)
    raise SystemExit("the background process did not start")


def inotify(pid: int) -> tuple[int, int]:
    """(inotify instances, inotify watches) of process ``pid``."""
    instances = watches = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0, 0
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != "anon_inode:inotify":
                continue
            text = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        instances += 1
        watches += sum(line.startswith("inotify wd:") for line in text.splitlines())
    return instances, watches


def name(pid: int) -> str:
    """What process ``pid`` runs: the module or script after the interpreter, else its name."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    words = [os.fsdecode(a) for a in args if a]
    rest = [w for w in words[1:] if w not in ("-P", "-S", "-E", "-s", "-I", "-u")]
    if len(rest) > 1 and rest[0] == "-m":
        return rest[1]
    if rest and rest[0] == "-c":
        return "python -c"
    return " ".join(os.path.basename(w) for w in [words[0], *rest[:1]]) if words else "?"


def sample(pid: int) -> dict[str, Any]:
    named = {p: name(p) for p in tree(pid)}
    pids = [p for p, found in named.items() if found != "?"]  # "?": gone meanwhile (git)
    counts = [inotify(p) for p in pids]
    return {
        "names": sorted(named[p] for p in pids),
        "processes": len(pids),
        "rss_kib": sum(rss_kib(p) for p in pids),
        "instances": sum(c[0] for c in counts),
        "watches": sum(c[1] for c in counts),
    }


def settled(pid: int, settle: float, timeout: float = 120.0) -> dict[str, Any]:
    """The tree's figures once its watches held still for 1.5 s (after ``settle`` s)."""
    time.sleep(settle)
    deadline = time.monotonic() + timeout
    last = sample(pid)
    still = 0
    while still < 3 and time.monotonic() < deadline:
        time.sleep(0.5)
        now = sample(pid)
        still = still + 1 if now["watches"] == last["watches"] else 0
        last = now
    return last


IN_PROCESS = r"""
import sys, time
from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.registry import PROVIDERS, ProviderHandle

request = ContextRequest(2000, sys.argv[1], ModelTarget("m"), session_id="bench")
for entry in PROVIDERS:
    handle = ProviderHandle(entry.factory)
    contribute(handle.load_now(), request, FallbackCounter())
    if handle.answer_sent is not None:
        handle.answer_sent()
print("answered", flush=True)
time.sleep(600)
"""


def in_process(python: str, repo: Path, env: dict[str, str], settle: float) -> dict[str, Any]:
    """The four providers in one process, one turn each, their watchers started."""
    process = subprocess.Popen(
        [python, "-c", IN_PROCESS, str(repo)], env=env, cwd=repo, stdout=subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()
        return settled(process.pid, settle)
    finally:
        process.kill()
        process.wait()


def bare_rss(python: str) -> int:
    process = subprocess.Popen([python, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(1.0)
        return rss_kib(process.pid)
    finally:
        process.kill()
        process.wait()


def stop(pids: list[int]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                continue
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{p}").exists() for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--ignored-dirs", type=int, default=6_000)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    python = str(checkout / ".venv" / "bin" / "python")
    hook = checkout / "providers" / "clients" / "hook.py"
    base = Path(tempfile.mkdtemp(prefix="bres", dir="/tmp"))
    pids: list[int] = []
    try:
        repo = build_repo(base, args.files, args.ignored_dirs)
        needed, ignored = directories(repo)
        env = environment(base)
        hook_s = session_start(python, hook, repo, env)
        pid = daemon_pid(repo, time.monotonic() + 30)
        figures = settled(pid, args.settle)
        pids = tree(pid)
        stop(pids)
        together = in_process(python, repo, env, args.settle)
        floor = {
            "bare_python_rss_kib": bare_rss(python),
            "watch_dirs_needed": needed,
            "ignored_dirs": ignored,
            "git_ls_files_ms": round(time_command(repo, ["ls-files"]) * 1000, 1),
        }
    finally:
        stop(pids)
        shutil.rmtree(base, ignore_errors=True)
    result = {
        "checkout": str(checkout),
        "session_start_s": round(hook_s, 2),
        **figures,
        **{f"in_process_{key}": value for key, value in together.items()},
        **floor,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    bare = floor["bare_python_rss_kib"]
    print(f"checkout {checkout}: {args.files:,} files, {ignored:,} ignored directories")
    print(f"session start hook     {hook_s:8.2f} s")
    print(f"floor: bare python RSS {bare / 1024:8.1f} MiB")
    print(f"floor: dirs to watch   {needed:8,d} (outside what git ignores)")
    print(f"floor: git ls-files    {floor['git_ls_files_ms']:8.1f} ms")
    for title, found in (
        ("background process and its plugins", figures),
        ("in one process", together),
    ):
        print(f"{title}:")
        print(f"  processes            {found['processes']:8d} ({', '.join(found['names'])})")
        print(
            f"  total RSS            {found['rss_kib'] / 1024:8.1f} MiB "
            f"({found['rss_kib'] / bare:.1f}x a bare python)"
        )
        print(f"  inotify instances    {found['instances']:8d}")
        print(
            f"  inotify watches      {found['watches']:8d} "
            f"({found['watches'] / needed:.2f}x the directories to watch)"
        )


if __name__ == "__main__":
    main()
