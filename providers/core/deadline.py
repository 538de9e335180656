"""How long a turn may work before it answers with what it has.

The kernel gives each Contribute a deadline (10 s) and gives up on a provider
that misses it, so a turn that would take longer (tens of thousands of rule
files, an ``@import`` fan-out, files the markdown parser must not take on)
answers with what it has done by then and says what it skipped; what it did
is kept, so the next turn goes on from there. Work is checked against a
:class:`Deadline` between files, never in the middle of one, so the time a
turn takes is its work budget plus one file's worth.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

TURN_WORK_SECONDS = 4.0
"""A turn's work budget: well inside the kernel's 10 s, leaving room for one more
file's worth of work, rendering, token counts and the reply."""

WORK_SHARE = 0.4
"""The share of the caller's own deadline (the gRPC call's time remaining) a turn
works for, when that is less than :data:`TURN_WORK_SECONDS`."""


@dataclass(frozen=True)
class Deadline:
    """A point on the monotonic clock after which a turn stops taking on work."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    @classmethod
    def for_turn(cls, time_remaining: float | None = None) -> Deadline:
        """The work budget of a turn whose caller allows ``time_remaining`` seconds."""
        seconds = TURN_WORK_SECONDS
        if time_remaining is not None:
            seconds = min(seconds, max(0.0, time_remaining) * WORK_SHARE)
        return cls.after(seconds)

    def part(self, share: float) -> Deadline:
        """An earlier deadline: ``share`` of the time left, for a step that must leave
        the rest to the steps after it."""
        if math.isinf(self.at):
            return self
        return Deadline.after(self.remaining() * share)

    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())


NEVER = Deadline(math.inf)
"""No limit: for callers outside a turn (tests of one step, the catalog's own tests)."""
