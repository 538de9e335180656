"""Active docs into labelled sections: fitted to the budget, with an index of the rest.

Priority is display order (:mod:`priority` decides it: the files in hand's
docs first). The fitter keeps the longest prefix of whole blocks, so the
last docs go first and a doc too big to fit whole is cut between its sections.
Whatever is left out is named in a closing index section (path and the
pattern that matched) so the model can read it on demand; rules that could
not be used get one line each there too.

Two passes. First every dropped doc must be named: docs are kept while the
docs plus the full index fit. When even the index of everything does not
fit (many small docs, a small budget), docs are kept within two thirds of
the budget against a one-line count, and the index gets the tokens left,
line by line, most specific first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from providers.core.budget import Fit, TokenCounter, fit
from providers.core.left_out import left_out_header, left_out_line
from providers.core.section_text import (
    ALWAYS_APPLIES,
    SCOPED_DOCS_INDEX,
    applies_to,
    doc_label,
)
from providers.core.types import Section, Stability, Unit
from providers.rules.load import Problem, Rule
from providers.scoped_docs.activation import Activation

INDEX_LABEL = SCOPED_DOCS_INDEX
ALWAYS_WHY = ALWAYS_APPLIES
HOW_TO_READ = "read the file when you need it"
OVER_LIMIT_HEADER = "[More scoped docs apply than max_docs allows; read them when you need them:]"
RETIRED_HEADER = "[Scoped docs for files touched earlier; read them when you need them:]"
PROBLEMS_HEADER = "[Scoped docs not applied:]"
INDEX_SHARE = 3
"""When the whole index cannot fit, at least 1/INDEX_SHARE of the budget goes to it."""


@dataclass(frozen=True)
class Entry:
    """One doc to show: ``why`` goes in its label, ``brief`` in the index when left out."""

    rule: Rule
    why: str = ALWAYS_WHY
    brief: str = ALWAYS_WHY

    @property
    def label(self) -> str:
        return doc_label(self.rule.path, self.why)


def catalog_line(rule: Rule, why: str) -> str:
    """What the index says of a doc it names: why it applies, what it is, its size,
    in one short line (``via "src/**"; Auth rules; ~120 tokens``)."""
    parts = [why, rule.title, f"~{rule.tokens:,} tokens"]
    return "; ".join(p for p in parts if p)


def always_entry(rule: Rule) -> Entry:
    return Entry(rule, ALWAYS_WHY, catalog_line(rule, ALWAYS_WHY))


def entry_for(rule: Rule, activation: Activation) -> Entry:
    pattern = activation.match.written
    brief = catalog_line(rule, f'via "{pattern}"')
    return Entry(rule, applies_to(activation.touched, pattern), brief)


@dataclass(frozen=True)
class Listed:
    """One line of the index under a header of its own (rules the model may ask for,
    patterns that match nothing): told, never shown as a doc."""

    header: str
    line: str


UNFINISHED_HEADER = "[Not done this turn (out of time); the next turn goes on:]"
ON_REQUEST_HEADER = "[Rules to read when the task fits their description:]"
UNMATCHED_HEADER = "[Rule patterns that match no file in the repository (a typo?):]"


def on_request(rule: Rule) -> Listed:
    return Listed(ON_REQUEST_HEADER, f"- {rule.path}: {catalog_line(rule, '')}")


BROKEN_HEADER = "[Rules whose front matter is broken, applied as their own tool applies them:]"


def broken(rule: Rule) -> Listed:
    return Listed(BROKEN_HEADER, f"- {rule.broken}")


def unmatched(rule: str, pattern: str) -> Listed:
    return Listed(UNMATCHED_HEADER, f'- {rule}: "{pattern}"')


def build_sections(
    entries: Sequence[Entry],
    problems: Sequence[Problem],
    budget: int,
    counter: TokenCounter,
    max_docs: int | None = None,
    retired: Sequence[Entry] = (),
    listed: Sequence[Listed] = (),
    unfinished: Sequence[Listed] = (),
) -> tuple[Section, ...]:
    """Sections for ``entries`` whose token counts sum to at most ``budget``; ``retired``
    docs and ``listed`` lines are only named in the index; ``unfinished`` (work the
    turn had no time for) opens it, so no budget cuts it."""
    if budget <= 0 or not (entries or problems or retired or listed or unfinished):
        return ()
    limit = len(entries) if max_docs is None else max_docs
    plan = _Plan(entries[:limit], entries[limit:], problems, retired, listed, unfinished)
    named = fit(plan.units, budget, plan.write_named, counter)
    if named is not None:
        return plan.sections(named)
    # Not even every name fits: docs get two thirds, the index what is left.
    counted = fit(plan.units, budget - budget // INDEX_SHARE, plan.write_counted, counter)
    if counted is None:
        docs: tuple[Section, ...] = ()
        kept: Sequence[Unit] = ()
        dropped: Sequence[Unit] = plan.units
    else:
        kept, dropped = counted.kept, counted.dropped
        docs = plan.sections(counted)[: len(plan.groups(kept))]
    spare = budget - sum(s.tokens for s in docs)
    index = plan.fit_index(kept, dropped, spare, counter)
    return (*docs, index) if index is not None else docs


@dataclass(frozen=True)
class _Retired:
    """A doc whose scope no recent turn touched: named in the index, not shown."""

    entry: Entry


_IndexItem = Unit | Entry | _Retired | Problem | Listed


def _header_and_line(item: _IndexItem) -> tuple[str, str]:
    """The index block ``item`` belongs to (its header) and its line there."""
    if isinstance(item, Unit):
        names = [item.name] if item.name else []
        return left_out_header(HOW_TO_READ), left_out_line(item.group, names)
    if isinstance(item, Entry):
        return OVER_LIMIT_HEADER, f"- {item.rule.path}: {item.brief}"
    if isinstance(item, _Retired):
        return RETIRED_HEADER, f"- {item.entry.rule.path}: {item.entry.brief}"
    if isinstance(item, Problem):
        return PROBLEMS_HEADER, f"- {item.note}"
    return item.header, item.line


def _with_more(text: str, more: int) -> str:
    """The index text, closed by how many lines did not fit (``""`` for an empty one)."""
    if more:
        line = f"[{more} more scoped docs or notes not listed: over the token budget]"
        text = f"{text}\n\n{line}" if text else line
    return text + "\n" if text else ""


class _Plan:
    """The units of the shown docs and the texts any kept prefix of them gives."""

    def __init__(
        self,
        shown: Sequence[Entry],
        over_limit: Sequence[Entry],
        problems: Sequence[Problem],
        retired: Sequence[Entry] = (),
        listed: Sequence[Listed] = (),
        unfinished: Sequence[Listed] = (),
    ) -> None:
        self.listed = tuple(listed)
        self.unfinished = tuple(unfinished)
        self.over_limit = over_limit
        self.retired = tuple(_Retired(e) for e in retired)
        self.problems = sorted(problems, key=lambda p: p.path)
        self.by_path = {e.rule.path: e for e in shown}
        self.sizes: dict[str, int] = {}
        self.units: list[Unit] = []
        for entry in shown:
            self.sizes[entry.rule.path] = len(entry.rule.units)
            self.units.extend(entry.rule.units)

    # -- docs -------------------------------------------------------------

    def groups(self, kept: Sequence[Unit]) -> list[tuple[str, list[Unit]]]:
        groups: dict[str, list[Unit]] = {}
        for unit in kept:
            groups.setdefault(unit.group, []).append(unit)
        return list(groups.items())

    def _doc_texts(self, kept: Sequence[Unit]) -> list[str]:
        return [
            self.by_path[path].rule.text
            if len(units) == self.sizes[path]
            else "".join(u.text for u in units).rstrip("\n") + "\n"
            for path, units in self.groups(kept)
        ]

    def sections(self, fitted: Fit) -> tuple[Section, ...]:
        """Label ``fitted``'s texts: one per kept doc, then the index if there is one."""
        rows = [
            (self.by_path[path].label, len(units) < self.sizes[path])
            for path, units in self.groups(fitted.kept)
        ]
        rows.append((INDEX_LABEL, False))
        return tuple(
            Section(label, text, tokens, Stability.DYNAMIC, truncated)
            for (label, truncated), text, tokens in zip(
                rows, fitted.texts, fitted.counts, strict=False
            )
        )

    # -- the index --------------------------------------------------------

    def _left_out(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> list[Unit]:
        """One entry per dropped doc (its brief) or cut doc (where the cut is)."""
        partial = {u.group for u in kept}
        left_out: list[Unit] = []
        named: set[str] = set()
        for unit in dropped:
            if unit.group in named:
                continue
            named.add(unit.group)
            if unit.group in partial:
                where = f"the rest, from {unit.name}" if unit.name else "the rest"
                left_out.append(Unit("", unit.group, where))
            else:
                left_out.append(Unit("", unit.group, self.by_path[unit.group].brief))
        return left_out

    def _items(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> list[_IndexItem]:
        return [
            *self.unfinished,
            *self._left_out(kept, dropped),
            *self.over_limit,
            *self.retired,
            *self.problems,
            *self.listed,
        ]

    @staticmethod
    def _index_prefixes(items: Sequence[_IndexItem]) -> tuple[str, list[int]]:
        """The index of ``items`` (without its final newline) and, for each k, where the
        index of the first k ends in it. Items come grouped by block (left out, over the
        limit, retired, not applied, listed), so the index of a prefix is a prefix of
        the text: the fitter's candidates are cuts of one text, not texts written anew."""
        parts: list[str] = []
        cuts = [0]
        length = 0
        header = None
        for item in items:
            item_header, line = _header_and_line(item)
            if item_header != header:
                piece = ("\n\n" if parts else "") + item_header + "\n" + line
                header = item_header
            else:
                piece = "\n" + line
            parts.append(piece)
            length += len(piece)
            cuts.append(length)
        return "".join(parts), cuts

    @classmethod
    def _index_text(cls, items: Sequence[_IndexItem], more: int) -> str:
        return _with_more(cls._index_prefixes(items)[0], more)

    def write_named(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        return (*self._doc_texts(kept), self._index_text(self._items(kept, dropped), 0))

    def write_counted(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        return (*self._doc_texts(kept), self._index_text((), len(self._items(kept, dropped))))

    def fit_index(
        self, kept: Sequence[Unit], dropped: Sequence[Unit], budget: int, counter: TokenCounter
    ) -> Section | None:
        """The index alone within ``budget``: as many lines as fit, then how many more."""
        items = self._items(kept, dropped)
        if not items:
            return None
        lines = [Unit("", "", "", order=i) for i in range(len(items))]
        full, cuts = self._index_prefixes(items)

        def write(shown: Sequence[Unit], rest: Sequence[Unit]) -> tuple[str, ...]:
            return (_with_more(full[: cuts[len(shown)]], len(rest)),)

        fitted = fit(lines, budget, write, counter)
        if fitted is None:
            return None
        return Section(INDEX_LABEL, fitted.texts[0], fitted.counts[0], Stability.DYNAMIC)
