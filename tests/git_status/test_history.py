"""Parsing ``git log -z`` output from the real git."""

from __future__ import annotations

from pathlib import Path

from providers.git_status.git import Git
from providers.git_status.history import Commit, parse_log
from tests.git_status.repos import commit_file, git


def test_commits_newest_first_with_git_short_sha(repo: Path) -> None:
    commit_file(repo, "a", "a\n", "subject with ünïcode and  spaces")
    commit_file(repo, "b", "b\n", "third\n\nbody is not shown")
    commits = parse_log(Git("git").log(repo, 5))
    shas = git(repo, "log", "--format=%H %h").split("\n")[:3]
    assert [(c.oid, c.short) for c in commits] == [tuple(line.split()) for line in shas]
    assert [c.subject for c in commits] == [
        "third",
        "subject with ünïcode and  spaces",
        "initial",
    ]


def test_count_limits_and_truncated_records_are_dropped() -> None:
    assert parse_log(b"") == ()
    assert parse_log(b"aaaa\0aa\0one\0bbbb\0bb") == (Commit("aaaa", "aa", "one"),)
