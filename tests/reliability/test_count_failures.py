"""Issue 15 item 5 and issue 11 item 4: what a failed CountTokens does to later turns.

context-data-types.md: ``tokens`` MUST come from the kernel's CountTokens, and the kernel
drops a section whose recount exceeds ``token_budget``. A count that fell back during a
passing failure must not be kept as the kernel's (the next turn counts again, or the
kernel's recount drops the section); a kernel without CountTokens is asked once."""

from __future__ import annotations

import math
from pathlib import Path

import grpc
import pytest

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.kernel.v1 import kernel_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers.goplugin.convert import section_text
from providers.host.callback_server import KernelCallbacks
from providers.host.launcher import PluginProcess
from tests.conftest import script

BUDGET = 120


def dense(text: str) -> int:
    """A tokenizer denser than the fallback formula, as a real one can be."""
    return math.ceil(len(text.encode("utf-8")) / 3)


class FlakyKernel(KernelCallbacks):
    """CountTokens fails with UNAVAILABLE ``failures`` times, then counts densely."""

    def __init__(self, failures: int, code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE):
        super().__init__(label="flaky")
        self.failures = failures
        self.code = code
        self.asked = 0

    def CountTokens(
        self, request: kernel_pb2.CountTokensRequest, context: grpc.ServicerContext
    ) -> kernel_pb2.CountTokensResult:
        self.asked += 1
        if self.asked <= self.failures:
            context.abort(self.code, "kernel busy")
        text = "".join(b.text.text for b in request.content if b.WhichOneof("block") == "text")
        return kernel_pb2.CountTokensResult(count=dense(text), exact=True)


def request(repo: Path) -> context_pb2.ContextRequest:
    return context_pb2.ContextRequest(
        token_budget=BUDGET,
        working_directory=str(repo),
        model_target=model_pb2.ModelTarget(id="m"),
    )


def ours(reply: context_pb2.ContextContribution) -> list[content_pb2.ContextSection]:
    return list(reply.sections)


@pytest.fixture
def conventions(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    paragraphs = [f"Paragraph {i}: " + "words that take tokens " * 4 for i in range(12)]
    (repo / "AGENTS.md").write_text("# Rules\n\n" + "\n\n".join(paragraphs) + "\n")
    return repo


def test_a_passing_failure_is_counted_again_on_the_next_turn(conventions: Path) -> None:
    kernel = FlakyKernel(failures=1)
    plugin = PluginProcess.launch(
        [script("context-repo-conventions")], local_name="rc", callbacks=kernel
    )
    try:
        first = ours(plugin.stub.Contribute(request(conventions), timeout=30))
        second = ours(plugin.stub.Contribute(request(conventions), timeout=30))
    finally:
        plugin.close()
    assert first and second
    for section in second:  # what the kernel recounts must fit, and match what we said
        assert dense(section_text(section)) == section.tokens
    assert sum(dense(section_text(s)) for s in second) <= BUDGET
    assert sum(dense(section_text(s)) for s in first) > BUDGET  # turn 1 was a stand-in


def test_a_kernel_without_count_tokens_is_asked_once(conventions: Path) -> None:
    kernel = FlakyKernel(failures=10**6, code=grpc.StatusCode.UNIMPLEMENTED)
    plugin = PluginProcess.launch(
        [script("context-repo-conventions")], local_name="rc", callbacks=kernel
    )
    try:
        for budget in (BUDGET, BUDGET - 20, BUDGET - 40):  # new texts each turn
            message = request(conventions)
            message.token_budget = budget
            reply = plugin.stub.Contribute(message, timeout=30)
            assert ours(reply)
    finally:
        plugin.close()
    assert kernel.asked == 1
