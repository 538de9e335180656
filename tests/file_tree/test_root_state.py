"""What is kept per root: the listing and the history, made and closed together."""

from __future__ import annotations

from pathlib import Path

from providers.file_tree.listing import ListingOptions
from providers.file_tree.live import LiveListing
from providers.file_tree.miner import FIRST_COMMITS, HistoryMiner
from providers.file_tree.root_state import RootState
from tests.file_tree.helpers import (
    CountingRunner,
    add_commits,
    git,
    history_runs,
    init_repo,
    mined,
)
from tests.support.files import write


def test_the_first_answer_has_the_newest_commits_and_the_rest_follows_it(tmp_path: Path) -> None:
    """Issue 22 item 3: the first answer ranks with the newest commits, mined while the root
    is listed; the rest is mined once the answer is out, going on from where that stopped."""
    repo = tmp_path / "repo"
    write(repo, "src/main.py")
    init_repo(repo)
    add_commits(repo, FIRST_COMMITS + 9)
    head = git(repo, "rev-parse", "HEAD").decode().strip()
    runner = CountingRunner()
    state = RootState(LiveListing(repo, ListingOptions(), runner, None), HistoryMiner(repo, runner))
    try:
        assert "src/main.py" in set(state.refresh().tree.paths())
        assert state.history is not None
        assert len(state.history.commits) == FIRST_COMMITS
        (first,) = history_runs(runner.calls)
        assert first.endswith(f"--max-count={FIRST_COMMITS} --skip=0 {head} --")
        before = state.version
        state.answer_sent()
        mined(state.miner, FIRST_COMMITS + 10)
        assert state.version != before  # answers made before the whole history are stale
        assert history_runs(runner.calls)[1].endswith(f"--skip={FIRST_COMMITS} {head} --")
    finally:
        state.close()
    state.answer_sent()  # closed: nothing is mined again
    assert len(history_runs(runner.calls)) == 2
