"""Ordering, labels, the budget: most specific first, least specific dropped first, never over."""

from __future__ import annotations

import pytest

from providers.core.budget import FallbackCounter
from providers.core.types import Section, Stability
from providers.repository.sources import FileKey
from providers.rules.glob_match import GlobMatch
from providers.rules.globs import GlobSet
from providers.rules.load import Problem, Rule
from providers.scoped_docs.activation import Activation, SessionDocs
from providers.scoped_docs.priority import rank
from providers.scoped_docs.sections import (
    INDEX_LABEL,
    OVER_LIMIT_HEADER,
    PROBLEMS_HEADER,
    RETIRED_HEADER,
    Entry,
    build_sections,
)

KEY = FileKey(0, 0, 0, 0)
COUNTER = FallbackCounter()


def glob_rule(path: str, text: str, *patterns: str) -> Rule:
    return Rule(path, "cursor", text, KEY, globs=GlobSet(patterns))


def nested(path: str, text: str) -> Rule:
    return Rule(path, "nested", text, KEY, subtree=path.rsplit("/", 1)[0])


def activate(rule: Rule, touched: str) -> Activation:
    found = rule.match(touched)
    assert found is not None
    return Activation(rule.path, touched, found)


def order_entries(
    always: list[Rule], active: dict[str, Activation], rules: dict[str, Rule]
) -> list[Entry]:
    """The provider's order for one turn that touched every activation's path."""
    session = SessionDocs()
    session.turn = 1
    session.fresh = tuple(dict.fromkeys(a.touched for a in active.values()))
    session.active = dict(active)
    session.last_turn = dict.fromkeys(active, 1)
    for path in session.fresh:
        matches = ((r, rules[r].match(path)) for r in active)
        session.in_hand[path] = {r: m for r, m in matches if m is not None}
    return list(rank(session, rules, always).entries)


def test_order_is_the_files_docs_most_specific_first_then_always() -> None:
    always_b = Rule(".clinerules/b.md", "cline", "B\n", KEY, always=True)
    always_a = Rule(".clinerules/a.md", "cline", "A\n", KEY, always=True)
    broad = glob_rule(".cursor/rules/py.mdc", "py\n", "**/*.py")
    deep = nested("src/auth/AGENTS.md", "auth\n")
    shallow = nested("src/AGENTS.md", "src\n")
    narrow = glob_rule(".cursor/rules/login.mdc", "login\n", "src/auth/login.py")
    rules = {r.path: r for r in (broad, deep, shallow, narrow)}
    touched = "src/auth/login.py"
    active = {r.path: activate(r, touched) for r in rules.values()}
    entries = order_entries([always_b, always_a], active, rules)
    assert [e.rule.path for e in entries] == [
        ".cursor/rules/login.mdc",
        "src/auth/AGENTS.md",
        "src/AGENTS.md",
        ".cursor/rules/py.mdc",
        ".clinerules/b.md",
        ".clinerules/a.md",
    ]
    assert entries[4].label == ".clinerules/b.md (always applies)"
    assert entries[1].label == 'src/auth/AGENTS.md (applies to src/auth/login.py via "src/auth/**")'


def test_round_robin_follows_the_files_in_hand_and_ties_go_by_path() -> None:
    rules = {p: nested(p, "x\n") for p in ("b/AGENTS.md", "a/AGENTS.md")}
    active = {
        "b/AGENTS.md": Activation("b/AGENTS.md", "b/x", GlobMatch("b/**", "b/**")),
        "a/AGENTS.md": Activation("a/AGENTS.md", "a/x", GlobMatch("a/**", "a/**")),
    }
    assert [e.rule.path for e in order_entries([], active, rules)] == ["b/AGENTS.md", "a/AGENTS.md"]
    both = {p: glob_rule(p, "x\n", "**/x") for p in ("d.mdc", "c.mdc")}
    active = {p: activate(r, "k/x") for p, r in both.items()}
    assert [e.rule.path for e in order_entries([], active, both)] == ["c.mdc", "d.mdc"]


def docs(count: int, size: int) -> list[Rule]:
    # Deeper directories come first in priority: d0 is the most specific.
    made = []
    for i in range(count):
        depth = "/".join(f"p{j}" for j in range(count - i))
        made.append(nested(f"{depth}/AGENTS.md", f"# doc {i}\n\n" + f"word{i} " * size + "\n"))
    return made


def entries_for(rules: list[Rule]) -> list[Entry]:
    deepest = rules[0].subtree
    assert deepest is not None
    touched = deepest + "/file.py"
    active = {r.path: activate(r, touched) for r in rules}
    return order_entries([], active, {r.path: r for r in rules})


def visible(sections: tuple[Section, ...], entries: list[Entry]) -> tuple[bool, int]:
    """(every doc shown or named, characters of doc text shown)."""
    labels = {s.label for s in sections}
    index = "".join(s.text for s in sections if s.label == INDEX_LABEL)
    named = all(e.label in labels or f"- {e.rule.path}: " in index for e in entries)
    return named, sum(len(s.text) for s in sections if s.label != INDEX_LABEL)


def test_every_budget_is_respected_and_more_budget_never_shows_less() -> None:
    """Self-truncation/summarization to fit token_budget MUST (context-conformance.md).

    Below the budget where every doc can at least be named, docs are kept
    against a count line; from there on every dropped doc is named. Within
    each regime, more budget never shows less doc text, and the switch
    happens once.
    """
    entries = entries_for(docs(5, 40))
    problems = [Problem(".cursor/rules/x.mdc", ".cursor/rules/x.mdc: not applied, bad YAML")]
    full = build_sections(entries, problems, 100_000, COUNTER)
    total = sum(s.tokens for s in full)
    previous = (False, -1)
    for budget in range(1, total + 2):
        sections = build_sections(entries, problems, budget, COUNTER)
        assert sum(s.tokens for s in sections) <= budget
        for section in sections:
            assert section.tokens == COUNTER.count(section.text)
            assert section.stability is Stability.DYNAMIC
            assert section.label
        now = visible(sections, entries)
        assert now[0] >= previous[0], budget  # once all named, always all named
        if now[0] == previous[0]:
            assert now[1] >= previous[1], budget
        previous = now
    assert previous[0]
    assert sections == full


def test_dropped_docs_are_named_in_the_index_least_specific_first() -> None:
    entries = entries_for(docs(4, 80))
    full = build_sections(entries, [], 100_000, COUNTER)
    assert [s.label for s in full] == [e.label for e in entries]
    budget = sum(s.tokens for s in full[:2]) + 120
    sections = build_sections(entries, [], budget, COUNTER)
    assert sum(s.tokens for s in sections) <= budget
    labels = [s.label for s in sections]
    assert labels[-1] == INDEX_LABEL
    shown = labels[:-1]
    assert shown == [e.label for e in entries[: len(shown)]]  # a prefix: most specific kept
    assert 2 <= len(shown) < len(entries)
    index = sections[-1].text
    for entry in entries[len(shown) :]:
        assert entry.rule.path in index
        assert f"- {entry.rule.path}: {entry.brief}" in index  # path + the pattern that matched
        assert entry.brief.startswith('via "')


def test_a_huge_doc_is_cut_between_whole_sections() -> None:
    parts = [f"## part {i}\n\n" + f"p{i} " * 60 + "\n" for i in range(10)]
    huge = nested("big/AGENTS.md", "# big\n\n" + "\n".join(parts))
    entries = entries_for([huge])
    sections = build_sections(entries, [], 200, COUNTER)
    assert sum(s.tokens for s in sections) <= 200
    doc = sections[0]
    assert doc.label == entries[0].label and doc.truncated
    assert huge.text.startswith(doc.text)  # a prefix of whole blocks, byte-exact
    assert doc.text.endswith("\n")
    kept = doc.text.count("## part ")
    assert 0 < kept < 10
    assert doc.text.count(f"p{kept - 1} ") == 60  # the last kept section is whole
    index = sections[-1]
    assert index.label == INDEX_LABEL
    assert f"## part {kept}" in index.text  # the first section left out is named
    assert "big/AGENTS.md" in index.text


def test_max_docs_names_the_rest_in_the_index() -> None:
    entries = entries_for(docs(3, 5))
    sections = build_sections(entries, [], 10_000, COUNTER, max_docs=1)
    assert [s.label for s in sections] == [entries[0].label, INDEX_LABEL]
    for entry in entries[1:]:
        assert f"- {entry.rule.path}: {entry.brief}" in sections[1].text


def test_problems_only_still_get_a_note() -> None:
    problems = [Problem("a.mdc", "a.mdc: not applied, front matter is not valid YAML")]
    sections = build_sections([], problems, 1000, COUNTER)
    assert [s.label for s in sections] == [INDEX_LABEL]
    assert "a.mdc: not applied" in sections[0].text


@pytest.mark.parametrize("budget", [0, -1])
def test_no_budget_no_sections(budget: int) -> None:
    assert build_sections(entries_for(docs(1, 5)), [], budget, COUNTER) == ()


def test_nothing_active_nothing_returned() -> None:
    assert build_sections([], [], 1000, COUNTER) == ()


def test_when_even_the_index_does_not_fit_it_is_cut_line_by_line() -> None:
    entries = entries_for(docs(12, 400))  # no doc fits in these budgets
    problems = [Problem("x.mdc", "x.mdc: not applied, front matter is not valid YAML")]
    sizes = []
    for budget in range(1, 200):
        sections = build_sections(entries, problems, budget, COUNTER)
        assert sum(s.tokens for s in sections) <= budget
        if sections:
            assert [s.label for s in sections] == [INDEX_LABEL]
            sizes.append(sections[0].text.count("\n- "))
    assert sizes and sizes == sorted(sizes)  # more budget, more lines
    text = build_sections(entries, problems, 100, COUNTER)[0].text
    assert text.startswith("[Left out to fit the token budget")
    assert f"- {entries[0].rule.path}: {entries[0].brief}" in text  # most specific named first
    assert f"- {entries[-1].rule.path}: " not in text
    assert "more scoped docs or notes not listed: over the token budget" in text


def test_small_docs_are_kept_against_a_count_when_the_index_cannot_be_whole() -> None:
    entries = entries_for(docs(12, 3))
    full = build_sections(entries, [], 100_000, COUNTER)
    budget = sum(s.tokens for s in full[:4]) + 30
    sections = build_sections(entries, [], budget, COUNTER)
    assert sum(s.tokens for s in sections) <= budget
    shown = [s.label for s in sections[:-1]]
    assert shown == [e.label for e in entries[: len(shown)]]
    assert len(shown) >= 3
    assert sections[-1].label == INDEX_LABEL
    assert "not listed: over the token budget" in sections[-1].text


def test_the_index_of_a_prefix_is_a_prefix_of_the_whole_index() -> None:
    """fit_index renders the index once and cuts it: each kind of line sits under its
    own header, once, and every cut ends exactly after that many items' lines."""
    from providers.core.left_out import left_out_header, left_out_line
    from providers.scoped_docs.sections import (
        HOW_TO_READ,
        Listed,
        _joined,
        _Plan,
        _Run,
        _text_and_cuts,
        _with_more,
    )

    docs = [
        glob_rule(f".cursor/rules/r{i}.mdc", f"# R{i}\n\nbody {i}\n", f"p{i}/**") for i in range(4)
    ]
    shown = [Entry(r, "why", f'via "p/**"; R; ~{i} tokens') for i, r in enumerate(docs)]
    retired = [Entry(docs[0], "old", "via x; not needed for 3+ turns")]
    problems = [Problem(".cursor/rules/bad.mdc", ".cursor/rules/bad.mdc: not applied, broken")]
    listed = [Listed("[A:]", "- a"), Listed("[A:]", "- b"), Listed("[B:]", "- c")]
    plan = _Plan(shown[:2], shown[2:], problems, retired, listed)
    cut = _Run(
        left_out_header(HOW_TO_READ), ["\n" + left_out_line(docs[0].path, ["# R0 > ## Part"])]
    )
    runs = _joined([cut, *plan._index(plan.units[:1], plan.units[1:])])
    full, cuts = _text_and_cuts(runs)
    lines = [
        "[Left out to fit the token budget; read the file when you need it:]",
        "- .cursor/rules/r0.mdc: # R0 (## Part)",
        '- .cursor/rules/r1.mdc: via "p/**"; R; ~1 tokens',
        "",
        OVER_LIMIT_HEADER,
        '- .cursor/rules/r2.mdc: via "p/**"; R; ~2 tokens',
        '- .cursor/rules/r3.mdc: via "p/**"; R; ~3 tokens',
        "",
        RETIRED_HEADER,
        "- .cursor/rules/r0.mdc: via x; not needed for 3+ turns",
        "",
        PROBLEMS_HEADER,
        "- .cursor/rules/bad.mdc: not applied, broken",
        "",
        "[A:]",
        "- a",
        "- b",
        "",
        "[B:]",
        "- c",
    ]
    assert full == "\n".join(lines)
    item_lines = [line for line in lines if line.startswith("- ")]
    assert len(cuts) == len(item_lines) + 1
    for k in range(1, len(item_lines) + 1):
        assert full[: cuts[k]].endswith(item_lines[k - 1])
        assert full[cuts[k] : cuts[k] + 1] in ("", "\n")
    assert _with_more(full[: cuts[1]], 2).endswith(
        "\n\n[2 more scoped docs or notes not listed: over the token budget]\n"
    )
