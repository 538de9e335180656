"""The per-repository background process: ``python -m providers.clients.daemon ROOT``.

Hooks are short-lived; the providers' caches, watchers and history miner, and each
session's memory, must outlive them. So the first hook in a repository starts this
process (detached), and every later hook of every session there talks to it over a
Unix socket (:mod:`providers.clients.places`, :mod:`providers.clients.wire`).

- One per repository: it holds an exclusive ``flock`` on ``<key>.lock`` for its whole
  life; a second one started meanwhile waits for the lock, or leaves at once when the
  socket answers. A socket file left by a killed process is removed by the next owner.
- It binds the socket first, then brings the providers up (``agent.hcl``'s, or the four
  defaults), all at once, through ``providers.host``; a hook that arrives meanwhile
  waits for them (within its own bound). Ours run in this process
  (``host.inprocess``: the same calls and checks as a plugin's); a provider of another
  source runs as a plugin process, at most :data:`MAX_PLUGIN_PROCESSES` of them.
- It exits when idle for ``CONTEXT_PROVIDERS_IDLE_S`` seconds (1800), at a
  ``SessionEnd`` that leaves no session it knows, when the repository is gone, on
  ``stop`` and on SIGTERM: socket removed first (a new hook starts a new process), then
  the providers stopped. Its plugins notice within 0.1 s if it is killed. A ``status``
  request (``doctor``) is not activity: it leaves the idle clock running.

Everything it has to say goes to the log (``places.log_path()``).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from providers.clients import hook, places, wire
from providers.clients.answers import Bridge
from providers.clients.deltas import KINDS, Kind
from providers.clients.memory import MemoryStore
from providers.core.identity import package_version
from providers.host.agent_config import AgentConfig, ConfigError, default_agent_config
from providers.host.bringup import Plugins, bring_up_all
from providers.host.repo_config import Resolved, resolve
from providers.host.trust import TrustStore
from providers.repository.gitexec import kill_all

log = logging.getLogger("providers.clients")

ENV_IDLE = "CONTEXT_PROVIDERS_IDLE_S"
IDLE_S = 1800.0
LOCK_WAIT_S = 15.0
"""How long a new process waits for the one before it to finish stopping."""
READY_WAIT_S = 60.0
"""The longest a request waits for the providers to come up."""
ACK_WAIT_S = 2.0
REQUEST_WAIT_S = 5.0
MAX_PLUGIN_PROCESSES = 4
"""Plugin processes one repository may keep: our own providers run in this process
(``host.inprocess``), each provider of another source in a process of its own; past
this many they are refused (a warning in the log and in ``doctor``)."""
LOG_MAX_BYTES = 1 << 20


def idle_seconds() -> float:
    """``CONTEXT_PROVIDERS_IDLE_S``: above 0, below a day; else 1800."""
    return hook.env_seconds(ENV_IDLE, IDLE_S, most=86_400)


def repository_config(root: Path) -> Resolved:
    """The providers this repository gets (:func:`providers.host.repo_config.resolve`,
    gated by the user's trust); an ``agent.hcl`` that does not load gives the four
    defaults, and says why."""
    try:
        return resolve(root, gate=True)
    except ConfigError as error:
        verdict = TrustStore().verdict(root)
        return Resolved(
            default_agent_config(root),
            (f"{error}; using the four default providers",),
            verdict,
        )


def kinds_of(config: AgentConfig, stabilities: Mapping[str, str]) -> dict[str, Kind]:
    """Local name -> kind: ours by their source, any other by its stability."""
    kinds: dict[str, Kind] = {}
    for declaration in config.providers:
        entry = declaration.ours
        if entry is not None:
            kinds[declaration.local_name] = KINDS[entry.package]
        else:
            static = stabilities.get(declaration.local_name) == "static"
            kinds[declaration.local_name] = "static" if static else "dynamic"
    return kinds


class Daemon:
    """The process's state: the socket, the providers, the clock of the last request."""

    def __init__(self, root: Path, directory: str) -> None:
        self.root = root
        self.path = places.socket_path(directory, str(root))
        self.lock_path = places.lock_path(directory, str(root))
        self.idle = idle_seconds()
        self.started = time.time()
        self.last_request = time.monotonic()
        self.active = 0
        self.stopping = threading.Event()
        self.ready = threading.Event()
        self.bridge: Bridge | None = None
        self.session = Plugins()
        self.warnings: list[str] = []
        self.trust = ""
        """The repository's trust state (``providers.host.trust.State``'s value)."""
        self._state = threading.Lock()
        self._lock_fd = -1
        self._server: socket.socket | None = None

    # -- one owner per repository --------------------------------------------------

    def claim(self) -> bool:
        """Take the lock and bind the socket; False when another process serves."""
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if _answers(self.path) or time.monotonic() > deadline:
                    os.close(fd)
                    return False
                time.sleep(0.05)
        self._lock_fd = fd
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # left by a process that was killed: we hold the lock
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            server.bind(self.path)
        finally:
            os.umask(old)
        server.listen(64)
        server.settimeout(0.5)
        self._server = server
        return True

    # -- bring-up ----------------------------------------------------------------------

    def bring_up(self) -> None:
        started = time.monotonic()
        try:
            resolved = repository_config(self.root)
            config = resolved.config
            self.warnings.extend(resolved.notes)
            self.trust = resolved.verdict.state.value if resolved.verdict else ""
            if resolved.served:
                bring_up_all(
                    config,
                    self.session,
                    log_sink=log.info,
                    concurrently=True,
                    in_process=True,
                    max_processes=MAX_PLUGIN_PROCESSES,
                )
            self.warnings.extend(self.session.warnings)
            for warning in self.warnings:
                log.warning("%s", warning)
            stabilities = {s.name: s.stability for s in self.session.slots}
            store = MemoryStore(Path(places.memory_dir(str(self.root))))
            store.prune()
            self.bridge = Bridge(
                self.root, self.session.slots, kinds_of(config, stabilities), store
            )
            names = ", ".join(s.name for s in self.session.slots)
            up = time.monotonic() - started
            log.info("serving %s: %s (up in %.2f s)", self.root, names, up)
        except Exception:
            log.exception("bring-up failed")
        finally:
            self.ready.set()

    # -- serving -----------------------------------------------------------------------

    def serve(self) -> None:
        assert self._server is not None
        threading.Thread(target=self.bring_up, name="bring-up", daemon=True).start()
        while not self.stopping.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                self._check_idle()
                continue
            except OSError:
                if self.stopping.is_set():
                    break
                raise
            with self._state:
                self.active += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _check_idle(self) -> None:
        with self._state:
            quiet = time.monotonic() - self.last_request
            busy = self.active > 0
        if not busy and quiet > self.idle:
            log.info("idle for %.0f s: stopping", quiet)
            self.stopping.set()
        elif not self.root.is_dir():
            log.info("%s is gone: stopping", self.root)
            self.stopping.set()

    def _handle(self, conn: socket.socket) -> None:
        verb = ""
        try:
            with conn:
                reader = wire.Reader(conn)
                verb, args, body = reader.message(time.monotonic() + REQUEST_WAIT_S)
                self._answer(conn, reader, verb, args, body)
        except Exception as error:  # one bad request never stops the process
            log.warning("request failed: %s: %s", type(error).__name__, error)
        finally:
            with self._state:
                self.active -= 1
                if verb != "status":  # asking how idle we are is not being busy
                    self.last_request = time.monotonic()

    def _answer(
        self,
        conn: socket.socket,
        reader: wire.Reader,
        verb: str,
        args: Sequence[str],
        body: bytes,
    ) -> None:
        received = time.monotonic()  # the hook's wait= counts from here
        if verb == "status":
            conn.sendall(wire.encode("ok", json.dumps(self.status()).encode()))
            return
        if verb == "stop":
            conn.sendall(wire.encode("ok"))
            self.stopping.set()
            return
        if not self.ready.wait(READY_WAIT_S) or self.bridge is None:
            conn.sendall(wire.encode("error", b"the providers did not come up (see the log)"))
            return
        if verb == "section":
            try:
                answer = self.bridge.section(json.loads(body))
            except (ValueError, TypeError) as error:
                conn.sendall(wire.encode("error", str(error).encode()))
                return
            conn.sendall(wire.encode("ok", json.dumps(answer).encode()))
            return
        if verb != "hook" or not args:
            conn.sendall(wire.encode("error", f"unknown request {verb!r}".encode()))
            return
        cwd, _, data = body.partition(b"\0")
        try:
            reply = self.bridge.hook(args[0], os.fsdecode(cwd), data, args[1:], received)
        except (ValueError, TypeError) as error:
            conn.sendall(wire.encode("error", f"{args[0]}: {error}".encode()))
            return
        if reply.elsewhere:
            conn.sendall(wire.encode("elsewhere"))
            return
        acked = ""
        try:
            conn.sendall(wire.encode("ok", reply.output))
            if reply.settle is not None:
                with contextlib.suppress(OSError, wire.WireError):
                    acked, _, _ = reader.message(time.monotonic() + ACK_WAIT_S)
        finally:
            if reply.settle is not None:
                reply.settle(acked == "ack")
                if acked != "ack":
                    log.info("%s hook did not confirm its answer: kept for the next event", args[0])
        if reply.ended and self.bridge.store.live() == 0:
            log.info("the last session ended: stopping")
            self.stopping.set()

    def status(self) -> dict[str, Any]:
        return {
            "root": str(self.root),
            "pid": os.getpid(),
            "version": package_version(),
            "uptime_s": round(time.time() - self.started, 1),
            "idle_s": round(time.monotonic() - self.last_request, 1),
            "idle_limit_s": self.idle,
            "ready": self.ready.is_set(),
            "providers": [s.name for s in self.session.slots],
            "trust": self.trust,
            "plugin_processes": {  # ours run here: only a plugin process has one
                s.name: process.pid
                for s in self.session.slots
                if (process := getattr(s.plugin, "process", None)) is not None
            },
            "sessions": self.bridge.store.live() if self.bridge else 0,
            "warnings": list(self.warnings),
        }

    # -- the end -----------------------------------------------------------------------

    def close(self) -> None:
        """Socket first (the next hook starts a new process, which waits for our lock),
        then the providers, then the lock."""
        if self._server is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self._server.close()
        self.ready.wait(READY_WAIT_S)
        self.session.close()
        kill_all()  # a git run a provider in this process still waits for: not past us
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
        log.info("stopped")


def _answers(path: str) -> bool:
    try:
        wire.call(path, "status", timeout=1.0)
    except OSError:
        return False
    return True


def _origin(record: logging.LogRecord) -> bool:
    """Say where a line of the providers comes from (they log here, in this process, as
    ``providers.<package>.*``): ``repo_conventions: ...``, ``rules: ...``."""
    parts = record.name.split(".")
    inside = len(parts) > 1 and parts[0] == "providers" and parts[1] != "clients"
    record.origin = f"{parts[1]}: " if inside else ""
    return True


def _log_to_file() -> None:
    path = Path(places.log_path())
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.addFilter(_origin)
    handler.setFormatter(
        logging.Formatter(
            f"%(asctime)s daemon[{os.getpid()}] %(levelname)s %(origin)s%(message)s",
            "%Y-%m-%dT%H:%M:%S",
        )
    )
    root_logger = logging.getLogger()
    root_logger.addHandler(handler)
    root_logger.setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m providers.clients.daemon ROOT\n")
        return 2
    _log_to_file()
    root = Path(args[0]).resolve()
    try:
        directory, passed_over = places.find_runtime_dir(create=True)
        daemon = Daemon(root, directory)
        if not daemon.claim():
            return 0
        for problem in passed_over:  # logged with the others at bring-up; doctor shows it
            daemon.warnings.append(f"socket directory passed over: {problem}; using {directory}")
    except OSError as error:
        log.error("cannot serve %s: %s", root, error)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: daemon.stopping.set())
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        daemon.serve()
    except Exception:
        log.exception("serving %s failed", root)
    finally:
        daemon.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
