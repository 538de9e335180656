"""Active docs into labelled sections: ordered, fitted to the budget, with an index of the rest.

Priority is display order: always-on docs first (by path), then activated
docs from most to least specific (see ``globs.specificity``), ties by path.
The fitter keeps the longest prefix of whole blocks, so the least specific
docs go first and a doc too big to fit whole is cut between its sections.
Whatever is left out is named in a closing index section (path and the
pattern that matched) so the model can read it on demand; rules that could
not be used get one line each there too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from providers.core.budget import TokenCounter, fit
from providers.core.markdown import split_units
from providers.core.render import join_blocks, left_out_note
from providers.core.types import Section, Stability, Unit
from providers.scoped_docs.activation import Activation
from providers.scoped_docs.rules import Problem, Rule

INDEX_LABEL = "scoped docs index"
ALWAYS_WHY = "always applies"
HOW_TO_READ = "read the file when you need it"


@dataclass(frozen=True)
class Entry:
    """One doc to show, with the reason it applies."""

    rule: Rule
    why: str

    @property
    def label(self) -> str:
        return f"{self.rule.path} ({self.why})"


def why(activation: Activation) -> str:
    return f'applies to {activation.touched} via "{activation.match.written}"'


def order_entries(
    always: Sequence[Rule], active: Mapping[str, Activation], rules: Mapping[str, Rule]
) -> list[Entry]:
    """Always-on first by path; then most specific first, ties by path."""
    entries = [Entry(rule, ALWAYS_WHY) for rule in sorted(always, key=lambda r: r.path)]
    ranked = sorted(
        (a for a in active.values() if a.rule in rules),
        key=lambda a: (tuple(-x for x in a.specificity), a.rule),
    )
    entries.extend(Entry(rules[a.rule], why(a)) for a in ranked)
    return entries


def build_sections(
    entries: Sequence[Entry],
    problems: Sequence[Problem],
    budget: int,
    counter: TokenCounter,
    max_docs: int | None = None,
) -> tuple[Section, ...]:
    """Sections for ``entries`` whose token counts sum to at most ``budget``."""
    if budget <= 0 or (not entries and not problems):
        return ()
    limit = len(entries) if max_docs is None else max_docs
    shown, over_limit = list(entries[:limit]), list(entries[limit:])
    plan = _Plan(shown, over_limit, problems)
    fitted = fit(plan.units, budget, plan.render, counter)
    if fitted is None:
        return _fallback(plan, budget, counter)
    layout = plan.layout(fitted.kept, fitted.dropped)
    return tuple(
        Section(label, text, tokens, Stability.DYNAMIC, truncated)
        for (label, truncated), text, tokens in zip(
            layout, fitted.texts, fitted.counts, strict=True
        )
    )


class _Plan:
    """The units of the shown docs and how any kept prefix of them renders."""

    def __init__(
        self, shown: Sequence[Entry], over_limit: Sequence[Entry], problems: Sequence[Problem]
    ) -> None:
        self.shown = shown
        self.over_limit = over_limit
        self.problems = sorted(problems, key=lambda p: p.path)
        self.by_path = {e.rule.path: e for e in shown}
        self.sizes: dict[str, int] = {}
        units: list[Unit] = []
        for entry in shown:
            pieces = split_units(entry.rule.text, entry.rule.path) or [
                Unit(entry.rule.text, entry.rule.path)
            ]
            self.sizes[entry.rule.path] = len(pieces)
            units.extend(pieces)
        self.units = units

    def _groups(self, kept: Sequence[Unit]) -> list[tuple[str, list[Unit]]]:
        groups: dict[str, list[Unit]] = {}
        for unit in kept:
            groups.setdefault(unit.group, []).append(unit)
        return list(groups.items())

    def layout(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> list[tuple[str, bool]]:
        """(label, truncated) per text ``render`` returns non-empty, in the same order."""
        rows = [
            (self.by_path[path].label, len(units) < self.sizes[path])
            for path, units in self._groups(kept)
        ]
        if self._index(kept, dropped):
            rows.append((INDEX_LABEL, False))
        return rows

    def render(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        texts = [
            self.by_path[path].rule.text
            if len(units) == self.sizes[path]
            else "".join(u.text for u in units)
            for path, units in self._groups(kept)
        ]
        texts.append(self._index(kept, dropped))
        return tuple(texts)

    def _index(self, kept: Sequence[Unit], dropped: Sequence[Unit]) -> str:
        partial = {u.group for u in kept}
        left_out: list[Unit] = []
        whole: set[str] = set()
        for unit in dropped:
            if unit.group in partial:
                left_out.append(Unit("", unit.group, unit.name or "the rest"))
            elif unit.group not in whole:
                whole.add(unit.group)
                left_out.append(Unit("", unit.group, self.by_path[unit.group].why))
        blocks = [left_out_note(left_out, how_to_read=HOW_TO_READ)]
        if self.over_limit:
            lines = ["[More scoped docs apply than max_docs allows; read them when you need them:]"]
            lines.extend(f"- {e.label}" for e in self.over_limit)
            blocks.append("\n".join(lines))
        if self.problems:
            lines = ["[Scoped docs not applied:]"]
            lines.extend(f"- {p.note}" for p in self.problems)
            blocks.append("\n".join(lines))
        return join_blocks(blocks)


def _fallback(plan: _Plan, budget: int, counter: TokenCounter) -> tuple[Section, ...]:
    """Nothing fits with the full index: a one-line count, or nothing at all."""
    docs = len(plan.shown) + len(plan.over_limit)
    parts = []
    if docs:
        parts.append(f"{docs} scoped docs apply but do not fit the token budget")
    if plan.problems:
        parts.append(f"{len(plan.problems)} could not be applied")
    text = "[" + "; ".join(parts) + "]\n"
    tokens = counter.count(text)
    if tokens > budget:
        return ()
    return (Section(INDEX_LABEL, text, tokens, Stability.DYNAMIC, truncated=bool(docs)),)
