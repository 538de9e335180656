"""The provider end to end: request checks, the section, and staying cheap between turns."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.core.budget import FallbackCounter
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.provider import contribute
from providers.core.section_text import tree_totals
from providers.core.types import AttrType, Stability
from providers.file_tree.listing import AI_IGNORE_FILES
from providers.file_tree.provider import FileTreeProvider
from providers.host.launcher import PluginProcess
from providers.watch import MAX_RESTARTS
from tests.conftest import script
from tests.file_tree.helpers import (
    CountingRunner,
    collect,
    full_listings,
    git,
    init_repo,
    listing_runs,
    mined,
    request,
)
from tests.support.files import write
from tests.support.watchers import WatcherBox

Make = Callable[..., FileTreeProvider]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, "src/app/main.py")
    write(root, "src/app/util.py")
    write(root, "docs/guide.md")
    write(root, "README.md")
    write(root, ".gitignore", "*.log\nbuild/\n")
    return init_repo(root)


def warm_up(provider: FileTreeProvider, root: Path) -> str:
    """The first turn, then the one that catches up once the watch is in place."""
    collect(provider, root)
    return collect(provider, root)


def fed(
    make: Make, config: dict[str, object] | None = None
) -> tuple[FileTreeProvider, WatcherBox, CountingRunner]:
    box = WatcherBox()
    runner = CountingRunner()
    return make(config, watcher_factory=box, runner=runner), box, runner


# Describe / GetCapabilities / Configure --------------------------------------------


def test_identity_and_capabilities(make_provider: Make) -> None:
    """context-conformance.md: "stability declaration MUST", "default_token_budget ... MUST"."""
    provider = make_provider()
    assert provider.identity().name == "file-tree"
    caps = provider.capabilities()
    assert caps.stability is Stability.DYNAMIC
    assert caps.default_token_budget == 1000
    types = {a.name: a.type for a in caps.config_schema}
    assert types == {
        "token_budget": AttrType.NUMBER,
        "provider_name": AttrType.STRING,
        "exclude": AttrType.LIST_STRING,
        "max_depth": AttrType.NUMBER,
        "show_files": AttrType.BOOL,
        "ignore_file": AttrType.STRING,
        "ai_ignore_files": AttrType.LIST_STRING,
        "watch": AttrType.BOOL,
    }


@pytest.mark.parametrize(
    "config",
    [{"nope": 1}, {"max_depth": -1}, {"max_depth": 1.5}, {"show_files": "yes"}, {"exclude": "x"}],
)
def test_bad_config_is_invalid_request(make_provider: Make, config: dict[str, object]) -> None:
    provider = make_provider()
    with pytest.raises(ProviderError) as caught:
        provider.configure(config)
    assert caught.value.category is ErrorCategory.INVALID_REQUEST


# Contribute ------------------------------------------------------------------------


def test_one_labelled_dynamic_section_within_budget(make_provider: Make, repo: Path) -> None:
    """context-conformance.md: "Section label MUST", "stability declaration MUST"."""
    provider = make_provider(watcher_factory=WatcherBox())
    contribution = contribute(provider, request(repo, 1000), FallbackCounter())
    (section,) = contribution.sections
    assert section.label == "file tree"
    assert section.stability is Stability.DYNAMIC
    assert section.tokens <= 1000
    assert not section.truncated
    assert section.text == (
        "repo/\n"  # the repository's name, never a machine path (issue 12)
        "  docs/guide.md\n"  # single-child chains fold (issue 12)
        "  src/app/\n"
        "    main.py\n"
        "    util.py\n"
        "  .gitignore\n"
        "  README.md\n"
        "(shown: 5 of 5 files, 3 of 3 dirs)\n"
    )


def test_budget_zero_contributes_nothing(make_provider: Make, repo: Path) -> None:
    runner = CountingRunner()
    provider = make_provider(watcher_factory=WatcherBox(), runner=runner)
    assert contribute(provider, request(repo, 0), FallbackCounter()).sections == ()
    assert runner.calls == []


def test_deleted_working_directory_is_source_unavailable(
    make_provider: Make, tmp_path: Path
) -> None:
    """context-conformance.md: "source_unavailable": declared source unreadable at call time."""
    gone = tmp_path / "gone"
    gone.mkdir()
    provider = make_provider(watcher_factory=WatcherBox())
    collect(provider, gone)
    gone.rmdir()
    with pytest.raises(ProviderError) as caught:
        contribute(provider, request(gone), FallbackCounter())
    assert caught.value.category is ErrorCategory.SOURCE_UNAVAILABLE
    assert caught.value.retryable


def test_self_truncates_to_the_budget(make_provider: Make, repo: Path) -> None:
    """context-conformance.md: "Self-truncation/summarization to fit token_budget: MUST"."""
    for i in range(300):
        write(repo, f"gen/part{i % 7}/file{i}.py")
    provider = make_provider(watcher_factory=None)
    for budget in (60, 100, 200):
        (section,) = contribute(provider, request(repo, budget), FallbackCounter()).sections
        assert section.tokens <= budget
        assert section.truncated
        assert section.text.splitlines()[-1].startswith("(shown: ")


def test_files_touched_outside_the_root_are_ignored_and_logged(
    make_provider: Make, repo: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.txt")
    (repo / "link-out").symlink_to(outside)
    provider = make_provider(watcher_factory=WatcherBox())
    caplog.set_level(logging.WARNING)
    touched = [str(outside / "secret.txt"), "../outside/secret.txt", "link-out/secret.txt"]
    text = collect(provider, repo, 1000, touched)
    assert "secret" not in text
    assert "outside the repository" in caplog.text
    # The symlink itself is listed, never followed, and says only that it leaves.
    assert "  link-out -> (outside the repository)\n" in text
    assert str(tmp_path) not in text


def test_touched_paths_relative_to_a_subdirectory(make_provider: Make, repo: Path) -> None:
    for i in range(40):
        write(repo, f"src/app/extra{i:02}.py")
    provider = make_provider(watcher_factory=WatcherBox())
    text = collect(provider, repo / "src" / "app", 60, ["extra39.py"])
    assert text.startswith("repo/\n")
    assert "  src/app/\n" in text and "    extra39.py\n" in text


def test_repository_without_commits(make_provider: Make, tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    write(root, "a/b.txt")
    init_repo(root, commit=False)
    text = collect(make_provider(watcher_factory=WatcherBox()), root)
    assert "  a/b.txt\n" in text
    assert ".git" not in text.replace(str(root), "")


def test_config_exclude_show_files_and_max_depth(make_provider: Make, repo: Path) -> None:
    provider = make_provider({"exclude": ["docs/"], "show_files": False, "max_depth": 1})
    text = collect(provider, repo)
    assert text == (
        "repo/ (4 files, 2 dirs)\n"
        "  src/ (2 files, 1 dir)\n"
        "(shown: 1 of 2 dirs; files not listed: 4)\n"
    )


# Staying cheap -------------------------------------------------------------------------


def test_warm_turn_runs_no_git_and_returns_the_same_answer(make_provider: Make, repo: Path) -> None:
    provider, box, runner = fed(make_provider)
    first = contribute(provider, request(repo), FallbackCounter())
    assert box.made == []  # the watch waits until the answer is out
    provider.answer_sent()
    assert box.last.started
    assert any(c.startswith("ls-files") for c in runner.calls)
    assert provider._state is not None
    mined(provider._state.miner)  # the history is mined once the answer is out
    assert any(c.startswith("log") for c in runner.calls)
    # The watch started after the first listing (one listing to catch up) and the
    # history arrived: the map may change once, then it stays.
    settled = contribute(provider, request(repo), FallbackCounter())
    listed = len(runner.calls)
    second = contribute(provider, request(repo), FallbackCounter())
    assert second is settled
    assert len(runner.calls) == listed
    assert first.sections[0].text.splitlines()[0] == settled.sections[0].text.splitlines()[0]
    # A different budget renders again, still without git.
    contribute(provider, request(repo, 200), FallbackCounter())
    assert len(runner.calls) == listed


def test_created_and_deleted_files_update_incrementally(make_provider: Make, repo: Path) -> None:
    provider, box, runner = fed(make_provider)
    warm_up(provider, repo)
    runner.calls.clear()
    new = write(repo, "src/app/new.py")
    ignored = write(repo, "src/app/debug.log")
    box.last.report(new, ignored)
    text = collect(provider, repo)
    assert "    new.py\n" in text
    assert "debug.log" not in text
    # Only, once, where git's global excludes file is: the rules are ours, not git check-ignore.
    assert [c.split()[0] for c in runner.calls] == ["config"]
    runner.calls.clear()
    (repo / "docs" / "guide.md").unlink()
    box.last.report(repo / "docs" / "guide.md")
    text = collect(provider, repo)
    assert "docs/" not in text
    assert text.endswith("(shown: 5 of 5 files, 2 of 2 dirs)\n")
    box.last.report(write(repo, "src/app/another.py"))
    assert "another.py" in collect(provider, repo)
    assert runner.calls == []


def test_tracked_files_come_back_whatever_the_rules(make_provider: Make, repo: Path) -> None:
    """A tracked file is listed even when ignored: deleted and re-created, it returns."""
    write(repo, "keep.log")
    write(repo, "gone.log")
    git(repo, "add", "-f", "keep.log", "gone.log")
    git(repo, "commit", "-qm", "tracked logs")
    (repo / "gone.log").unlink()
    provider, box, _ = fed(make_provider)
    text = warm_up(provider, repo)
    assert "keep.log" in text and "gone.log" not in text
    (repo / "keep.log").unlink()
    box.last.report(repo / "keep.log")
    assert "keep.log" not in collect(provider, repo)
    box.last.report(write(repo, "keep.log"), write(repo, "gone.log"), write(repo, "new.log"))
    text = collect(provider, repo)
    assert "keep.log" in text and "gone.log" in text and "new.log" not in text


def test_the_watch_starts_on_the_next_turn_when_no_one_says_the_answer_went_out(
    make_provider: Make, repo: Path
) -> None:
    """In-process use (tests, the standalone command) never calls ``answer_sent``."""
    provider, box, _ = fed(make_provider)
    collect(provider, repo)
    assert box.made == []
    collect(provider, repo)
    assert box.last.started
    provider.answer_sent()
    assert len(box.made) == 1


@pytest.mark.parametrize("hook", [True, False], ids=["answer_sent", "next turn"])
def test_first_answer_does_not_wait_for_deleted_files(
    make_provider: Make, repo: Path, hook: bool
) -> None:
    """The first turn costs the listing alone: the search for deleted tracked files (a stat
    per tracked file) starts once the answer is out (or on the next turn, in-process) and
    is applied on the next turn."""
    (repo / "docs" / "guide.md").unlink()
    provider, _, runner = fed(make_provider, {"watch": False})
    first = collect(provider, repo)
    listing = ["ls-files -z -t --cached", "ls-files -z --others --exclude-standard"]
    assert [c for c in runner.calls if c.startswith("ls-files")] == listing
    assert "guide.md" in first  # git still tracks it; the deleted files were not awaited
    if hook:
        provider.answer_sent()
        assert "ls-files -z --deleted" in runner.calls[-2:]  # beside the history's git log
    assert "guide.md" not in collect(provider, repo)
    assert "ls-files -z --deleted" in runner.calls
    assert "guide.md" not in collect(provider, repo)


def test_created_directory_is_listed_with_its_contents(make_provider: Make, repo: Path) -> None:
    provider, box, runner = fed(make_provider)
    warm_up(provider, repo)
    runner.calls.clear()
    write(repo, "lib/deep/x.py")
    write(repo, "lib/build/out.bin")
    write(repo, "lib/y.log")
    box.last.report(repo / "lib")
    text = collect(provider, repo)
    assert "  lib/deep/x.py\n" in text
    assert "out.bin" not in text and "y.log" not in text
    assert full_listings(runner) == 0


def test_rule_changes_mean_a_full_listing(make_provider: Make, repo: Path) -> None:
    write(repo, "notes/todo.md")  # untracked: .gitignore applies to it
    provider, box, runner = fed(make_provider)
    assert "notes/" in warm_up(provider, repo)
    (repo / ".gitignore").write_text("*.log\nbuild/\nnotes/\n")
    box.last.report(repo / ".gitignore")
    runner.calls.clear()
    text = collect(provider, repo)
    assert "notes/" not in text
    assert full_listings(runner) == 1


def test_gitignore_inside_an_ignored_directory_changes_nothing(
    make_provider: Make, repo: Path
) -> None:
    """``npm install`` writes .gitignore files under node_modules: no full listing for those."""
    provider, box, runner = fed(make_provider)
    warm_up(provider, repo)
    runner.calls.clear()
    box.last.report(write(repo, "build/pkg/.gitignore", "!*\n"))
    assert "pkg" not in collect(provider, repo)
    assert full_listings(runner) == 0


def test_index_change_is_seen_without_the_watcher(make_provider: Make, repo: Path) -> None:
    """``git rm --cached`` changes the listing; the index's stat key catches it."""
    write(repo, "tracked.log")
    git(repo, "add", "-f", "tracked.log")
    provider, _, _ = fed(make_provider)
    assert "tracked.log" in collect(provider, repo)
    git(repo, "rm", "-q", "--cached", "tracked.log")
    assert "tracked.log" not in collect(provider, repo)


@pytest.mark.parametrize("watch", [True, False], ids=["watcher", "directory times"])
def test_staging_and_a_commit_cost_one_read_of_the_index_not_a_listing(
    make_provider: Make, repo: Path, watch: bool
) -> None:
    """The index changed: one ``ls-files --cached`` says where (issue 33 item 1)."""
    write(repo, "notes.md")
    age(repo)  # directory times are safely older than the first listing
    provider, _, runner = fed(make_provider, {"watch": watch})
    before = warm_up(provider, repo)
    git(repo, "add", "notes.md")
    runner.calls.clear()
    assert collect(provider, repo) == before  # notes.md was listed untracked; now tracked
    assert full_listings(runner) == 0
    assert listing_runs(runner.calls) == ["ls-files -z --cached"]
    runner.calls.clear()
    git(repo, "commit", "-q", "-m", "notes")
    assert collect(provider, repo) == before
    assert full_listings(runner) == 0
    # (the new commit is mined in the background, beside this)
    assert listing_runs(runner.calls) == ["ls-files -z --cached"]
    runner.calls.clear()
    assert collect(provider, repo) == before
    assert listing_runs(runner.calls) == []  # the index's new stamp is remembered


def test_overflow_and_dead_watchers_list_again(make_provider: Make, repo: Path) -> None:
    provider, box, runner = fed(make_provider)
    warm_up(provider, repo)
    runner.calls.clear()
    box.last.overflow = True
    write(repo, "surprise.txt")
    assert "surprise.txt" in collect(provider, repo)
    assert full_listings(runner) == 1


def test_a_slow_watcher_does_not_hold_up_the_first_turns(make_provider: Make, repo: Path) -> None:
    """Until the watch is in place the listing is reused; then one catch-up listing."""
    box = WatcherBox()
    runner = CountingRunner()
    box.make_slow = True
    provider = make_provider(watcher_factory=box, runner=runner)
    collect(provider, repo)
    write(repo, "early.txt")  # changed before the watch was in place
    assert "early.txt" not in collect(provider, repo)
    assert full_listings(runner) == 1
    box.last.ready = True
    assert "early.txt" in collect(provider, repo)
    after = len(runner.calls)
    collect(provider, repo)
    assert len(runner.calls) == after


def age(root: Path) -> None:
    """Date everything a minute back, as if written long ago (a directory changed since
    its listing began may have changed while it was read: it counts as changed)."""
    past = time.time() - 60
    for directory, _, files in os.walk(root):
        for name in (*files, ""):
            os.utime(os.path.join(directory, name), (past, past))


def test_a_dead_watcher_is_replaced_once_the_answer_is_out(make_provider: Make, repo: Path) -> None:
    provider, box, runner = fed(make_provider)
    warm_up(provider, repo)
    box.last.alive = False  # watchfiles gave up (a name that is not UTF-8, say)
    write(repo, "one.txt")
    assert "one.txt" in collect(provider, repo)  # unseen by the dead watch: listed again
    provider.answer_sent()
    assert len(box.made) == 2 and box.made[0].stopped
    write(repo, "two.txt")
    assert "two.txt" in collect(provider, repo)  # the new watch is in place: catch up once
    runner.calls.clear()
    collect(provider, repo)
    assert runner.calls == []


def test_a_watcher_is_replaced_at_most_three_times(make_provider: Make, repo: Path) -> None:
    provider, box, _ = fed(make_provider)
    warm_up(provider, repo)
    for _ in range(MAX_RESTARTS + 1):
        box.last.alive = False
        collect(provider, repo)  # finds it dead
        provider.answer_sent()  # a new one, while restarts remain
        collect(provider, repo)
    assert len(box.made) == 1 + MAX_RESTARTS


def test_a_failed_watcher_falls_back_to_directory_times(make_provider: Make, repo: Path) -> None:
    """Issue 4: "cheap checks of .git/index and directory mtimes where a watcher is not
    possible"."""
    provider, box, runner = fed(make_provider)
    warm_up(provider, repo)
    runner.calls.clear()
    box.last.alive = False
    box.make_dead = True  # no watch can be had (inotify is out of watches)
    for name in ("one.txt", "two.txt"):
        write(repo, name)
        assert name in collect(provider, repo)
    assert box.last.stopped
    age(repo)
    collect(provider, repo)  # the last listing saw fresh directories: once more
    before = full_listings(runner)
    collect(provider, repo)
    collect(provider, repo)
    assert full_listings(runner) == before


def test_without_a_watcher_unchanged_directories_mean_no_listing(
    make_provider: Make, repo: Path
) -> None:
    write(repo, "scratch/todo.txt")  # untracked
    age(repo)
    provider, box, runner = fed(make_provider, {"watch": False})
    assert "todo.txt" in collect(provider, repo)
    collect(provider, repo)
    assert box.made == []
    assert full_listings(runner) == 1  # nothing changed: no git, no walk
    write(repo, "src/app/surprise.py")  # its directory's time moves
    assert "surprise.py" in collect(provider, repo)
    assert full_listings(runner) == 2
    age(repo)
    collect(provider, repo)
    listed = full_listings(runner)
    with (repo / ".gitignore").open("a") as handle:  # edited in place: no directory changes
        handle.write("scratch/\n")
    age(repo)
    assert "todo.txt" not in collect(provider, repo)
    assert full_listings(runner) == listed + 1
    git(repo, "add", "src/app/surprise.py")  # the index changes
    age(repo)
    collect(provider, repo)
    assert full_listings(runner) == listed + 2


def test_walk_mode_updates_without_git(make_provider: Make, tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, "a/b.txt")
    write(root, ".gitignore", "*.tmp\n")
    provider, box, runner = fed(make_provider)
    warm_up(provider, root)
    runner.calls.clear()
    box.last.report(write(root, "a/c.txt"), write(root, "a/d.tmp"))
    text = collect(provider, root)
    assert "    c.txt\n" in text and "d.tmp" not in text
    assert runner.calls == []


def test_contextignore_is_watched(make_provider: Make, repo: Path) -> None:
    provider, box, _ = fed(make_provider)
    assert "docs/" in warm_up(provider, repo)
    box.last.report(write(repo, ".contextignore", "docs/\n"))
    assert "docs/" not in collect(provider, repo)


def test_real_watcher_sees_a_new_file(make_provider: Make, repo: Path) -> None:
    provider = make_provider()
    collect(provider, repo)
    write(repo, "src/app/fresh.py")
    deadline = time.monotonic() + 2.0
    while "fresh.py" not in collect(provider, repo):
        assert time.monotonic() < deadline, "the watcher never reported the new file"
        time.sleep(0.05)


# Faults ---------------------------------------------------------------------------------

_LIST = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from providers.repository.gitexec import GitRunner\n"
    "from providers.file_tree.listing import ListingOptions, list_tree\n"
    "listing = list_tree(Path(sys.argv[1]), ListingOptions(), GitRunner())\n"
    "print(json.dumps([sorted(listing.tree.paths()), listing.unreadable]))\n"
)


def list_without_privileges(root: Path) -> tuple[list[str], int]:
    """List in a child process that file permissions apply to, even when we are root."""
    command = [sys.executable, "-c", _LIST, str(root)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be enforced")
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    paths, unreadable = json.loads(done.stdout)
    return paths, unreadable


@pytest.mark.parametrize("in_git", [False, True])
def test_unreadable_directory_is_skipped_and_counted(tmp_path: Path, in_git: bool) -> None:
    root = tmp_path / "root"
    write(root, "ok/a.txt")
    write(root, "locked/secret.txt")
    if in_git:
        init_repo(root, commit=False)
    (root / "locked").chmod(0)
    try:
        paths, unreadable = list_without_privileges(root)
    finally:
        (root / "locked").chmod(0o755)
    assert paths == ["ok/a.txt"]
    assert unreadable == 1


def test_no_git_process_outlives_the_plugin(tmp_path: Path, repo: Path) -> None:
    """The search for deleted files runs after the first answer; Kill() stops it too."""
    real_git = shutil.which("git")
    assert real_git is not None
    pids = tmp_path / "slow-git-pids"
    wrapper_dir = tmp_path / "bin"
    wrapper_dir.mkdir()
    wrapper = wrapper_dir / "git"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$*" in *--deleted*) echo $$ >> ' + str(pids) + "; sleep 30;; esac\n"
        f'exec {real_git} "$@"\n'
    )
    wrapper.chmod(0o755)
    path = f"{wrapper_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    plugin = PluginProcess.launch(
        [script("context-file-tree")], local_name="tree", env_overrides={"PATH": path}
    )
    try:
        reply = plugin.stub.Contribute(
            context_pb2.ContextRequest(
                token_budget=500,
                working_directory=str(repo),
                model_target=model_pb2.ModelTarget(id="m"),
            ),
            timeout=30,
        )
        assert "main.py" in reply.sections[-1].content[0].text.text
        deadline = time.monotonic() + 10
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = int(pids.read_text().split()[0])
    finally:
        plugin.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        pytest.fail("git ls-files --deleted outlived the plugin")


@pytest.mark.parametrize("name", AI_IGNORE_FILES)
def test_other_agents_ignore_files_are_honoured(make_provider: Make, repo: Path, name: str) -> None:
    """Issue 12: the AI-ignore files users already write hide entries from the map too,
    each on its own (one file's negation does not re-include another's), and each can be
    turned off."""
    write(repo, "secrets/key.pem")
    write(repo, "src/app/generated.py")
    write(repo, name, "secrets/\n*.pem\n")
    write(repo, ".contextignore", "src/app/generated.py\n")
    text = collect(make_provider(watcher_factory=None), repo)
    assert "secrets" not in text and "generated.py" not in text
    others = [n for n in AI_IGNORE_FILES if n != name]
    text = collect(make_provider({"ai_ignore_files": others}, watcher_factory=None), repo)
    assert "secrets/key.pem" in text and "generated.py" not in text
    write(repo, ".cursorignore" if name != ".cursorignore" else ".aiderignore", "!secrets/\n")
    text = collect(make_provider(watcher_factory=None), repo)
    assert "secrets" not in text


def test_symlinks_show_their_target_and_submodules_their_state(
    make_provider: Make, repo: Path, tmp_path: Path
) -> None:
    """Issue 12: ``CLAUDE.md -> AGENTS.md``; a submodule sorts with the directories, is not
    counted as a file, and says whether it is checked out."""
    write(repo, "AGENTS.md", "# rules\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    upstream = tmp_path / "upstream"
    write(upstream, "lib.py")
    init_repo(upstream)
    git(
        repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(upstream),
        "deps/lib",
    )
    git(
        repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(upstream),
        "deps/empty",
    )
    git(repo, "commit", "-qm", "submodules")
    for child in (repo / "deps" / "empty").iterdir():
        if child.is_dir() and child.name != ".git":
            shutil.rmtree(child)
        elif child.name != ".git":
            child.unlink()
    text = collect(make_provider(watcher_factory=None), repo)
    assert "  CLAUDE.md -> AGENTS.md\n" in text
    assert "    empty/ (submodule, not checked out)\n" in text
    assert "    lib/ (submodule)\n" in text
    totals = text.splitlines()[-1]
    files = sum(1 for line in text.splitlines()[1:-1] if not line.rstrip().endswith(("/", ")")))
    assert totals.startswith(f"(shown: {files} of ")


@pytest.mark.parametrize("show_files", [True, False])
def test_the_totals_the_bridge_reads_back_are_the_trees_counts(
    make_provider: Make, repo: Path, show_files: bool
) -> None:
    """Issue 28 item 1: the closing line is core.section_text's, so the bridge reads back
    what is present (5 files: .gitignore, README.md, docs/guide.md, src/app/*.py; 3 dirs),
    and one file more reads differently (the bridge then sends the tree again)."""
    provider = make_provider({"show_files": show_files})
    before = tree_totals(collect(provider, repo))
    assert before.split() == ["5", "3"]  # files, dirs
    write(repo, "docs/more.md")
    assert tree_totals(collect(make_provider({"show_files": show_files}), repo)) != before
