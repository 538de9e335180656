"""Incremental matching: only paths new this turn are matched, and only against inactive rules."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from providers.rules.catalog import Catalog
from providers.rules.dialects import DIALECTS
from providers.rules.glob_match import GlobMatch
from providers.rules.globs import GlobSet
from providers.rules.load import Rule
from providers.scoped_docs.activation import SessionDocs
from providers.scoped_docs.index import RuleIndex
from tests.support.files import CountingReader, make_repo, write

RULES = 40


class CountingGlobs(GlobSet):
    """A rule's own globs, noting every path they are asked about."""

    def __init__(self, globs: GlobSet, asked: list[str]) -> None:
        super().__init__(globs.written, globs.flavour)
        self._asked = asked

    def match(self, path: str) -> GlobMatch | None:
        self._asked.append(path)
        return super().match(path)


def setup(tmp_path: Path, asked: list[str] | None = None) -> tuple[Catalog, RuleIndex]:
    """``RULES`` cline rules; with ``asked``, each notes there the paths matched against it."""
    root = make_repo(tmp_path / "r")
    for i in range(RULES):
        write(
            root, f".clinerules/r{i:02}.md", f'---\npaths: ["pkg{i}/**", "*.x{i}"]\n---\nrule {i}\n'
        )
    catalog = Catalog(root, {".clinerules": DIALECTS["cline"]}, ("AGENTS.md",), CountingReader())
    catalog.scan_rule_dirs()
    if asked is not None:
        for path, rule in catalog.rules.items():
            assert rule.globs is not None
            catalog.rules[path] = replace(rule, globs=CountingGlobs(rule.globs, asked))
    return catalog, RuleIndex(list(catalog.rules.values()))


def test_new_entries_are_those_not_seen_from_that_directory() -> None:
    session = SessionDocs()
    assert session.new_entries("/w", ("a", "b", "a")) == ["a", "b"]
    assert session.new_entries("/w", ("a", "b", "a", "c")) == ["c"]  # appended
    assert session.new_entries("/w", ("c", "d", "b")) == ["d"]  # reordered: full check
    assert session.new_entries("/w", ()) == []
    assert session.new_entries("/w/sub", ("a",)) == ["a"]  # relative to another directory


def test_only_new_paths_are_matched(tmp_path: Path) -> None:
    """Reacting to files_touched for JIT scoping MAY (context-conformance.md); incrementally."""
    asked: list[str] = []
    catalog, index = setup(tmp_path, asked)
    session = SessionDocs()
    first = [f"pkg{i}/m.py" for i in range(10)]
    assert session.touch(first, catalog, index)
    assert set(session.active) == {f".clinerules/r{i:02}.md" for i in range(10)}
    assert 0 < len(asked) <= len(first) * RULES
    asked.clear()

    # The same paths again: nothing is matched at all.
    assert not session.touch(first, catalog, index)
    assert asked == []

    # One new path: matched once against each candidate rule at most (active ones too:
    # the file in hand's own docs are ranked first, issue 13), never the paths seen before.
    assert session.touch([*first, "pkg20/n.py"], catalog, index)
    assert set(asked) == {"pkg20/n.py"} and len(asked) <= RULES
    assert ".clinerules/r20.md" in session.active


def test_the_prefilter_skips_rules_that_cannot_match(tmp_path: Path) -> None:
    asked: list[str] = []
    catalog, index = setup(tmp_path, asked)
    session = SessionDocs()
    session.touch(["elsewhere/file.txt"], catalog, index)
    assert session.active == {}
    assert len(asked) < RULES  # whole buckets were skipped by one regex each


def test_prefilter_never_misses_a_match(tmp_path: Path) -> None:
    catalog, index = setup(tmp_path)
    paths = [f"pkg{i}/a.py" for i in range(RULES)] + [f"deep/dir/f.x{i}" for i in range(RULES)]
    for path in paths:
        expected = {r.path for r in catalog.rules.values() if r.match(path)}
        assert {r.path for r in index.candidates(path)} >= expected, path


def test_activation_keeps_the_first_reason(tmp_path: Path) -> None:
    catalog, index = setup(tmp_path)
    session = SessionDocs()
    session.touch(["pkg3/a.py"], catalog, index)
    session.touch(["pkg3/b.py", "z.x3"], catalog, index)
    activation = session.active[".clinerules/r03.md"]
    assert (activation.touched, activation.match.written) == ("pkg3/a.py", "pkg3/**")


def test_a_changed_rule_is_matched_against_every_seen_path(tmp_path: Path) -> None:
    catalog, index = setup(tmp_path)
    session = SessionDocs()
    session.touch(["late/x.py", "pkg1/a.py"], catalog, index)
    rule = catalog.rules[".clinerules/r05.md"]
    # Same path, new scope (as if edited on disk): r05 now covers late/**.
    catalog.rules[rule.path] = Rule(
        rule.path, "cline", rule.text, rule.key, globs=GlobSet(["late/**"])
    )
    session.pending.add(rule.path)
    assert session.refresh(catalog)
    assert session.active[rule.path].touched == "late/x.py"
    assert not session.refresh(catalog)  # nothing pending any more
