"""What is new for one session since it was last spoken to: pure functions.

A hook's context stays in the client's transcript (a kernel, by contrast, assembles the
whole prompt again each turn), so everything added is paid for until the session ends.
Hence, per event:

- session start: the convention files and always-on rules the client does not load by
  itself, git status and the file tree;
- each prompt: only what changed since it was shown (git status when its text changed,
  the file tree when files were added or removed, a convention file edited), each said
  to replace the earlier one; nothing at all when nothing changed;
- after a tool read or edited files: the scoped docs of those files not yet shown in
  this session (a doc edited since is shown again, said to replace the earlier one).

Each event fits its own token budget by whole sections; a section that does not fit is
not remembered as shown, so a later event of its kind sends it. ``Memory`` is what the
session was shown, as digests. The caller keeps the new one at once, so that an event
of the same session running meanwhile counts what this one sends as shown (each doc
once, however many hooks run in parallel); when the hook did not print the answer,
:func:`take_back` returns exactly the pieces it sent to "not shown".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from providers.core.budget import fallback_tokens_for_bytes
from providers.core.section_text import SCOPED_DOCS_INDEX, doc_path, tree_totals

Kind = Literal["conventions", "git_status", "file_tree", "scoped_docs", "static", "dynamic"]
Event = Literal["start", "resume", "prompt", "tool"]

KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        "repo_conventions": "conventions",
        "git_status": "git_status",
        "file_tree": "file_tree",
        "scoped_docs": "scoped_docs",
    }
)
"""Our providers' packages -> what a section of theirs is to the bridge."""

INDEX_LABEL = SCOPED_DOCS_INDEX
"""Never sent by hooks: a catalog that changes as docs come and go, not a doc."""

EMPTY_MAPPING: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class Piece:
    """One section a provider contributed, with the kind of provider it came from."""

    kind: Kind
    label: str
    text: str

    @property
    def key(self) -> str:
        """What the session remembers it by: the doc's path for a scoped doc (whichever
        file it applied to), the provider for git status and the file tree."""
        if self.kind in ("git_status", "file_tree"):
            return self.kind
        if self.kind == "scoped_docs":
            return f"doc:{doc_path(self.label)}"
        return f"{self.kind}:{self.label}"

    @property
    def path(self) -> str:
        """The repository file it shows (conventions, scoped docs), else ""."""
        if self.kind == "scoped_docs":
            return doc_path(self.label)
        return self.label if self.kind == "conventions" else ""


def tokens(text: str) -> int:
    """What ``text`` costs, counted as the kernel's fallback does (ceil(bytes / 4))."""
    return fallback_tokens_for_bytes(len(text.encode("utf-8")))


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=10).hexdigest()


@dataclass(frozen=True)
class Memory:
    """What one session has been shown."""

    shown: Mapping[str, str] = field(default_factory=lambda: EMPTY_MAPPING)
    """Piece key -> digest of the text shown."""
    totals: str = ""
    """The file tree's totals when it was last shown."""
    files: tuple[str, ...] = ()
    """Files the session touched, repo-relative, in order (the kernel's files_touched)."""

    @property
    def started(self) -> bool:
        return bool(self.shown)

    def touch(self, paths: Iterable[str]) -> Memory:
        known = set(self.files)
        new = tuple(p for p in dict.fromkeys(paths) if p not in known)
        return replace(self, files=self.files + new) if new else self


@dataclass(frozen=True)
class Added:
    """What one event adds to the transcript, and the memory once it is out."""

    text: str
    memory: Memory
    tokens: int = 0
    left_out: tuple[str, ...] = ()
    before: Mapping[str, str | None] = field(default_factory=lambda: EMPTY_MAPPING)
    """Each key this addition shows -> its digest in the memory it was added to (None:
    not shown there): what :func:`take_back` restores."""
    totals_before: str | None = None
    """The file tree's totals before, when this addition shows the file tree."""


def take_back(current: Memory, sent: Added) -> Memory:
    """``current`` without what ``sent`` showed (its hook never printed it): each of its
    pieces goes back to what the session had been shown before, unless a later event
    showed that piece again meanwhile (then that one stands)."""
    shown = dict(current.shown)
    for key, before in sent.before.items():
        if shown.get(key) != sent.memory.shown.get(key):
            continue
        if before is None:
            shown.pop(key, None)
        else:
            shown[key] = before
    totals = current.totals
    if sent.totals_before is not None and totals == sent.memory.totals:
        totals = sent.totals_before
    return replace(current, shown=MappingProxyType(shown), totals=totals)


Own = Callable[[Piece], bool]
"""Whether the client puts this piece before the model by itself."""


def frame(piece: Piece, lead: str = "") -> str:
    label = piece.label.replace('"', "'")
    head = f"{lead}\n" if lead else ""
    return f'{head}<context label="{label}">\n{piece.text.rstrip()}\n</context>'


def _changed_lead(piece: Piece, before: str | None) -> str:
    """Why a piece is sent again, saying what it replaces."""
    if before is None:
        return ""
    if piece.kind == "git_status":
        return "git status changed since the last turn; this replaces it:"
    if piece.kind == "file_tree":
        return "Files were added or removed; this file tree replaces the earlier one:"
    name = piece.path or piece.label
    return f"{name} changed since it was shown; this replaces it:"


def _fit(
    memory: Memory, chosen: Sequence[tuple[Piece, str]], budget: int, own: Sequence[Piece] = ()
) -> Added:
    """Whole blocks in order while they fit ``budget``; the memory of those kept, and of
    ``own``: what the client showed itself (its git snapshot, a nested file it attached),
    remembered as shown so that only a change of it is sent later."""
    shown = dict(memory.shown)
    totals = memory.totals
    for piece in own:
        shown[piece.key] = digest(piece.text)
        if piece.kind == "file_tree":
            totals = tree_totals(piece.text)
    before: dict[str, str | None] = {}
    totals_before: str | None = None
    blocks: list[str] = []
    left_out: list[str] = []
    used = 0
    for piece, lead in chosen:
        block = frame(piece, lead)
        cost = tokens(block) + 1  # and the blank line between blocks
        if used + cost > budget:
            left_out.append(piece.label)
            continue
        used += cost
        blocks.append(block)
        before.setdefault(piece.key, memory.shown.get(piece.key))
        shown[piece.key] = digest(piece.text)
        if piece.kind == "file_tree":
            totals_before = memory.totals
            totals = tree_totals(piece.text)
    text = "\n\n".join(blocks) + ("\n" if blocks else "")
    new = replace(memory, shown=MappingProxyType(shown), totals=totals)
    return Added(text, new, tokens(text), tuple(left_out), MappingProxyType(before), totals_before)


_START_ORDER: Mapping[Kind, int] = {
    "conventions": 0,
    "static": 1,
    "git_status": 2,
    "file_tree": 3,
    "scoped_docs": 4,
    "dynamic": 5,
}


def session_start(memory: Memory, pieces: Sequence[Piece], own: Own, budget: int) -> Added:
    """Everything the client lacks, for a session that starts with an empty transcript
    (a new one, or one cleared or compacted): what it was shown before is forgotten."""
    fresh = Memory(files=memory.files)
    pieces = [p for p in pieces if p.label != INDEX_LABEL]
    theirs = [p for p in pieces if own(p)]
    chosen = sorted(
        _distinct(p for p in pieces if p not in theirs), key=lambda p: _START_ORDER[p.kind]
    )
    return _fit(fresh, [(p, "") for p in chosen], budget, theirs)


def _distinct(pieces: Iterable[Piece]) -> list[Piece]:
    """One of each text among files (conventions, scoped docs): a copy under another
    name is not sent again."""
    seen: set[str] = set()
    out = []
    for piece in pieces:
        if piece.path:
            text = digest(piece.text)
            if text in seen:
                continue
            seen.add(text)
        out.append(piece)
    return out


def prompt(memory: Memory, pieces: Sequence[Piece], own: Own, budget: int) -> Added:
    """What changed since it was shown; scoped docs wait for the files they govern."""
    chosen: list[tuple[Piece, str]] = []
    theirs = []
    for piece in pieces:
        if piece.kind == "scoped_docs" or piece.label == INDEX_LABEL:
            continue
        if own(piece):
            theirs.append(piece)
            continue
        before = memory.shown.get(piece.key)
        if piece.kind == "file_tree":
            if before is not None and tree_totals(piece.text) == memory.totals:
                continue
        elif before == digest(piece.text):
            continue
        chosen.append((piece, _changed_lead(piece, before)))
    return _fit(memory, chosen, budget, theirs)


def after_tool(memory: Memory, pieces: Sequence[Piece], own: Own, budget: int) -> Added:
    """The scoped docs not shown yet in this session (or edited since)."""
    chosen = []
    theirs = []
    texts = set(memory.shown.values())
    for piece in pieces:
        if piece.kind != "scoped_docs" or piece.label == INDEX_LABEL:
            continue
        if own(piece):
            theirs.append(piece)
            continue
        before = memory.shown.get(piece.key)
        text = digest(piece.text)
        if before is None and text in texts:
            continue  # the same text under another name, already shown
        if before != text:
            chosen.append((piece, _changed_lead(piece, before)))
            texts.add(text)
    return _fit(memory, chosen, budget, theirs)


def added(event: Event, memory: Memory, pieces: Sequence[Piece], own: Own, budget: int) -> Added:
    """The event's addition: a resumed session that this process remembers is spoken to
    like a new prompt (its transcript still holds what it was shown)."""
    if event == "start" or (event == "resume" and not memory.started):
        return session_start(memory, pieces, own, budget)
    if event in ("prompt", "resume"):
        return prompt(memory, pieces, own, budget)
    return after_tool(memory, pieces, own, budget)
