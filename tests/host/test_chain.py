"""The reference host's chain checks, against real plugin processes and crafted responses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.types import ContextRequest, ModelTarget
from providers.goplugin.convert import text_block
from providers.host.chain import Outcome, Slot, accept, assemble_prompt, run_turn
from providers.host.launcher import PluginProcess


@pytest.fixture
def slot(repo_conventions_command: list[str]) -> Iterator[Slot]:
    plugin = PluginProcess.launch(repo_conventions_command, local_name="conv")
    try:
        yield Slot(plugin, budget=500, stability="static")
    finally:
        plugin.close()


def section(provider: str, text: str, tokens: int | None = None) -> content_pb2.ContextSection:
    return content_pb2.ContextSection(
        provider=provider,
        label=f"{provider} label",
        content=[text_block(text)],
        tokens=tokens if tokens is not None else -(-len(text.encode()) // 4),
    )


def test_turn_through_real_plugin_respects_budget(slot: Slot, sample: Path) -> None:
    base = ContextRequest(0, str(sample), ModelTarget("m"))
    result = run_turn([slot], base)
    (outcome,) = result.outcomes
    assert outcome.error_category is None, outcome.problems
    assert outcome.accepted and sum(outcome.recounts) <= 500
    assert assemble_prompt(result.chain).startswith('<context provider="conv" label="AGENTS.md">')


def test_failed_contribute_keeps_the_chain_and_the_turn(slot: Slot) -> None:
    """source_unavailable: drop the section for this turn, log; do not fail the turn."""
    result = run_turn([slot], ContextRequest(0, "/nonexistent/dir", ModelTarget("m")))
    (outcome,) = result.outcomes
    assert outcome.error_category == "source_unavailable"
    assert result.chain == []


def test_scope_violation_discards_the_whole_response() -> None:
    """scope_violation: discard entire response, restore prior chain."""
    prior = [section("other", "theirs")]
    tampered = context_pb2.ContextContribution(
        sections=[section("other", "changed"), section("me", "x")]
    )
    outcome = Outcome("me", 100)
    chain = accept("me", 100, False, prior, tampered, outcome)
    assert chain == prior and outcome.error_category == "scope_violation"


def test_over_budget_and_non_text_sections_are_rejected() -> None:
    """budget_exceeded: rejected, turn not failed; non-text content MUST be rejected."""
    image = content_pb2.ContextSection(
        provider="me",
        label="img",
        content=[content_pb2.ContentBlock(image=content_pb2.ImageBlock(data=b"x"))],
    )
    response = context_pb2.ContextContribution(sections=[section("me", "y" * 400), image])
    outcome = Outcome("me", 10)
    chain = accept("me", 10, False, [], response, outcome)
    assert chain == []
    assert outcome.error_category == "budget_exceeded"
    assert any("non-text" in p for p in outcome.problems)
