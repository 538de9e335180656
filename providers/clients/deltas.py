"""What is new for one session since it was last spoken to: pure functions.

A hook's context stays in the client's transcript (a kernel, by contrast, assembles the
whole prompt again each turn), so everything added is paid for until the session ends.
Hence, per event:

- session start: the convention files and always-on rules the client does not load by
  itself, git status and the file tree;
- each prompt: what session start could not carry, and what changed since it was shown
  (git status when its text changed, the file tree when files were added or removed, a
  convention file edited), each said to replace the earlier one; nothing at all when
  nothing changed;
- after a tool read or edited files: the scoped docs of those files not yet shown in
  this session (a doc edited since is shown again, said to replace the earlier one).

Each event fits its :class:`Room`: its token budget and the client's cap on one hook's
text (``facts.ClientFacts.inline_chars``: past it Claude Code and Codex CLI save the
text to a file and show the model a preview). Whole sections only; one that does not
fit is not remembered as shown, so a later event sends it (a prompt sends what session
start could not, within the start budget), and one short closing line names it. So that
a section always fits some event, the providers are asked at :func:`provider_budget`.

What comes first is decided by value, not by provider: the convention files and rules
(the project's instructions: what the model cannot infer and must not break), then git
status (small, and what the user is in the middle of), then the file tree (large, and
the model can list files itself), the skills catalog last (the client lists most skills
itself, and a skill is read on demand).

Framing is paid for on every section: one line, ``--- LABEL ---``, before its text, no
closing tag; a section sent again says why in that line. It holds no ``<`` or ``>``
(Gemini CLI escapes them) and, for Gemini's session start, no ``@`` it would expand
(``facts.neutralise_at``).

``Memory`` is what the session was shown, as digests. The caller keeps the new one at
once, so that an event of the same session running meanwhile counts what this one sends
as shown (each doc once, however many hooks run in parallel); when the hook did not
print the answer, :func:`take_back` returns exactly the pieces it sent to "not shown".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from providers.clients.facts import inline_size, neutralise_at
from providers.core.budget import fallback_tokens_for_bytes
from providers.core.section_text import SCOPED_DOCS_INDEX, doc_path, short_doc_label, tree_totals

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
    stamp: str = ""
    """The shown file's own key (its inode, size and modification time), for a piece
    that shows one file (conventions, a scoped doc): the piece changed when the file did,
    not when a budget cut it elsewhere; "" for the others, compared by text."""

    @property
    def mark(self) -> str:
        """What the session remembers of it: the file's stamp with the text's digest, or
        the text's digest alone."""
        text = digest(self.text)
        return f"{self.stamp}:{text}" if self.stamp else text

    def same_as(self, shown: str | None) -> bool:
        """Whether ``shown`` (a :attr:`mark`) is this piece as the session saw it: the same
        file, unchanged (another cut of it included), or the same text."""
        if shown is None:
            return False
        stamp, sep, text = shown.partition(":")
        if sep and self.stamp:
            return stamp == self.stamp
        return (text if sep else shown) == digest(self.text)

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


def text_of(mark: str) -> str:
    """The text's digest in a :attr:`Piece.mark`."""
    return mark.rpartition(":")[2]


@dataclass(frozen=True)
class Memory:
    """What one session has been shown."""

    shown: Mapping[str, str] = field(default_factory=lambda: EMPTY_MAPPING)
    """Piece key -> its :attr:`Piece.mark` when shown."""
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


@dataclass(frozen=True)
class Room:
    """What one event may add: ``tokens`` (its budget), ``chars`` (the client's cap on one
    hook's text, counted by ``facts.inline_size``; None: no cap), ``start_tokens`` (the
    session-start budget, for a prompt that carries what session start could not) and
    ``escape_at`` (the client would expand ``@`` mentions in this event's text)."""

    tokens: int
    chars: int | None = None
    start_tokens: int = 0
    escape_at: bool = False
    name_left_out: bool = True
    """Close with the line naming what waits (False: the caller says it its own way)."""


NOTE_CHARS = 200
"""The most the closing line naming what waits may take (kept free when something waits)."""


def provider_budget(tokens: int, chars: int | None) -> int:
    """The token budget to ask a provider at so that all it answers fits one empty event
    of ``tokens`` and ``chars`` whole, with its framing and the closing line."""
    budget = tokens if chars is None else min(tokens, chars // 4)
    return max(budget - budget // 10 - tokens_of_note(), 1)


def tokens_of_note() -> int:
    return fallback_tokens_for_bytes(NOTE_CHARS)


def label_of(piece: Piece) -> str:
    """The label a section is framed with (a scoped doc's says its path and glob)."""
    return short_doc_label(piece.label) if piece.kind == "scoped_docs" else piece.label


def frame(piece: Piece, lead: str = "") -> str:
    """``--- LABEL ---`` (or ``--- LABEL (why it is sent again) ---``), then the text."""
    head = f"{label_of(piece)} ({lead})" if lead else label_of(piece)
    return f"--- {head} ---\n{piece.text.rstrip()}"


def _changed_lead(piece: Piece, before: str | None) -> str:
    """Why a piece is sent again: it was shown before and this one replaces it."""
    return "" if before is None else "updated"


def _note(left_out: Sequence[str], escape_at: bool) -> str:
    """One short line naming what waits for a later event, within NOTE_CHARS."""
    head, tail = "(sent later, for lack of room here: ", ")"
    names = list(left_out)
    while names:
        rest = len(left_out) - len(names)
        line = head + ", ".join(names) + (f", and {rest} more" if rest else "") + tail
        line = neutralise_at(line) if escape_at else line
        if inline_size(line) <= NOTE_CHARS:
            return line
        names.pop()
    return f"{head}{len(left_out)} sections{tail}"


def _fit(
    memory: Memory,
    chosen: Sequence[tuple[Piece, str]],
    room: Room,
    budget: int,
    own: Sequence[Piece] = (),
) -> Added:
    """Whole blocks in order while they fit ``budget`` tokens and ``room.chars``; the
    memory of those kept, and of ``own``: what the client showed itself (its git
    snapshot, a nested file it attached), remembered as shown so that only a change of
    it is sent later; a closing line naming those left out."""
    blocks = [frame(p, lead) for p, lead in chosen]
    if room.escape_at:
        blocks = [neutralise_at(b) for b in blocks]
    kept = _pack(blocks, budget, room.chars, 0, 0)
    if len(kept) < len(blocks) and room.name_left_out:
        kept = _pack(blocks, budget, room.chars, tokens_of_note() + 1, NOTE_CHARS + 2)
    shown = dict(memory.shown)
    totals = memory.totals
    for piece in own:
        shown[piece.key] = piece.mark
        if piece.kind == "file_tree":
            totals = tree_totals(piece.text)
    before: dict[str, str | None] = {}
    totals_before: str | None = None
    out: list[str] = []
    left_out: list[str] = []
    named: list[str] = []
    for i, (piece, _) in enumerate(chosen):
        if i not in kept:
            left_out.append(piece.label)
            named.append(label_of(piece))
            continue
        out.append(blocks[i])
        before.setdefault(piece.key, memory.shown.get(piece.key))
        shown[piece.key] = piece.mark
        if piece.kind == "file_tree":
            totals_before = memory.totals
            totals = tree_totals(piece.text)
    if left_out and room.name_left_out:
        out.append(_note(named, room.escape_at))
    text = "\n\n".join(out) + ("\n" if out else "")
    new = replace(memory, shown=MappingProxyType(shown), totals=totals)
    return Added(text, new, tokens(text), tuple(left_out), MappingProxyType(before), totals_before)


def _pack(
    blocks: Sequence[str], budget: int, chars: int | None, keep_tokens: int, keep_chars: int
) -> set[int]:
    """Indexes of the blocks that fit, in order, leaving ``keep_*`` free."""
    used_tokens = keep_tokens
    used_chars = keep_chars + 1  # the closing newline
    kept: set[int] = set()
    for i, block in enumerate(blocks):
        cost_tokens = tokens(block) + 1  # and the blank line between blocks
        cost_chars = inline_size(block) + 2
        if used_tokens + cost_tokens > budget:
            continue
        if chars is not None and used_chars + cost_chars > chars:
            continue
        used_tokens += cost_tokens
        used_chars += cost_chars
        kept.add(i)
    return kept


VALUE: Mapping[Kind, int] = {
    "conventions": 0,
    "static": 1,
    "git_status": 2,
    "file_tree": 3,
    "scoped_docs": 4,
    "dynamic": 5,
}
"""What comes first when not everything fits (the module's docstring says why)."""
SKILLS_LABEL = "skills"
"""Repo conventions' skills catalog: last of all."""


def value(piece: Piece) -> int:
    if piece.kind == "conventions" and piece.label == SKILLS_LABEL:
        return len(VALUE)
    return VALUE[piece.kind]


def _room(room: Room | int) -> Room:
    return room if isinstance(room, Room) else Room(room)


def session_start(memory: Memory, pieces: Sequence[Piece], own: Own, room: Room | int) -> Added:
    """Everything the client lacks, for a session that starts with an empty transcript
    (a new one, or one cleared or compacted): what it was shown before is forgotten."""
    fresh = Memory(files=memory.files)
    pieces = [p for p in pieces if p.label != INDEX_LABEL]
    theirs = [p for p in pieces if own(p)]
    chosen = sorted(_distinct(p for p in pieces if p not in theirs), key=value)
    fits = _room(room)
    return _fit(fresh, [(p, "") for p in chosen], fits, fits.tokens, theirs)


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


def prompt(memory: Memory, pieces: Sequence[Piece], own: Own, room: Room | int) -> Added:
    """What session start could not carry (within the start budget: it is session-start
    context, late) and what changed since it was shown; scoped docs wait for the files
    they govern."""
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
        elif piece.same_as(before):
            continue
        chosen.append((piece, _changed_lead(piece, before)))
    fits = _room(room)
    late = any(memory.shown.get(p.key) is None for p, _ in chosen)
    budget = max(fits.tokens, fits.start_tokens) if late else fits.tokens
    chosen.sort(key=lambda item: value(item[0]))
    return _fit(memory, chosen, fits, budget, theirs)


def after_tool(memory: Memory, pieces: Sequence[Piece], own: Own, room: Room | int) -> Added:
    """The scoped docs not shown yet in this session (or edited since)."""
    chosen = []
    theirs = []
    texts = {text_of(mark) for mark in memory.shown.values()}
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
        if not piece.same_as(before):
            chosen.append((piece, _changed_lead(piece, before)))
            texts.add(text)
    fits = _room(room)
    return _fit(memory, chosen, fits, fits.tokens, theirs)


def added(
    event: Event, memory: Memory, pieces: Sequence[Piece], own: Own, room: Room | int
) -> Added:
    """The event's addition: a resumed session that this process remembers is spoken to
    like a new prompt (its transcript still holds what it was shown)."""
    if event == "start" or (event == "resume" and not memory.started):
        return session_start(memory, pieces, own, room)
    if event in ("prompt", "resume"):
        return prompt(memory, pieces, own, room)
    return after_tool(memory, pieces, own, room)
