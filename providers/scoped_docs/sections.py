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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

from providers.core.budget import Fit, TokenCounter, fallback_tokens_for_bytes, fit
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

    @cached_property
    def index_piece(self) -> str:
        """Its line in the index (over the limit, or retired), newline first: written once
        per entry, which the ranking keeps between turns."""
        return f"\n- {self.rule.path}: {self.brief}"


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
    named = fit(plan.units, budget, plan.write_named, counter) if plan.may_name(budget) else None
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


@dataclass
class _Run:
    """Consecutive index lines under one header; each piece is a newline and a line."""

    header: str
    pieces: list[str]

    @cached_property
    def body(self) -> str:
        return "".join(self.pieces)


def _grouped(pairs: Iterable[tuple[str, str]]) -> list[_Run]:
    """(header, line) pairs as runs: a new run wherever the header changes."""
    runs: list[_Run] = []
    for header, line in pairs:
        if runs and runs[-1].header == header:
            runs[-1].pieces.append("\n" + line)
        else:
            runs.append(_Run(header, ["\n" + line]))
    return runs


def _joined(runs: Iterable[_Run]) -> list[_Run]:
    """``runs`` without empty ones, neighbours under the same header made one."""
    found: list[_Run] = []
    for run in runs:
        if not run.pieces:
            continue
        if found and found[-1].header == run.header:
            found[-1] = _Run(run.header, [*found[-1].pieces, *run.pieces])
        else:
            found.append(run)
    return found


def _text(runs: Sequence[_Run]) -> str:
    """The index of ``runs`` (without its final newline): each header, then its lines."""
    return "\n\n".join(run.header + run.body for run in runs)


def _text_and_cuts(runs: Sequence[_Run]) -> tuple[str, list[int]]:
    """:func:`_text` and, for each k, where the index of the first k lines ends in it.
    The index of a prefix is a prefix of the text: the fitter's candidates are cuts of
    one text, not texts written anew."""
    cuts = [0]
    for i, run in enumerate(runs):
        start = cuts[-1] + (2 if i else 0) + len(run.header)
        ends = accumulate(map(len, run.pieces), initial=start)
        next(ends)
        cuts.extend(ends)
    return _text(runs), cuts


_LINE = Unit("")
"""One index line, as the fitter sees it: only how many are kept matters."""


def _more_line(more: int) -> str:
    return f"[{more} more scoped docs or notes not listed: over the token budget]"


def _with_more(text: str, more: int) -> str:
    """The index text, closed by how many lines did not fit (``""`` for an empty one)."""
    if more:
        line = _more_line(more)
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
        self.head = _grouped((item.header, item.line) for item in unfinished)
        """The index's opening lines (work this turn had no time for); then what was
        left out of the docs shown, which depends on the cut; then ``tail``."""
        notes = sorted(problems, key=lambda p: p.path)
        self.tail = [
            _Run(OVER_LIMIT_HEADER, [e.index_piece for e in over_limit]),
            _Run(RETIRED_HEADER, [e.index_piece for e in retired]),
            _Run(PROBLEMS_HEADER, [f"\n- {p.note}" for p in notes]),
            *_grouped((item.header, item.line) for item in listed),
        ]
        self.fixed = len(unfinished) + sum(len(run.pieces) for run in self.tail)
        """How many index lines there are besides what was left out of the docs shown."""
        self.by_path = {e.rule.path: e for e in shown}
        self.sizes: dict[str, int] = {}
        self.units: list[Unit] = []
        for entry in shown:
            self.sizes[entry.rule.path] = len(entry.rule.units)
            self.units.extend(entry.rule.units)
        self.docs_from = [0] * (len(self.units) + 1)
        """Per unit, how many docs have units from it on: how many the index names when
        the cut is there (a doc's units are consecutive)."""
        for i in range(len(self.units) - 1, -1, -1):
            follows = i + 1 < len(self.units) and self.units[i + 1].group == self.units[i].group
            self.docs_from[i] = self.docs_from[i + 1] + (0 if follows else 1)

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

    def may_name(self, budget: int) -> bool:
        """Whether an index naming everything might fit ``budget``: no cut's index is
        shorter than the lines after the docs (a byte a character at least), so when
        those alone are over, no candidate of the first pass is worth writing."""
        return fallback_tokens_for_bytes(sum(len(run.body) for run in self.tail)) <= budget

    def _left_out(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> _Run:
        """One line per dropped doc (its brief) or cut doc (where the cut is)."""
        partial = {u.group for u in kept}
        lines: list[str] = []
        named: set[str] = set()
        for unit in dropped:
            if unit.group in named:
                continue
            named.add(unit.group)
            if unit.group in partial:
                where = f"the rest, from {unit.name}" if unit.name else "the rest"
            else:
                where = self.by_path[unit.group].brief
            lines.append("\n" + left_out_line(unit.group, [where] if where else []))
        return _Run(left_out_header(HOW_TO_READ), lines)

    def _index(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> list[_Run]:
        """The index's runs: work not done, left out, over the limit, retired, not
        applied, listed."""
        return _joined([*self.head, self._left_out(kept, dropped), *self.tail])

    def write_named(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        return (*self._doc_texts(kept), _with_more(_text(self._index(kept, dropped)), 0))

    def write_counted(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        more = self.fixed + self.docs_from[len(kept)]  # each doc left out or cut: one line
        return (*self._doc_texts(kept), _with_more("", more))

    def fit_index(
        self, kept: Sequence[Unit], dropped: Sequence[Unit], budget: int, counter: TokenCounter
    ) -> Section | None:
        """The index alone within ``budget``: as many lines as fit, then how many more."""
        runs = self._index(kept, dropped)
        if not runs:
            return None
        full, cuts = _text_and_cuts(runs)
        lines = [_LINE] * (len(cuts) - 1)  # the fitter only counts them

        def write(shown: Sequence[Unit], rest: Sequence[Unit]) -> tuple[str, ...]:
            return (_with_more(full[: cuts[len(shown)]], len(rest)),)

        def size(k: int) -> int:
            """The fallback count of ``write``'s text for the first ``k`` lines, from
            ``cuts`` alone: one byte a character, so for an ASCII index only."""
            more = len(cuts) - 1 - k
            length = cuts[k] + (len(_more_line(more)) + (2 if cuts[k] else 0) if more else 0)
            return fallback_tokens_for_bytes(length + 1 if length else 0)

        fitted = fit(lines, budget, write, counter, size if full.isascii() else None)
        if fitted is None:
            return None
        return Section(INDEX_LABEL, fitted.texts[0], fitted.counts[0], Stability.DYNAMIC)
