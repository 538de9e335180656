"""The fitter: the budget is a hard invariant (context-data-types.md, Budget mechanics:
"A context provider MUST NOT return a section exceeding its allocated token_budget")."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from providers.core.budget import (
    FallbackCounter,
    fallback_token_count,
    fallback_tokens_for_bytes,
    fit,
)
from providers.core.left_out import left_out_note
from providers.core.types import Unit


def _write(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
    body = "".join(u.text for u in sorted(kept, key=lambda u: u.order))
    return (body + left_out_note(dropped, how_to_read="read the file"),)


class DenseCounter:
    """A tokenizer denser than the local estimate (the kernel may have a real one)."""

    epoch = 0

    def count(self, text: str) -> int:
        return len(text.encode()) // 2 + 1

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


units_strategy = st.lists(
    st.text(min_size=1, max_size=60).map(lambda t: t + "\n"), min_size=0, max_size=25
).map(lambda texts: [Unit(t, group="F.md", name=f"#{i}", order=i) for i, t in enumerate(texts)])


def test_fallback_formula_matches_the_kernel() -> None:
    """wire-contract.md: ceil(total UTF-8 bytes / 4)."""
    assert fallback_token_count("") == 0
    assert fallback_token_count("abcd") == 1
    assert fallback_token_count("abcde") == 2
    assert fallback_token_count("é") == 1  # 2 bytes
    assert [fallback_tokens_for_bytes(n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]


@settings(max_examples=150, deadline=None)
@given(units=units_strategy, budget=st.integers(min_value=1, max_value=400))
def test_recount_never_exceeds_budget(units: list[Unit], budget: int) -> None:
    """Self-truncation to fit token_budget MUST (context-conformance.md matrix)."""
    for counter in (FallbackCounter(), DenseCounter()):
        result = fit(units, budget, _write, counter)
        if result is not None:
            assert sum(counter.count_many(result.texts)) <= budget
            assert result.tokens <= budget
            assert list(result.kept) + list(result.dropped) == units


@settings(max_examples=100, deadline=None)
@given(units=units_strategy, budget=st.integers(min_value=1, max_value=300))
def test_more_budget_never_shows_less(units: list[Unit], budget: int) -> None:
    counter = FallbackCounter()
    smaller = fit(units, budget, _write, counter)
    larger = fit(units, budget + 17, _write, counter)
    kept_small = len(smaller.kept) if smaller else 0
    kept_large = len(larger.kept) if larger else 0
    assert kept_large >= kept_small


def test_whole_units_only_and_note_names_what_is_left_out() -> None:
    units = [
        Unit("## A\n" + "alpha " * 20 + "\n", group="AGENTS.md", name="## A", order=0),
        Unit("## B\n" + "beta " * 30 + "\n", group="AGENTS.md", name="## B", order=1),
    ]
    result = fit(units, 60, _write, FallbackCounter())
    assert result is not None
    assert result.kept == (units[0],)
    assert result.truncated
    text = result.texts[0]
    assert text.startswith(units[0].text)
    assert "beta" not in text
    assert "AGENTS.md: ## B" in text


def test_full_rendering_preferred_when_cheaper_than_a_partial_one() -> None:
    """No closing note when nothing is left out, so "all" can fit where "some" cannot."""
    units = [Unit("a\n", group="F", name="## a", order=0), Unit("b\n", group="F", name="## b")]
    result = fit(units, 2, _write, FallbackCounter())
    assert result is not None
    assert not result.truncated


def test_zero_or_tiny_budget_gives_nothing() -> None:
    units = [Unit("x" * 100, group="F", name="n")]
    assert fit(units, 0, _write, FallbackCounter()) is None
    assert fit(units, 1, _write, FallbackCounter()) is None


def test_everything_kept_when_it_fits() -> None:
    units = [Unit("one\n", order=0), Unit("two\n", order=1)]
    result = fit(units, 100, _write, FallbackCounter())
    assert result is not None
    assert not result.truncated
    assert result.texts == ("one\ntwo\n",)


@settings(max_examples=100, deadline=None)
@given(units=units_strategy, budget=st.integers(min_value=1, max_value=300))
def test_a_known_prefix_estimate_gives_the_same_fit_with_one_rendering(
    units: list[Unit], budget: int
) -> None:
    """A caller that measured every prefix (the file tree's planner) skips the search's
    renderings; the answer is the one the rendering search finds."""
    written: list[int] = []

    def counting_write(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        written.append(len(kept))
        return _write(kept, dropped)

    def prefix_estimate(k: int) -> int:
        return sum(fallback_token_count(t) for t in _write(units[:k], units[k:]) if t)

    searched = fit(units, budget, _write, FallbackCounter())
    known = fit(units, budget, counting_write, FallbackCounter(), prefix_estimate)
    assert known == searched
    assert len(written) <= 1


def test_the_note_writes_each_heading_trail_once_and_says_partly_shown() -> None:
    """Issue 13: a breadcrumb once per file, not once per left-out section (cline's
    cline-overview.md repeated its H1 18 times); a partly shown file is named so."""
    guide = "# Cline Extension Architecture"
    dropped = [Unit("", "overview.md", f"{guide} > ## Section {i}", order=i) for i in range(18)] + [
        Unit("", "other.md", "(whole file)")
    ]
    note = left_out_note(dropped, how_to_read="read them", partly_shown={"overview.md"})
    assert note.count(guide) == 1
    first = note.splitlines()[1]
    assert first.startswith(f"- overview.md (partly shown): {guide} (## Section 0, ## Section 1")
    assert "- other.md: (whole file)" in note
    many = [Unit("", "big.md", f"# Part {i}", order=i) for i in range(40)]
    line = left_out_note(many, how_to_read="read it").splitlines()[1]
    assert line.endswith("# Part 11; and 28 more top-level sections")
