"""One MCP session's view of the repository: what the MCP server asks the background
process, and the texts it answers with.

The MCP server (:mod:`providers.clients.mcp_server`) is started by the client in the
project's directory, one process per client session. It asks the same per-repository
background process as the hooks (``section`` messages, :mod:`providers.clients.wire`),
reaching or starting it through :func:`providers.clients.hook.connect`: one code path,
so caches and watchers are shared. Nothing here imports the MCP SDK.

- :meth:`McpSession.instructions`: the server's ``instructions``, read by the client once
  at start and put in front of every request. The first line says what the server offers
  (Codex with its default model keeps only that line); then the convention files and
  always-on rules the client does not load by itself, whole, within a budget.
- :meth:`McpSession.scoped_docs`: the docs and rules that apply to files, each given once
  per session (as the hooks do; a doc edited since is given again). The files asked
  about are the session's files touched: the file tree and git status centre on them.
- :meth:`McpSession.file_tree`, :meth:`McpSession.git_status`,
  :meth:`McpSession.conventions`: the section as it is now, at a budget.

Never in the way: when the background process cannot answer, a call raises
:class:`Unavailable` with a reason fit for the model, and the reason is logged where
the hooks log (``places.log_path()``).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from providers.clients import deltas, facts, hook, places, wire
from providers.clients.deltas import KINDS, Memory, Piece
from providers.clients.loaded import OwnLoads, own_loads

SERVER_NAME = "context_providers"
"""The name ``setup --mcp`` registers the server under (the clients prefix its tools
with it: ``mcp__context_providers__git_status``)."""
ENV_WAIT = "CONTEXT_PROVIDERS_MCP_WAIT_S"
WAIT_S = 30.0
"""The longest a tool call waits for its answer (a first listing of a large
repository takes seconds)."""
ENV_START = "CONTEXT_PROVIDERS_MCP_START_S"
INSTRUCTIONS_WAIT_S = 15.0
"""The longest the server's start waits for the convention files: the clients wait for
the server (Codex gives up on a required one after its startup timeout), and without
them the session's instructions are the first line alone. A first start of the
background process on a loaded machine takes seconds."""
INSTRUCTIONS_BUDGET = 5000
DOCS_BUDGET = 2000
MAX_BUDGET = 50_000

FIRST_LINE = (
    "Repository context: call scoped_docs with file paths before reading or editing them "
    "for the docs and rules that apply; git_status, file_tree and conventions show the "
    "repository's state and rules."
)
"""What the server offers, in the line that reaches the model in every client (Codex
keeps only this line, up to facts.CODEX.mcp.first_line_max characters)."""
FOLLOW = (
    "The convention files and always-on rules of this repository that this client does "
    "not load by itself:"
)
FOLLOW_ALL = "The convention files and always-on rules of this repository:"

NOTHING_NEW = "No docs or rules apply to these files beyond those already given in this session."


class Unavailable(Exception):
    """The background process could not answer; the message says why, for the model."""


def _budget(value: int, default: int) -> int:
    """A budget the model asked for: its default when 0 or less, at most MAX_BUDGET."""
    return min(value, MAX_BUDGET) if value > 0 else default


@dataclass
class Background:
    """The repository's background process, as one MCP session reaches it."""

    root: str

    def ask(self, request: Mapping[str, Any], timeout: float) -> dict[str, Any]:
        """Its answer to one ``section`` request within ``timeout`` seconds, starting the
        process first when it is not running (waiting for its socket as a hook would)."""
        start = time.monotonic()
        deadline = start + timeout
        try:
            path = places.socket_path(places.runtime_dir(create=True), self.root)
            connect_by = min(deadline, start + hook.start_seconds())
            sock, _ = hook.connect(path, self.root, connect_by)
            try:
                sock.sendall(wire.encode("section", json.dumps(request).encode("utf-8")))
                verb, _, body = wire.Reader(sock).message(deadline)
            finally:
                sock.close()
        except OSError as error:
            reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            hook.log(f"the background process for {self.root} did not answer ({reason})", "mcp")
            name = os.path.basename(self.root)
            raise Unavailable(
                f"the background process for {name} did not answer ({type(error).__name__}; "
                "`context-providers doctor` shows why)"
            ) from error
        text = body.decode("utf-8", "replace")
        if verb != "ok":
            hook.log(f"{request.get('kind')}: {text}", "mcp")
            raise Unavailable(text)
        answer: dict[str, Any] = json.loads(text)
        return answer


@dataclass
class McpSession:
    """One client session (one MCP server process) working in ``cwd``."""

    cwd: str
    root: str | None
    client: str | None = None
    """The client that started the server (``setup --mcp`` says), or None: then nothing
    is assumed loaded by the client."""
    session_id: str = field(default_factory=lambda: f"mcp-{os.getpid()}-{time.time_ns()}")
    memory: Memory = field(default_factory=Memory)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def here(cls, cwd: str, client: str | None = None) -> McpSession:
        return cls(cwd, places.repository_root(cwd), client)

    # -- asking ------------------------------------------------------------------------

    def _root(self) -> str:
        if self.root is None:
            raise Unavailable("the working directory is in no git repository: no context here")
        return self.root

    def _directory(self, directory: str = "") -> str:
        """``directory`` (relative to the working directory, or absolute) relative to
        the repository's root; ValueError when it lies outside."""
        root = self._root()
        target = os.path.realpath(os.path.join(self.cwd, directory or "."))
        relative = os.path.relpath(target, root)
        if relative == ".." or relative.startswith("../"):
            raise ValueError(f"{directory} is outside the repository")
        return relative

    def _pieces(
        self,
        kind: str,
        *,
        budget: int = 0,
        files: Sequence[str] = (),
        directory: str = "",
        timeout: float | None = None,
    ) -> list[Piece]:
        request = {
            "kind": kind,
            "files": list(files),
            "directory": self._directory(directory),
            "budget": budget,
            "session_id": self.session_id,
        }
        wait = hook.env_seconds(ENV_WAIT, WAIT_S, most=3600) if timeout is None else timeout
        answer = Background(self._root()).ask(request, wait)
        sections = answer.get("sections") or []
        problems = [str(p) for p in answer.get("problems") or []]
        if not sections and problems:
            raise Unavailable("; ".join(problems))
        mapped = KINDS.get(kind, "dynamic")
        return [Piece(mapped, str(s["label"]), str(s["text"])) for s in sections]

    def _touched(self) -> tuple[str, ...]:
        with self._lock:
            return self.memory.files

    # -- the server's instructions -------------------------------------------------------

    def instructions(self, budget: int = INSTRUCTIONS_BUDGET) -> tuple[str, list[str]]:
        """The server's instructions, and the paths of the repository's convention
        files (each a resource). Never raises: without the background process the
        instructions are the first line and why nothing follows."""
        try:
            wait = hook.env_seconds(ENV_START, INSTRUCTIONS_WAIT_S, most=3600)
            pieces = self._pieces("repo_conventions", timeout=wait)
        except (Unavailable, ValueError) as error:
            return f"{FIRST_LINE}\n\n(No convention files now: {error}.)\n", []
        paths = [p.label for p in pieces]
        if self.client is not None and facts.FACTS[self.client].mcp.first_line_max is not None:
            # Codex keeps the first line alone: the rest would be sent to be cut; the
            # first line names the conventions tool, which gives the files.
            return f"{FIRST_LINE}\n", paths
        if not pieces:
            return f"{FIRST_LINE}\n\nThis repository has no convention files.\n", paths
        own = self._own()
        if isinstance(own, OwnLoads):  # the skills the client lists itself: not again
            pieces = own.trim(pieces)
        lead = f"{FIRST_LINE}\n\n{FOLLOW if self.client else FOLLOW_ALL}\n\n"
        cap = self._instructions_chars()
        added, note = _fitted(
            lambda room, chars: deltas.session_start(
                Memory(), pieces, own, deltas.Room(room, chars, name_left_out=False)
            ),
            budget - deltas.tokens(lead),
            None if cap is None else cap - facts.inline_size(lead),
            pieces,
            lambda left: f"\nLeft out to fit: {left} (call conventions).\n",
        )
        if not added.text and not added.left_out:
            return f"{FIRST_LINE}\n\nThis client loads every convention file here itself.\n", paths
        return lead + added.text + note, paths

    def _instructions_chars(self) -> int | None:
        """The most of the instructions the client keeps (Claude Code cuts them at 4096
        characters); None: all, or the client is not known."""
        return None if self.client is None else facts.FACTS[self.client].mcp.instructions_chars

    def _own(self) -> deltas.Own:
        if self.client is None or self.root is None:
            return lambda piece: False
        return own_loads(self.client, Path(self.root), Path(self.cwd))

    # -- tools ------------------------------------------------------------------------------

    def scoped_docs(self, files: Sequence[str], budget: int = DOCS_BUDGET) -> str:
        """The docs and rules that apply to ``files`` not given yet in this session."""
        root = self._root()
        absolute = [os.path.realpath(os.path.join(self.cwd, f)) for f in files if f]
        inside = [
            os.path.relpath(p, root) for p in absolute if p == root or p.startswith(root + "/")
        ]
        if not inside:
            raise ValueError("none of these files is inside the repository")
        fit = _budget(budget, DOCS_BUDGET)
        with self._lock:
            self.memory = self.memory.touch(inside)
        pieces = self._pieces("scoped_docs", budget=fit, files=absolute)
        with self._lock:
            added, note = _fitted(
                lambda room, _: deltas.after_tool(
                    self.memory,
                    pieces,
                    lambda piece: False,
                    deltas.Room(room, None, name_left_out=False),
                ),
                fit,
                None,
                pieces,
                lambda left: (
                    f"\nLeft out to fit {fit} tokens: {left} (ask with a larger budget).\n"
                ),
            )
            self.memory = added.memory
        if not added.text and not added.left_out:
            return NOTHING_NEW
        return added.text + note

    def file_tree(self, directory: str = "", budget: int = 0) -> str:
        pieces = self._pieces(
            "file_tree", budget=_budget(budget, 0), files=self._touched(), directory=directory
        )
        return _only(pieces, "no file tree")

    def git_status(self, budget: int = 0) -> str:
        pieces = self._pieces("git_status", budget=_budget(budget, 0), files=self._touched())
        return _only(pieces, "no git status")

    def conventions(self, path: str = "") -> str:
        """Every convention file and always-on rule, framed; or the one at ``path``."""
        pieces = self._pieces("repo_conventions")
        if path:
            wanted = os.path.normpath(path)
            found = [p for p in pieces if p.label == wanted]
            if not found:
                known = ", ".join(p.label for p in pieces) or "none"
                raise ValueError(f"{path} is not a convention file here (they are: {known})")
            return found[0].text
        if not pieces:
            return "This repository has no convention files."
        return "\n\n".join(deltas.frame(p) for p in pieces) + "\n"


def _fitted(
    fit: Callable[[int, int | None], deltas.Added],
    budget: int,
    chars: int | None,
    pieces: Sequence[Piece],
    note: Callable[[str], str],
) -> tuple[deltas.Added, str]:
    """Whole sections within ``budget`` tokens (and ``chars``, when not None) and the note
    naming those left out, the note paid from both too: room is kept for it naming every
    piece, or, when that would take more than half the room, only counting them."""
    added = fit(max(budget, 0), None if chars is None else max(chars, 0))
    if not added.left_out:
        return added, ""
    every = note(", ".join(p.label for p in pieces))
    named = deltas.tokens(every) <= budget // 2 and (
        chars is None or facts.inline_size(every) <= chars // 2
    )
    widest = every if named else note(f"{len(pieces)} sections")
    added = fit(
        max(budget - deltas.tokens(widest), 0),
        None if chars is None else max(chars - facts.inline_size(widest), 0),
    )
    left = ", ".join(added.left_out) if named else f"{len(added.left_out)} sections"
    said = note(left)
    return added, said if deltas.tokens(said) <= budget else ""


def _only(pieces: Sequence[Piece], what: str) -> str:
    text = "\n\n".join(p.text.rstrip("\n") for p in pieces)
    return text + "\n" if text else f"({what} in this repository)"
