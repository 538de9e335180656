"""The scoped docs provider end to end, on real files: what it loads, why, and when it reads."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.core.errors import ErrorCategory, ProviderError
from providers.core.provider import contribute
from providers.core.section_text import SCOPED_DOCS_INDEX, doc_path
from providers.core.types import AttrType, Stability
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.scoped_docs.sections import INDEX_LABEL
from providers.scoped_docs.settings import DEFAULT_TOKEN_BUDGET
from providers.watch import ChangeWatcher
from tests.scoped_docs.conftest import FeedWatch
from tests.support.files import CountingReader, write
from tests.support.requests import COUNTER, labels, request, texts

AUTH = "src/tasklane/auth/AGENTS.md"
STORAGE = "src/tasklane/storage/CLAUDE.md"


def section(contribution: object, path: str) -> str:
    found = [s for s in contribution.sections if s.label.startswith(path + " (")]  # type: ignore[attr-defined]
    assert len(found) == 1, labels(contribution)
    return str(found[0].text)


# -- capabilities and config ----------------------------------------------


def test_capabilities_declare_dynamic_stability_and_schema() -> None:
    """stability declaration MUST (context-conformance.md): the set changes as files are touched."""
    made = ScopedDocsProvider()
    caps = made.capabilities()
    assert caps.stability is Stability.DYNAMIC
    assert caps.default_token_budget == DEFAULT_TOKEN_BUDGET
    types = {a.name: a.type for a in caps.config_schema}
    assert types == {
        "token_budget": AttrType.NUMBER,
        "provider_name": AttrType.STRING,
        "nested_names": AttrType.LIST_STRING,
        "rule_dirs": AttrType.MAP_STRING,
        "always_apply": AttrType.STRING,
        "max_docs": AttrType.NUMBER,
        "import_allow": AttrType.LIST_STRING,
        "watch": AttrType.BOOL,
    }
    assert made.identity().name == "scoped-docs"


@pytest.mark.parametrize(
    "config",
    [
        {"rule_dirs": {"docs/rules": "vscode"}},
        {"rule_dirs": {"/abs/rules": "generic"}},
        {"rule_dirs": {"../up": "generic"}},
        {"always_apply": "sometimes"},
        {"nested_names": ["sub/AGENTS.md"]},
        {"max_docs": -1},
        {"max_docs": 1.5},
        {"no_such_option": True},
    ],
)
def test_bad_config_is_invalid_request(config: dict[str, object]) -> None:
    with pytest.raises(ProviderError) as caught:
        ScopedDocsProvider().configure(config)
    assert caught.value.category is ErrorCategory.INVALID_REQUEST


def test_budget_zero_returns_nothing(sample: Path, provider: ScopedDocsProvider) -> None:
    assert (
        contribute(
            provider, request(sample, ("src/tasklane/auth/login.py",), budget=0), COUNTER
        ).sections
        == ()
    )


# -- what applies and why -------------------------------------------------


def test_sample_repo_labels_say_why(sample: Path, provider: ScopedDocsProvider) -> None:
    """Section label MUST (context-data-types.md): path and the reason it applies."""
    touched = ("src/tasklane/auth/login.py", "src/tasklane/api/server.py", "scripts/run.sh")
    result = contribute(provider, request(sample, touched), COUNTER)
    # Issue 13: round robin across the files in hand, each one's nearest doc first; then
    # their less specific docs. Always-apply rules are repo conventions' by default.
    assert labels(result) == [
        "src/tasklane/auth/AGENTS.md"
        ' (applies to src/tasklane/auth/login.py via "src/tasklane/auth/**")',
        '.cursor/rules/api.mdc (applies to src/tasklane/api/server.py via "src/tasklane/api/**")',
        '.clinerules/shell.md (applies to scripts/run.sh via "scripts/*.sh")',
        '.cursor/rules/python-style.mdc (applies to src/tasklane/auth/login.py via "**/*.py")',
        INDEX_LABEL,
    ]
    for s in result.sections:
        assert s.stability is Stability.DYNAMIC
        assert s.tokens == COUNTER.count(s.text)
    assert section(result, AUTH) == (sample / AUTH).read_text()
    # Issue 28 item 1: what the bridge reads back is what the labels were written with.
    paths = [doc_path(label) for label in labels(result)]
    assert paths[:2] == ["src/tasklane/auth/AGENTS.md", ".cursor/rules/api.mdc"]
    assert labels(result)[-1] == SCOPED_DOCS_INDEX


def test_nested_docs_up_to_but_not_including_the_root(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(repo, "AGENTS.md", "ROOT belongs to repo-conventions\n")
    write(repo, "src/AGENTS.md", "# src\n\nSRC rules\n")
    write(repo, "src/auth/AGENTS.md", "# auth\n\nAUTH rules\n")
    write(repo, "src/other/AGENTS.md", "# other\n\nOTHER rules\n")
    result = contribute(provider, request(repo, ("src/auth/login.py",)), COUNTER)
    assert labels(result) == [
        'src/auth/AGENTS.md (applies to src/auth/login.py via "src/auth/**")',
        'src/AGENTS.md (applies to src/auth/login.py via "src/**")',
    ]
    assert "ROOT" not in "".join(texts(result).values())
    assert "OTHER" not in "".join(texts(result).values())


def test_custom_nested_names(repo: Path, provider: ScopedDocsProvider) -> None:
    write(repo, "lib/RULES.md", "# lib\n\nLIB\n")
    write(repo, "lib/AGENTS.md", "# lib\n\nNOT THIS\n")
    provider.configure({"nested_names": ["RULES.md"]})
    result = contribute(provider, request(repo, ("lib/x.py",)), COUNTER)
    assert labels(result) == ['lib/RULES.md (applies to lib/x.py via "lib/**")']


@pytest.mark.parametrize("mode", ["ours", "leave"])
def test_always_apply_ours_or_leave(sample: Path, provider: ScopedDocsProvider, mode: str) -> None:
    provider.configure({"always_apply": mode})
    result = contribute(provider, request(sample, ("scripts/run.sh",)), COUNTER)
    always = ".cursor/rules/always.mdc (always applies)"
    if mode == "ours":
        assert labels(result)[1] == always  # after the files in hand's own docs
    else:
        assert always not in labels(result)
    assert '.clinerules/shell.md (applies to scripts/run.sh via "scripts/*.sh")' in labels(result)


def test_always_rules_show_before_anything_is_touched(
    sample: Path, provider: ScopedDocsProvider
) -> None:
    provider.configure({"always_apply": "ours"})
    result = contribute(provider, request(sample), COUNTER)
    assert labels(result) == [".cursor/rules/always.mdc (always applies)", INDEX_LABEL]


def test_leave_keeps_the_always_rules_repo_conventions_does_not_read(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    """Issue 13: 'leave' loses nothing. Always rules in the tools' own directories are
    repo conventions'; those of an extra configured directory stay here."""
    write(repo, ".clinerules/general.md", "# General\n\nCLINE GENERAL\n")
    write(repo, "team-rules/style.md", "# Style\n\nTEAM STYLE\n")
    provider.configure({"rule_dirs": {"team-rules": "generic"}})
    shown = texts(contribute(provider, request(repo), COUNTER))
    assert "TEAM STYLE" in shown["team-rules/style.md (always applies)"]
    assert not any("CLINE GENERAL" in text for text in shown.values())
    provider.configure({"rule_dirs": {"team-rules": "generic"}, "always_apply": "ours"})
    shown = texts(contribute(provider, request(repo), COUNTER))
    assert list(shown)[:2] == [
        ".clinerules/general.md (always applies)",
        "team-rules/style.md (always applies)",
    ]


def test_broken_front_matter_is_noted_and_not_applied(
    sample: Path, provider: ScopedDocsProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    result = contribute(provider, request(sample, ("src/tasklane/api/server.py", "x.py")), COUNTER)
    everything = "".join(texts(result).values())
    assert "BROKEN RULE BODY" not in everything
    index = texts(result)[INDEX_LABEL]
    notes = [line for line in index.splitlines() if "broken.mdc" in line]
    assert len(notes) == 1 and "not valid YAML" in notes[0]
    assert any("broken.mdc" in r.getMessage() for r in caplog.records)


def test_configured_rule_dir_with_dialect(repo: Path, provider: ScopedDocsProvider) -> None:
    write(repo, "docs/rules/api.md", '---\napplyTo: "api/**"\n---\nAPI docs rule\n')
    write(repo, ".cursor/rules/x.mdc", "---\nglobs: api/**\n---\nCURSOR\n")
    provider.configure({"rule_dirs": {"docs/rules": "generic", ".cursor/rules": "off"}})
    result = contribute(provider, request(repo, ("api/h.py",)), COUNTER)
    assert labels(result) == ['docs/rules/api.md (applies to api/h.py via "api/**")']


# -- inputs -----------------------------------------------------------------


def test_touched_paths_outside_the_root_are_ignored_and_never_read(
    repo: Path, tmp_path: Path, reader: CountingReader, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "outside"
    write(outside, "AGENTS.md", "OUTSIDE\n")
    write(outside, "sub/AGENTS.md", "OUTSIDE SUB\n")
    write(repo, ".clinerules/all.md", '---\npaths: ["**"]\n---\nEverything rule\n')
    made = ScopedDocsProvider(reader=reader)
    made.configure({"watch": False})
    caplog.set_level(logging.WARNING)
    touched = (str(outside / "sub/x.py"), "../outside/sub/y.py", "")
    result = contribute(made, request(repo, touched), COUNTER)
    assert result.sections == ()
    assert all("outside" not in call for call in reader.calls)
    assert any("outside the repository" in r.getMessage() for r in caplog.records)


def test_relative_paths_resolve_from_the_working_directory(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(repo, "src/auth/AGENTS.md", "# auth\n\nAUTH\n")
    result = contribute(provider, request(repo, ("auth/login.py",), cwd=repo / "src"), COUNTER)
    assert labels(result) == ['src/auth/AGENTS.md (applies to src/auth/login.py via "src/auth/**")']


def test_a_file_not_created_yet_still_activates_rules(
    repo: Path, provider: ScopedDocsProvider
) -> None:
    write(
        repo,
        ".claude/rules/migrations.md",
        '---\npaths: ["db/migrations/*.sql"]\n---\nMIGRATIONS\n',
    )
    write(repo, "db/AGENTS.md", "# db\n\nDB\n")
    result = contribute(provider, request(repo, ("db/migrations/0002_new.sql",)), COUNTER)
    assert not (repo / "db/migrations/0002_new.sql").exists()
    assert labels(result) == [
        ".claude/rules/migrations.md"
        ' (applies to db/migrations/0002_new.sql via "db/migrations/*.sql")',
        'db/AGENTS.md (applies to db/migrations/0002_new.sql via "db/**")',
    ]


def test_symlinked_rule_outside_the_repo_is_refused(
    repo: Path, tmp_path: Path, provider: ScopedDocsProvider
) -> None:
    secret = write(tmp_path, "elsewhere/secret.md", "---\npaths: ['**']\n---\nOUTSIDE SECRET\n")
    (repo / ".claude/rules").mkdir(parents=True)
    os.symlink(secret, repo / ".claude/rules/secret.md")
    result = contribute(provider, request(repo, ("a.py",)), COUNTER)
    assert "OUTSIDE SECRET" not in "".join(texts(result).values())
    assert (
        ".claude/rules/secret.md: not loaded (resolves outside the repository)"
        in texts(result)[INDEX_LABEL]
    )


# -- sessions and turns -----------------------------------------------------


def test_docs_stay_active_and_keep_their_text_across_turns(
    sample: Path, provider: ScopedDocsProvider
) -> None:
    first = contribute(provider, request(sample, ("src/tasklane/auth/login.py",)), COUNTER)
    # The kernel may resend a different list: what was once active stays active, its
    # text byte-identical (its label says which file in hand it applies to now).
    second = contribute(provider, request(sample, ("tests/test_api.py",)), COUNTER)
    by_path = {label.split(" (")[0]: text for label, text in texts(second).items()}
    for label, text in texts(first).items():
        if label != INDEX_LABEL:
            assert by_path[label.split(" (")[0]] == text
    assert any(label.startswith("tests/AGENTS.md") for label in labels(second))
    other = contribute(provider, request(sample, ("tests/test_api.py",), session="s2"), COUNTER)
    assert not any(label.startswith(AUTH) for label in labels(other))


def test_warm_turn_reads_nothing_and_returns_the_same_answer(
    sample: Path, provider: ScopedDocsProvider, reader: CountingReader
) -> None:
    touched = ("src/tasklane/auth/login.py", "src/tasklane/storage/db.py")
    contribute(provider, request(sample, touched), COUNTER)
    assert reader.calls  # turn 1 did read
    # The watch starts after turn 1; the turn that finds it in place re-checks by stat.
    first = contribute(provider, request(sample, touched), COUNTER)
    reader.calls.clear()
    # Deleted behind the watcher's back: a turn that reads nothing cannot notice.
    (sample / AUTH).unlink()
    shutil.rmtree(sample / ".cursor")
    second = contribute(provider, request(sample, touched), COUNTER)
    assert reader.calls == []
    assert second is first


def test_budget_or_model_change_recomputes_without_reading(
    sample: Path, provider: ScopedDocsProvider, reader: CountingReader
) -> None:
    touched = ("src/tasklane/auth/login.py",)
    first = contribute(provider, request(sample, touched), COUNTER)
    reader.calls.clear()
    smaller = contribute(provider, request(sample, touched, budget=60), COUNTER)
    other_model = contribute(provider, request(sample, touched, model="m2"), COUNTER)
    assert reader.calls == []
    assert sum(s.tokens for s in smaller.sections) <= 60
    assert other_model == first and other_model is not first


def test_watched_changes_are_picked_up(
    repo: Path, provider: ScopedDocsProvider, feed: FeedWatch, reader: CountingReader
) -> None:
    rule = write(repo, ".clinerules/api.md", "---\npaths: api/**\n---\nversion one\n")
    contribute(provider, request(repo, ("api/a.py", "lib/b.py")), COUNTER)
    provider.answer_sent()  # as the adapter does: the watch starts once the answer is out
    rule.write_text("---\npaths: api/**\n---\nversion two, longer\n", encoding="utf-8")
    new_rule = write(repo, ".clinerules/lib.md", "---\npaths: lib/**\n---\nlib rule\n")
    nested = write(repo, "api/AGENTS.md", "# api\n\nnested api\n")
    reader.calls.clear()
    feed.push(rule, new_rule, nested)
    result = contribute(provider, request(repo, ("api/a.py", "lib/b.py")), COUNTER)
    assert sorted(reader.calls) == [".clinerules/api.md", ".clinerules/lib.md", "api/AGENTS.md"]
    assert section(result, ".clinerules/api.md") == "version two, longer\n"
    # A rule created mid-session is matched against paths seen in earlier turns.
    assert '.clinerules/lib.md (applies to lib/b.py via "lib/**")' in labels(result)
    assert section(result, "api/AGENTS.md") == "# api\n\nnested api\n"
    rule.unlink()
    feed.push(rule)
    gone = contribute(provider, request(repo, ("api/a.py", "lib/b.py")), COUNTER)
    assert not any(label.startswith(".clinerules/api.md") for label in labels(gone))


def test_without_watching_changes_are_found_by_stat(repo: Path, reader: CountingReader) -> None:
    made = ScopedDocsProvider(reader=reader)
    made.configure({"watch": False})
    rule = write(repo, ".clinerules/api.md", "---\npaths: api/**\n---\none\n")
    contribute(made, request(repo, ("api/a.py",)), COUNTER)
    reader.calls.clear()
    contribute(made, request(repo, ("api/a.py",)), COUNTER)
    assert reader.calls == []
    rule.write_text("---\npaths: api/**\n---\ntwo!\n", encoding="utf-8")
    result = contribute(made, request(repo, ("api/a.py",)), COUNTER)
    assert section(result, ".clinerules/api.md") == "two!\n"


def test_until_the_watch_is_in_place_changes_are_found_by_stat(repo: Path) -> None:
    gate = threading.Event()
    feed = FeedWatch()
    made_watchers: list[ChangeWatcher] = []

    def slow_watch(root: Path, *, stop_event: threading.Event, **kwargs: Any) -> Iterator[Any]:
        gate.wait(10)
        yield from feed(root, stop_event=stop_event, **kwargs)

    def factory(root: Path) -> ChangeWatcher:
        made_watchers.append(ChangeWatcher(root, watch_fn=slow_watch))
        return made_watchers[-1]

    made = ScopedDocsProvider(watcher_factory=factory)  # the cold turn does not wait
    try:
        rule = write(repo, ".clinerules/api.md", "---\npaths: api/**\n---\none\n")
        contribute(made, request(repo, ("api/a.py",)), COUNTER)
        rule.write_text("---\npaths: api/**\n---\ntwo!\n", encoding="utf-8")
        result = contribute(made, request(repo, ("api/a.py",)), COUNTER)
        assert section(result, ".clinerules/api.md") == "two!\n"  # not ready: stat found it
        gate.set()
        assert made_watchers[0].start(timeout=5)
        rule.write_text("---\npaths: api/**\n---\nthree!!\n", encoding="utf-8")
        result = contribute(made, request(repo, ("api/a.py",)), COUNTER)
        assert section(result, ".clinerules/api.md") == "three!!\n"  # the turn it turned ready
        rule.write_text("---\npaths: api/**\n---\nfour!!!!\n", encoding="utf-8")
        feed.push(rule)
        result = contribute(made, request(repo, ("api/a.py",)), COUNTER)
        assert section(result, ".clinerules/api.md") == "four!!!!\n"  # reported by the watcher
    finally:
        made.close()


def test_dead_watcher_falls_back_to_stat(repo: Path, reader: CountingReader) -> None:
    def broken_watch(*_: object, **__: object) -> object:
        raise OSError("no inotify")

    made = ScopedDocsProvider(
        watcher_factory=lambda root: ChangeWatcher(root, watch_fn=broken_watch), reader=reader
    )
    try:
        rule = write(repo, ".clinerules/api.md", "---\npaths: api/**\n---\none\n")
        contribute(made, request(repo, ("api/a.py",)), COUNTER)
        rule.write_text("---\npaths: api/**\n---\ntwo!\n", encoding="utf-8")
        result = contribute(made, request(repo, ("api/a.py",)), COUNTER)
        assert section(result, ".clinerules/api.md") == "two!\n"
    finally:
        made.close()


def test_a_dead_watcher_is_replaced_once_the_answer_is_out(
    repo: Path, reader: CountingReader, caplog: pytest.LogCaptureFixture
) -> None:
    """docs/performance.md: a dead watch is replaced after the next answer (issue 10: for
    all three)."""
    feed = FeedWatch()
    made_watchers: list[ChangeWatcher] = []

    def dies(*_: object, **__: object) -> Iterator[set[tuple[int, str]]]:
        yield set()
        raise RuntimeError("Unable to decode path")

    def factory(root: Path) -> ChangeWatcher:
        made_watchers.append(ChangeWatcher(root, watch_fn=dies if not made_watchers else feed))
        return made_watchers[-1]

    made = ScopedDocsProvider(watcher_factory=factory, reader=reader, watch_start_timeout=5.0)
    try:
        rule = write(repo, ".clinerules/api.md", "---\npaths: api/**\n---\none\n")
        contribute(made, request(repo, ("api/a.py",)), COUNTER)
        made.answer_sent()  # the first watch starts, and dies
        deadline = time.monotonic() + 5
        while made_watchers[0].alive and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not made_watchers[0].alive
        rule.write_text("---\npaths: api/**\n---\ntwo!\n", encoding="utf-8")
        result = contribute(made, request(repo, ("api/a.py",)), COUNTER)  # by stat meanwhile
        assert section(result, ".clinerules/api.md") == "two!\n"
        made.answer_sent()
        assert len(made_watchers) == 2 and made_watchers[1].alive
        assert "starting it again (1 of 3)" in caplog.text
        contribute(made, request(repo, ("api/a.py",)), COUNTER)  # in place: checks once more
        reads = len(reader.calls)
        rule.write_text("---\npaths: api/**\n---\nthree!!\n", encoding="utf-8")
        feed.push(rule)
        result = contribute(made, request(repo, ("api/a.py",)), COUNTER)
        assert section(result, ".clinerules/api.md") == "three!!\n"  # the new watch saw it
        assert reader.calls[reads:] == [".clinerules/api.md"]
    finally:
        made.close()


# -- budget and reporting ---------------------------------------------------


def test_every_budget_is_respected(sample: Path, provider: ScopedDocsProvider) -> None:
    """Self-truncation/summarization to fit token_budget MUST (context-conformance.md)."""
    touched = (
        "src/tasklane/auth/login.py",
        "src/tasklane/storage/db.py",
        "src/tasklane/api/server.py",
        "tests/test_api.py",
        "docs/guide/x.md",
        "scripts/run.sh",
        "web/App.tsx",
    )
    provider.configure({"always_apply": "ours"})
    full = contribute(provider, request(sample, touched, budget=100_000), COUNTER)
    total = sum(s.tokens for s in full.sections)
    for budget in range(1, total + 1):
        result = contribute(provider, request(sample, touched, budget=budget), COUNTER)
        assert sum(s.tokens for s in result.sections) <= budget, budget
    # The last doc in the order (an always-apply rule, after every file in hand's own
    # docs) is the first to go, and is still named.
    last = full.sections[-2]
    assert last.label.startswith(".cursor/rules/always.mdc")
    smaller = contribute(provider, request(sample, touched, budget=total - last.tokens), COUNTER)
    shown = [s.label for s in smaller.sections][:-1]
    assert shown == [s.label for s in full.sections][: len(shown)]  # a prefix: most specific kept
    assert last.label not in shown
    assert "- .cursor/rules/always.mdc: always applies" in texts(smaller)[INDEX_LABEL]


def test_a_huge_doc_is_cut_by_whole_sections(repo: Path, provider: ScopedDocsProvider) -> None:
    parts = [
        f"## Rule {i}\n\n" + f"detail{i} " * 80 + f"\n\n```py\ncode_{i}()\n```\n" for i in range(30)
    ]
    write(repo, "svc/AGENTS.md", "# svc\n\n" + "\n".join(parts))
    write(repo, "svc/api/AGENTS.md", "# api\n\nSmall and specific.\n")
    result = contribute(provider, request(repo, ("svc/api/h.py",), budget=800), COUNTER)
    assert sum(s.tokens for s in result.sections) <= 800
    small, huge, index = result.sections
    assert small.text == "# api\n\nSmall and specific.\n" and not small.truncated
    assert huge.label.startswith("svc/AGENTS.md") and huge.truncated
    kept = huge.text.count("## Rule ")
    assert 0 < kept < 30
    assert huge.text.endswith(f"code_{kept - 1}()\n```\n")  # whole sections only
    assert f"## Rule {kept}" in index.text and "svc/AGENTS.md" in index.text


def test_pattern_matching_nothing_is_reported_once(
    sample_git: Path, provider: ScopedDocsProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="providers.scoped_docs")
    for turn in range(3):
        contribute(provider, request(sample_git, (f"src/tasklane/f{turn}.py",)), COUNTER)
    reports = [r.getMessage() for r in caplog.records if "matches no file" in r.getMessage()]
    # sample_repo has no TypeScript and no docs/**/*.md ... only what is really missing.
    assert (
        reports.count(
            "rule .continue/rules/ts.md: pattern '*.{ts,tsx}' matches no file in the repository"
        )
        == 1
    )
    assert not any("python-style" in r for r in reports)
    assert len(reports) == len(set(reports))


def test_unmatched_report_without_git(
    repo: Path, provider: ScopedDocsProvider, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.rmtree(repo / ".git")
    (repo / ".git").write_text("gitdir: /nonexistent\n")  # a broken worktree: git fails, walk
    write(repo, "src/a.py", "x\n")
    write(repo, ".clinerules/r.md", '---\npaths: ["src/**/*.py", "srcc/**"]\n---\nR\n')
    caplog.set_level(logging.WARNING, logger="providers.scoped_docs")
    contribute(provider, request(repo, ("src/a.py",)), COUNTER)
    contribute(provider, request(repo, ("src/b.py",)), COUNTER)
    reports = [r.getMessage() for r in caplog.records if "matches no file" in r.getMessage()]
    assert reports == ["rule .clinerules/r.md: pattern 'srcc/**' matches no file in the repository"]
