"""Requests as the kernel sends them to a provider called directly, and what came back.

For the tests that call ``contribute`` without a server (rules, scoped docs):
a request with a session, what the answer's sections say by label.
"""

from __future__ import annotations

from pathlib import Path

from providers.core.budget import FallbackCounter
from providers.core.types import ContextRequest, Contribution, ModelTarget


def request(
    root: Path,
    touched: tuple[str, ...] = (),
    *,
    budget: int = 2000,
    session: str = "s1",
    model: str = "m",
    cwd: Path | None = None,
) -> ContextRequest:
    return ContextRequest(
        token_budget=budget,
        working_directory=str(cwd or root),
        model_target=ModelTarget(model),
        files_touched=touched,
        session_id=session,
    )


COUNTER = FallbackCounter()


def labels(contribution: Contribution) -> list[str]:
    return [s.label for s in contribution.sections]


def texts(contribution: Contribution) -> dict[str, str]:
    return {s.label: s.text for s in contribution.sections}
