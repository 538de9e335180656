"""The reference host's chain checks, against real plugin processes and crafted responses."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.budget import TokenCounter
from providers.core.deadline import TURN_WORK_SECONDS, WORK_SHARE, Deadline
from providers.core.request import Turn
from providers.core.types import (
    Capabilities,
    ContextRequest,
    Contribution,
    Identity,
    ModelTarget,
    Stability,
)
from providers.goplugin.convert import text_block
from providers.host.chain import Outcome, Slot, accept, assemble_prompt, run_each, run_turn
from providers.host.inprocess import InProcessPlugin
from providers.host.launcher import PluginProcess
from tests.support.slow_provider import plugin_script


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


def test_run_each_answers_by_its_deadline_without_a_hung_provider(
    slot: Slot, sample: Path, tmp_path: Path
) -> None:
    """Failing open (issue 27): every provider is told the turn's deadline (the call's
    timeout: the spec's ContextRequest has no deadline field); one that has not answered
    by then is left out of the turn, the others' sections stay, and its call is not
    waited for, by this turn or the next."""
    told = tmp_path / "slow.log"
    slow = PluginProcess.launch([str(plugin_script(tmp_path / "slow", told))], local_name="slow")
    try:
        hung = Slot(slow, budget=100, stability="dynamic")
        base = ContextRequest(0, str(sample), ModelTarget("m"))
        for seconds in (1.0, 0.5):  # the second turn while the first call still hangs
            started = time.monotonic()
            result = run_each([hung, slot], base, Deadline.after(seconds))
            took = time.monotonic() - started
            assert took < seconds + 0.25, took
            late, fast = result.outcomes
            assert late.late and late.problems[0].startswith("no answer within ")
            assert fast.accepted and not fast.late and fast.error_category is None
            assert {s.provider for s in result.chain} == {"conv"}
        first = float(told.read_text().split()[0])
        # its work budget (the wire carries the timeout rounded up: a few ms of slack)
        assert 0 < first <= min(TURN_WORK_SECONDS, 1.0 * WORK_SHARE) + 0.005, first
    finally:
        slow.close()


SEEN: list[ContextRequest] = []


class Recorder:
    """A provider that keeps each request it is asked (loaded in this process by spec)."""

    def identity(self) -> Identity:
        return Identity("recorder", "0.0.1", "example.com/recorder")

    def capabilities(self) -> Capabilities:
        return Capabilities(100, Stability.DYNAMIC, ())

    def configure(self, config: Mapping[str, Any]) -> None:
        del config

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        SEEN.append(turn.request)
        return Contribution(())


def test_the_request_reaches_the_provider_whole_with_its_budget(sample: Path) -> None:
    """context-data-types.md, ContextRequest (session_id, parent_session_id, ...;
    wire-contract.md's field list), issue 28 item 6: the chain sends the caller's
    request as it is (parent_session_id,
    history tokens and all), with the provider's budget: the slot's, capped by the turn's
    own token_budget when that is set."""
    plugin = InProcessPlugin.start("tests.host.test_chain:Recorder", local_name="rec")
    try:
        slot = Slot(plugin, budget=300, stability="dynamic")
        base = ContextRequest(
            0,
            str(sample),
            ModelTarget("m", 1000, 900),
            ("a.py",),
            "session",
            "parent",
            "turn-7",
            history_tokens=5,
            assembled_tokens_last_turn=6,
        )
        run_turn([slot], base)
        run_each([slot, slot], replace(base, token_budget=120))
        assert SEEN[0] == replace(base, token_budget=300)
        assert SEEN[1:] == [replace(base, token_budget=120)] * 2
    finally:
        plugin.close()
