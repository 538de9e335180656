"""Issue 12: every ignore pattern means what git means, case by case against git's verdicts.

``data/gitignore_cases.txt`` holds git's verdicts (``git check-ignore
--no-index -v``) on a corpus drawn from git's own tests (t3070-wildmatch,
t0008-ignores), gitignore(5), the issue, and generated combinations. Our
rules must give every verdict; the installed git must still give them too,
so the file cannot silently go stale (regenerate it with
``python -m tests.repository.data.make_gitignore_cases``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from providers.repository.ignore import IgnoreRules
from tests.repository.gitignore_oracle import (
    CASES_FILE,
    Case,
    case_dir,
    content_lines,
    format_case,
    git_verdicts,
    isolated_env,
    parse_cases,
    pattern_set_verdict,
    read_cases,
    rules_verdict,
)

CASES = read_cases()
SAMPLE = CASES[::4]
"""Laid out on disk for git and IgnoreRules: a quarter keeps the tests fast."""


def describe(case: Case, ours: str) -> str:
    return f"{format_case(case)!r}: ours {ours}, git {case.verdict}"


def test_the_case_file_is_a_large_corpus_that_reads_back_as_written() -> None:
    lines = [
        line
        for line in CASES_FILE.read_text(encoding="utf-8").split("\n")
        if line and not line.startswith("#")
    ]
    assert [format_case(case) for case in CASES] == lines
    assert len({case.content for case in CASES}) >= 500, "several hundred ignore files"
    verdicts = {
        verdict: sum(c.verdict == verdict for c in CASES)
        for verdict in ("ignored", "negated", "none")
    }
    assert min(verdicts.values()) >= 30, verdicts  # each kind of answer is well represented


def test_the_field_format_keeps_any_bytes() -> None:
    case = Case(b"#x\\ \t\xff\n!a/", b"sp \\[\x7f\xc3\xa9", True, "negated")
    assert parse_cases(format_case(case)) == [case]
    with pytest.raises(ValueError, match="not a case"):
        parse_cases("a\tb\tfile")


def test_pattern_set_gives_every_recorded_verdict() -> None:
    """PatternSet (our own patterns: config ``exclude``, ``.contextignore``) rooted at the
    case's directory, every case."""
    wrong = []
    for case in CASES:
        ours = pattern_set_verdict(content_lines(case.content), os.fsdecode(case.path), case.is_dir)
        if ours != case.verdict:
            wrong.append(describe(case, ours))
    assert not wrong, f"{len(wrong)} of {len(CASES)} differ from git:\n" + "\n".join(wrong[:30])


def test_ignore_rules_and_the_installed_git_give_the_recorded_verdicts(tmp_path: Path) -> None:
    """The same cases as ``.gitignore`` files on disk, read by IgnoreRules; git re-derives
    its verdicts on the same tree, one ``check-ignore`` for the whole sample."""
    root = tmp_path / "cases"
    verdicts = git_verdicts(root, SAMPLE, isolated_env(tmp_path))
    stale = [
        describe(case, f"now {now}")
        for case, now in zip(SAMPLE, verdicts, strict=True)
        if now != case.verdict
    ]
    assert not stale, "installed git differs from the case file (regenerate it):\n" + "\n".join(
        stale[:30]
    )
    rules = IgnoreRules(root)
    wrong = []
    for index, case in enumerate(SAMPLE):
        rel = case_dir(index) + "/" + os.fsdecode(case.path)
        ours = rules_verdict(rules, rel, case.is_dir)
        if ours != case.verdict:
            wrong.append(describe(case, ours))
    assert not wrong, f"{len(wrong)} of {len(SAMPLE)} differ from git:\n" + "\n".join(wrong[:30])
