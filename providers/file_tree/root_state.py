"""What the file tree keeps for one repository root: its live listing and its history.

Both are made when the agent first works under a root and closed together
when it moves to another one (or the provider is configured again or closed):
a watcher thread and a mining thread never outlive the root they serve.
"""

from __future__ import annotations

from providers.file_tree.history import History
from providers.file_tree.listing import Listing
from providers.file_tree.live import LiveListing
from providers.file_tree.miner import HistoryMiner


class RootState:
    """The live listing and the history of one root (``live.root``), used and closed as one."""

    def __init__(self, live: LiveListing, miner: HistoryMiner) -> None:
        self.root = live.root
        self.live = live
        self.miner = miner
        self._turns = 0

    @property
    def version(self) -> tuple[object, ...]:
        """Moves on whenever the listing or the history may have changed."""
        return self.live.version, self.miner.version

    @property
    def history(self) -> History | None:
        return self.miner.history

    def refresh(self) -> Listing:
        """The current listing (:meth:`LiveListing.refresh`); raises ``OSError`` when the
        root cannot be read.

        On the first turn the history's first part is mined while the root is listed,
        and waited for a bounded time (:meth:`HistoryMiner.wait_first`); on later turns,
        what no ``answer_sent`` started starts here (used in-process, nothing calls it).
        """
        if self._turns:
            self.miner.refresh()
        self.miner.start()
        listing = self.live.refresh()
        self.miner.wait_first()
        self._turns += 1
        return listing

    def answer_sent(self) -> None:
        """The answer is out: the watch may start, the history may be mined."""
        self.live.answer_sent()
        self.miner.refresh()

    def close(self) -> None:
        self.live.close()
        self.miner.close()
