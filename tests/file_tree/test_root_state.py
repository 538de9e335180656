"""What is kept per root: the listing and the history, made and closed together."""

from __future__ import annotations

from pathlib import Path

from providers.file_tree.listing import ListingOptions
from providers.file_tree.live import LiveListing
from providers.file_tree.miner import HistoryMiner
from providers.file_tree.root_state import RootState
from tests.file_tree.helpers import CountingRunner, init_repo, mined
from tests.support.files import write


def test_the_history_is_mined_only_once_the_answer_is_out(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, "src/main.py")
    init_repo(repo)
    runner = CountingRunner()
    state = RootState(LiveListing(repo, ListingOptions(), runner, None), HistoryMiner(repo, runner))
    try:
        assert set(state.refresh().tree.paths()) == {"src/main.py"}
        assert state.history is None
        assert not any(c.startswith("log") for c in runner.calls)
        before = state.version
        state.answer_sent()
        mined(state.miner)
        assert state.history is not None
        assert state.version != before  # answers made before the history are stale
    finally:
        state.close()
    state.answer_sent()  # closed: nothing is mined again
    assert sum(c.startswith("log") for c in runner.calls) == 1
