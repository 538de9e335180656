"""The ranking kept between turns (``priority.Ranker``) gives what ranking from scratch
(``priority.rank``) gives, turn after turn: the same request gives the same bytes
(context-conformance.md: a DYNAMIC provider's answer follows the request, not how it was
computed)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.rules.catalog import Catalog
from providers.rules.dialects import DIALECTS
from providers.rules.load import Rule
from providers.scoped_docs.activation import SessionDocs
from providers.scoped_docs.index import RuleIndex
from providers.scoped_docs.priority import Ranked, Ranker, rank
from providers.scoped_docs.sections import build_sections
from tests.support.files import CountingReader, make_repo, write

RULES = 30
AREAS = 12


class CountingRanker(Ranker):
    """A ranker that notes each time it starts from scratch."""

    def __init__(self) -> None:
        super().__init__()
        self.starts = 0

    def _start(
        self, session: SessionDocs, rules: Mapping[str, Rule], always: Sequence[Rule]
    ) -> None:
        self.starts += 1
        super()._start(session, rules, always)


def _repo(tmp_path: Path) -> Catalog:
    root = make_repo(tmp_path / "r")
    for i in range(RULES):
        patterns = [f"pkg{i % AREAS}/**", f"*.x{i % 4}", f"pkg{i % 5}/sub/*.py"][: 1 + i % 3]
        quoted = ", ".join(f'"{p}"' for p in patterns)
        write(root, f".clinerules/r{i:02}.md", f"---\npaths: [{quoted}]\n---\n# Rule {i}\n")
    write(root, ".clinerules/all-a.md", "# Always A\n")
    write(root, ".clinerules/all-b.md", "# Always B\n")
    for directory in ("pkg1", "pkg3/sub", "pkg7"):
        write(root, f"{directory}/AGENTS.md", f"# {directory}\n\nNested.\n")
    catalog = Catalog(root, {".clinerules": DIALECTS["cline"]}, ("AGENTS.md",), CountingReader())
    catalog.scan_rule_dirs()
    return catalog


def _path(rng: random.Random) -> str:
    area = f"pkg{rng.randrange(AREAS + 3)}"
    sub = "/sub" if rng.random() < 0.3 else ""
    return f"{area}{sub}/m{rng.randrange(6)}.{rng.choice(['py', 'x0', 'x1', 'x2', 'md'])}"


@pytest.mark.parametrize("seed", range(6))
def test_the_kept_ranking_is_the_ranking_from_scratch(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    catalog = _repo(tmp_path)
    session = SessionDocs()
    ranker = CountingRanker()
    left_out: set[str] = set()  # as if repo conventions sent these (the provider's copies)
    version: tuple[int, frozenset[str]] | None = None
    rules: dict[str, Rule] = {}
    always: list[Rule] = []
    turns = 150
    for turn in range(turns):
        if rng.random() < 0.05:  # a rule changed on disk: matched again against every path
            session.pending.add(rng.choice(sorted(catalog.rules)))
            session.refresh(catalog)
        if rng.random() < 0.04:
            left_out ^= {rng.choice(sorted(catalog.rules))}
        touched = [_path(rng) for _ in range(rng.choice([0, 1, 1, 1, 2, 4]))]
        index = RuleIndex([r for r in catalog.rules.values() if r.globs is not None])
        session.touch(touched, catalog, index)
        if version != (catalog.version, frozenset(left_out)):  # the provider's _Shown
            version = (catalog.version, frozenset(left_out))
            rules = {p: r for p, r in sorted(catalog.rules.items()) if p not in left_out}
            always = [r for r in rules.values() if r.always]
        kept = ranker.rank(session, rules, always)
        fresh = rank(session, rules, always)
        assert kept == fresh, f"turn {turn}"
        assert ranker.rank(session, rules, always) is kept  # nothing new: the same answer
        for budget in (60, 400):
            assert _sections(kept, budget) == _sections(fresh, budget)
    assert session.turn > turns // 2
    assert ranker.starts < turns // 4  # most turns moved only what changed


def _sections(ranked: Ranked, budget: int) -> object:
    return build_sections(
        ranked.entries, [], budget, FallbackCounter(), max_docs=8, retired=ranked.retired
    )
