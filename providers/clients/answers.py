"""The background process's answers: a hook input in, what the hook prints out.

One :class:`Bridge` per repository holds the providers (plugin processes brought up
through ``providers.host``, as a kernel does) and each session's memory. A hook event
becomes a turn for the providers it concerns (all of them at session start, all but
scoped docs at a prompt, scoped docs after a file tool), asked at once
(``host.chain.run_each``), each at most at the budget that fits one event of the
client (``Budgets.of_providers``: the client's cap on one hook's text, ``facts``);
:mod:`providers.clients.deltas` decides what of it is new to the session and what fits
this event; the answer is the client's hook output (``facts.hook_output``).

Failing open: each event answers before its hook stops waiting (the ``wait=`` the hook
sends, else its bounds, ``hook.WAIT_S`` and ``hook.START_S``). The turn gets
:data:`TURN_SHARE` of that time, less :data:`ANSWER_MARGIN_S`, as a deadline the
providers are told; a provider that has not answered by then is left out of this
event (the log says so) and nobody waits for its call.

One event of a session at a time: what an answer sends is kept as shown at once, under
the session's lock, so a hook of the same session running meanwhile does not send it
too; when the hook does not confirm that it printed the answer (``Reply.settle(False)``),
exactly those pieces are taken back (``deltas.take_back``) and a later event sends them.

For an MCP server, :meth:`Bridge.section` answers one provider's sections on demand:
the scoped docs of given files, the file tree of a directory at a budget, git status,
the repo conventions.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from providers.clients import deltas, facts, hook, tool_paths
from providers.clients.budgets import Budgets
from providers.clients.claude_bash import followed_by_claude
from providers.clients.deltas import KINDS, Event, Kind, Piece
from providers.clients.loaded import OwnLoads, Scoped, own_loads
from providers.clients.memory import MemoryStore
from providers.core.deadline import Deadline
from providers.core.types import ContextRequest, ModelTarget
from providers.host.chain import Slot, TurnResult, run_each
from providers.repository.layout import RepoRoots
from providers.repository.paths import normalise_touched
from providers.repository.sources import file_key

log = logging.getLogger(__name__)

TURN_SHARE = 0.6
"""The share of the time the hook still waits that the providers get: the rest is the
margin for a loaded machine (the answer's own work, the hook reading it)."""
ANSWER_MARGIN_S = 0.05
"""Kept back from the hook's wait before the share is taken (the answer's own work)."""


@dataclass
class Reply:
    """What a hook prints, and what to keep once it has."""

    output: bytes = b""
    settle: Callable[[bool], None] | None = None
    """Call with whether the hook acknowledged the answer (False: take back what it
    marked as shown, so a later event sends it)."""
    elsewhere: bool = False
    ended: bool = False


@dataclass
class Bridge:
    """The providers of one repository, serving every session working in it."""

    root: Path
    slots: Sequence[Slot]
    kinds: Mapping[str, Kind]
    """Slot (local) name -> kind."""
    store: MemoryStore
    budgets: Budgets = field(default_factory=Budgets)
    _roots: RepoRoots = field(default_factory=RepoRoots)
    _own: dict[tuple[str, str], tuple[float, OwnLoads]] = field(default_factory=dict)
    _turns: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- hooks ------------------------------------------------------------------------

    def hook(
        self,
        client: str,
        hook_cwd: str,
        data: bytes,
        options: Sequence[str],
        received: float | None = None,
    ) -> Reply:
        """The answer to one hook input (the client's JSON, untouched), due before the
        hook stops waiting: ``wait=SECONDS`` among ``options`` after ``received`` (the
        monotonic time the request arrived; now when None)."""
        info = facts.FACTS.get(client)
        payload = json.loads(data) if data.strip() else {}
        if info is None or not isinstance(payload, dict):
            raise ValueError(f"not a hook input of a known client ({client!r})")
        cwd = Path(str(payload.get("cwd") or hook_cwd))
        if self._roots.root(cwd) != self.root:
            return Reply(elsewhere=True)
        name = str(payload.get("hook_event_name", ""))
        session_id = str(payload.get("session_id", "")) or "default"
        if name == "SessionEnd":
            self.store.forget(session_id)
            return Reply(ended=True)
        event = _event(info, name, payload)
        if event is None:
            return Reply()
        due = _answer_due(event, options, time.monotonic() if received is None else received)
        with self.store.session_lock(session_id):
            memory = self.store.get(session_id)
            own = self._own_loads(client, cwd)
            if event == "tool":
                tool = str(payload.get("tool_name", ""))
                tool_input = payload.get("tool_input") or {}
                paths = tool_paths.paths_from_tool_input(client, tool, tool_input)
                inside = normalise_touched(self.root, cwd, paths).inside if paths else ()
                if not inside:
                    return Reply()
                memory = memory.touch(inside)
                own = self._after_tool(own, cwd, tool, tool_input, inside)
            else:
                own = own.during(starting=event == "start" or not memory.started)
            budgets = self.budgets.with_options(options)
            result = self._turn(
                event,
                cwd,
                session_id,
                memory.files,
                _turn_deadline(due),
                budgets.of_providers(info.inline_chars),
            )
            pieces = own.trim(self._pieces(result))
            room = budgets.room(event, info, name)
            add = deltas.added(event, memory, pieces, own, room)
            if add.left_out:
                log.info(
                    "%s %s: left out to fit %d tokens and %s characters: %s",
                    client,
                    name,
                    room.tokens,
                    room.chars or "any",
                    ", ".join(add.left_out),
                )
            self.store.put(session_id, add.memory)  # in flight: the next event counts it shown
            if not add.text:
                return Reply()
            output = json.dumps(facts.hook_output(name, add.text)) + "\n"

        def settle(acked: bool) -> None:
            if not acked:
                with self.store.session_lock(session_id):
                    memory = self.store.get(session_id)
                    self.store.put(session_id, deltas.take_back(memory, add))

        return Reply(output.encode("utf-8"), settle)

    def _turn(
        self,
        event: Event,
        cwd: Path,
        session_id: str,
        files: tuple[str, ...],
        deadline: Deadline | None = None,
        caps: Mapping[Kind, int] | None = None,
    ) -> TurnResult:
        wanted: tuple[Kind, ...]
        if event == "tool":
            wanted = ("scoped_docs",)
        elif event == "prompt":
            wanted = ("conventions", "git_status", "file_tree", "static", "dynamic")
        else:
            wanted = ("conventions", "git_status", "file_tree", "scoped_docs", "static", "dynamic")
        slots = [s for s in self.slots if self.kinds.get(s.name) in wanted]
        if caps:
            slots = [_capped(s, caps.get(self.kinds.get(s.name, "dynamic"))) for s in slots]
        with self._lock:
            self._turns += 1
            turn_id = f"hook-{self._turns}"
        request = ContextRequest(
            token_budget=0,
            working_directory=str(cwd),
            model_target=MODEL,
            files_touched=self._absolute(files),
            session_id=session_id,
            turn_id=turn_id,
        )
        started = time.perf_counter()
        result = run_each(slots, request, deadline)
        for outcome in result.outcomes:
            for problem in outcome.problems:
                log.warning("%s: %s (%s event)", outcome.name, problem, event)
        log.debug("%s turn in %.3f s", event, time.perf_counter() - started)
        return result

    def _absolute(self, files: Sequence[str]) -> tuple[str, ...]:
        """Repo-relative paths as a request carries them: a relative entry of
        files_touched is read from the working directory, which may be below the root."""
        return tuple(str(self.root / f) for f in files)

    def _pieces(self, result: TurnResult) -> list[Piece]:
        pieces = []
        for provider, label, text in result.texts():
            piece = Piece(self.kinds.get(provider, "dynamic"), label, text)
            pieces.append(replace(piece, stamp=_stamp(self.root, piece.path)))
        return pieces

    def _after_tool(
        self,
        own: OwnLoads,
        cwd: Path,
        tool: str,
        tool_input: Mapping[str, Any],
        inside: Sequence[str],
    ) -> OwnLoads:
        """``own`` after ``tool`` named the files ``inside``: for which of them the client
        attached nested files and ``paths:`` rules itself (Claude Code: after Read, and
        after the Bash reads it recognises, :mod:`claude_bash`)."""
        native = own.native
        if tool in native.scoped_on:
            return own.during(starting=False)
        command = tool_input.get("command")
        if native.scoped_on_shell != "claude" or tool != "Bash" or not isinstance(command, str):
            return own.during(starting=False, scoped="none", shell=tool == "Bash")
        named = followed_by_claude(command)
        followed = normalise_touched(self.root, cwd, named).inside if named else ()
        scoped: Scoped = "none"
        if followed:
            scoped = "all" if set(inside) <= set(followed) else "some"
        return own.during(starting=False, scoped=scoped, followed=followed, shell=True)

    def _own_loads(self, client: str, cwd: Path) -> OwnLoads:
        """What ``client`` loads itself, looked up again when its files may have changed
        (at most once a second: a few stats and small reads)."""
        key = (client, str(cwd))
        now = time.monotonic()
        known = self._own.get(key)
        if known is not None and now - known[0] < 1.0:
            return known[1]
        loads = own_loads(client, self.root, cwd)
        self._own[key] = (now, loads)
        return loads

    # -- on demand (an MCP server) ------------------------------------------------------

    def section(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """One provider's sections: ``kind`` (``repo_conventions``, ``git_status``,
        ``file_tree``, ``scoped_docs``), ``files`` (touched, repo-relative or absolute),
        ``directory`` (the working directory, repo-relative), ``budget`` (tokens; the
        provider's own when 0 or absent), ``session_id``."""
        kind = KINDS.get(str(request.get("kind", "")))
        slots = [s for s in self.slots if kind is not None and self.kinds.get(s.name) == kind]
        if not slots:
            raise ValueError(f"no provider of kind {request.get('kind')!r} in this repository")
        budget = int(request.get("budget") or 0)
        if budget:
            slots = [replace(s, budget=budget) for s in slots]
        directory = self.root / str(request.get("directory") or ".")
        files = [str(f) for f in request.get("files") or ()]
        inside = normalise_touched(self.root, directory, files).inside if files else ()
        result = run_each(
            slots,
            ContextRequest(
                token_budget=0,
                working_directory=str(directory),
                model_target=MODEL,
                files_touched=self._absolute(inside),
                session_id=str(request.get("session_id") or "mcp"),
                turn_id="mcp",
            ),
        )
        problems = [p for o in result.outcomes for p in o.problems]
        return {
            "sections": [
                {"label": label, "text": text, "tokens": deltas.tokens(text)}
                for _, label, text in result.texts()
            ],
            "problems": problems,
        }


MODEL = ModelTarget("agent-client-hook")


def _capped(slot: Slot, cap: int | None) -> Slot:
    """``slot`` asked for at most ``cap`` tokens (its own budget when smaller)."""
    return slot if cap is None or slot.budget <= cap else replace(slot, budget=cap)


def _answer_due(event: Event, options: Sequence[str], received: float) -> float:
    """When the hook stops waiting for this event's answer (monotonic): the ``wait=`` it
    sent, else its own bound for the event (an older hook sends none)."""
    for option in options:
        name, _, value = option.partition("=")
        if name == "wait":
            try:
                seconds = float(value)
            except ValueError:
                break
            if 0 <= seconds < 600:
                return received + seconds
            break
    start = event in ("start", "resume")
    return received + (hook.start_seconds() if start else hook.wait_seconds())


def _turn_deadline(due: float) -> Deadline:
    """The providers' deadline for an answer due at ``due``."""
    return Deadline.after(max(0.0, due - time.monotonic() - ANSWER_MARGIN_S) * TURN_SHARE)


def _event(info: facts.ClientFacts, name: str, payload: Mapping[str, Any]) -> Event | None:
    """The bridge's event for a client's event name (None: not one we answer)."""
    events = info.events
    if name == events.session_start:
        source = str(payload.get("source", "startup"))
        return "resume" if source == "resume" else "start"
    if name == events.per_prompt:
        return "prompt"
    if name == events.after_tool:
        return "tool"
    return None


def _stamp(root: Path, path: str) -> str:
    """The key of the repository file ``path`` shows ("" for none): a doc cut differently
    by another turn's budget is the same doc; an edit (or a file put in its place) is
    not. An import the doc pulls in changing alone is not seen here."""
    key = file_key(root / path) if path else None
    if key is None:
        return ""
    return f"{key.device}-{key.inode}-{key.size}-{key.mtime_ns}-{key.mode}"
