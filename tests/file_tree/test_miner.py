"""Issue 22 item 3 and issue 24 item 3: the history before a first answer costs a bounded
time, and mining after it yields to turns."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from providers.file_tree.miner import FIRST_WAIT_S, HistoryMiner
from providers.file_tree.provider import FileTreeProvider
from providers.repository.gitexec import GitRunner
from tests.file_tree.helpers import collect, import_commits, init_repo, mined
from tests.support.files import write

Make = Callable[..., FileTreeProvider]
SLOW_S = 4.0


def slow_log_git(where: Path) -> Path:
    """git itself, taking :data:`SLOW_S` longer to start a ``log`` (a huge or cold
    repository's history)."""
    script = where / "slow-log-git"
    script.write_text(
        f'#!/bin/sh\nfor a in "$@"; do [ "$a" = log ] && sleep {SLOW_S} && break; done\n'
        'exec git "$@"\n'
    )
    script.chmod(0o755)
    return script


def test_the_first_answer_waits_for_its_history_a_bounded_time(
    make_provider: Make, tmp_path: Path
) -> None:
    """With no kept history, a first answer waits for the newest commits at most
    FIRST_WAIT_S from when mining started, then answers without them; they are used once
    mined."""
    repo = tmp_path / "repo"
    write(repo, "src/main.py")
    init_repo(repo)
    runner = GitRunner(executable=str(slow_log_git(tmp_path)))
    provider = make_provider({"watch": False}, runner=runner)
    started = time.monotonic()
    text = collect(provider, repo)
    assert time.monotonic() - started < SLOW_S - 1
    assert FIRST_WAIT_S < SLOW_S - 1
    assert "src/" in text
    assert provider._state is not None
    miner = provider._state.miner
    assert miner.history is None
    before = miner.version
    mined(miner)
    assert miner.version != before  # the next answer is made again, with it


def test_mining_in_the_background_waits_while_a_turn_holds_the_lock(tmp_path: Path) -> None:
    """Building a history is a loop over every changed path: it pauses every few hundred
    while a turn holds the provider's lock, and goes on when the turn is over."""
    repo = tmp_path / "repo"
    write(repo, "README.md")
    init_repo(repo)
    import_commits(repo, [[f"pkg/m{i}.py" for i in range(5000)]])
    turn = threading.Lock()
    miner = HistoryMiner(repo, GitRunner(), turns=turn)
    try:
        with turn:
            miner.start()
            miner.wait_first(0)  # the answer did not wait: from now on it yields
            time.sleep(1.0)
            assert miner.history is None  # stopped at its first pause
        mined(miner)
        assert miner.history is not None and "pkg/m4999.py" in miner.history.activity
    finally:
        miner.close()
