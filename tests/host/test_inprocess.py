"""Our providers inside the host's process (issue 27 item 5): asked as a plugin is, the
kernel's checks on their answers (wire-contract.md: recount, budget, scope), Configure
with the block decoded against the schema, ``answer_sent`` after the answer, watchers
stopped on close; providers of other sources still plugin processes, at most N."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc
import pytest

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.budget import TokenCounter
from providers.core.identity import SOURCE
from providers.core.request import Turn
from providers.core.types import (
    Capabilities,
    ContextRequest,
    Contribution,
    Identity,
    ModelTarget,
    Section,
    Stability,
)
from providers.goplugin.context_errors import category_from_wire
from providers.goplugin.convert import request_to_proto
from providers.host.agent_config import AgentConfig, ProviderDeclaration
from providers.host.bringup import Plugins, bring_up_all, configured, open_plugins
from providers.host.call_errors import LocalCallError, context_error_of
from providers.host.chain import run_turn
from providers.host.inprocess import InProcessPlugin
from providers.host.launcher import PluginProcess
from providers.registry import PROVIDERS, by_package
from tests.conftest import script


def declaration(
    name: str, package: str, block: Mapping[str, Any] | None = None
) -> ProviderDeclaration:
    published = by_package(package).published
    return ProviderDeclaration(name, f"{SOURCE}/{published}", "~> 0.1", dict(block or {}))


def config_of(root: Path, *declarations: ProviderDeclaration, **overrides: str) -> AgentConfig:
    return AgentConfig(root / "agent.hcl", declarations, overrides)


def four(root: Path) -> AgentConfig:
    return config_of(root, *(declaration(e.package, e.package) for e in PROVIDERS))


@pytest.fixture
def session() -> Iterator[Plugins]:
    plugins = Plugins()
    try:
        yield plugins
    finally:
        plugins.close()


def child_processes() -> list[int]:
    """This process's children (from each process's parent in /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rsplit(") ", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid():
            found.append(int(entry))
    return found


def test_ours_run_here_and_answer_as_their_plugins_do(sample_git: Path, session: Plugins) -> None:
    """The same turn through the four in this process and through the four as plugins:
    the same sections, counts the kernel agrees with, and no process started."""
    bring_up_all(four(sample_git), session, in_process=True, concurrently=True)
    assert [s.name for s in session.slots] == [e.package for e in PROVIDERS]
    assert all(isinstance(s.plugin, InProcessPlugin) for s in session.slots)
    assert not session.warnings
    base = ContextRequest(0, str(sample_git), ModelTarget("m"), files_touched=("src/app.py",))
    here = run_turn(session.slots, base)
    assert not [p for p in child_processes() if _is_plugin(p)]
    with open_plugins(four(sample_git), concurrently=True) as plugins:
        assert all(isinstance(s.plugin, PluginProcess) for s in plugins.slots)
        there = run_turn(plugins.slots, base)
    assert here.texts() == there.texts()
    assert len(here.texts()) >= 4
    for ours, theirs in zip(here.outcomes, there.outcomes, strict=True):
        assert ours.problems == [] and ours.error_category is None, ours.problems
        assert ours.recounts == theirs.recounts
    assert [s.tokens for s in here.chain] == [s.tokens for s in there.chain]


def _is_plugin(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"context-" in handle.read()
    except OSError:
        return False


def test_the_block_is_decoded_against_the_schema_then_configured(
    sample_git: Path, session: Plugins
) -> None:
    """wire-contract.md bring-up: decode the provider block against config_schema, then
    Configure; token_budget sets the slot's budget; a block that does not decode is a
    warning and no slot, as with a plugin."""
    config = config_of(
        sample_git,
        declaration("small", "git_status", {"token_budget": 123}),
        declaration("broken", "git_status", {"no_such_attribute": 1}),
    )
    bring_up_all(config, session, in_process=True)
    assert [(s.name, s.budget) for s in session.slots] == [("small", 123)]
    (warning,) = session.warnings
    assert 'provider "broken" not started: config: decode provider config: provider "broken"' in (
        warning
    ), warning


def test_the_kernels_checks_apply_to_answers_from_this_process(
    sample_git: Path, session: Plugins
) -> None:
    """Scope: sections stamped with another name are another provider's (discarded,
    scope_violation); a failed Contribute carries its category (source_unavailable);
    the budget: every recount within it."""
    config = config_of(
        sample_git,
        declaration("conv", "repo_conventions", {"token_budget": 300}),
        declaration("renamed", "repo_conventions", {"provider_name": "someone_else"}),
    )
    bring_up_all(config, session, in_process=True)
    result = run_turn(session.slots, ContextRequest(0, str(sample_git), ModelTarget("m")))
    fitted, renamed = result.outcomes
    assert fitted.accepted and sum(fitted.recounts) <= 300 and not fitted.problems
    assert renamed.error_category == "scope_violation" and not renamed.accepted
    missing = run_turn(session.slots[:1], ContextRequest(0, "/nonexistent/dir", ModelTarget("m")))
    assert missing.outcomes[0].error_category == "source_unavailable"
    assert missing.chain == []


# -- a provider of the tests' own, loaded by its module:Class spec --------------------


class Recorder:
    """A provider that answers one section after ``sleep`` seconds and records when
    ``answer_sent`` came (it waits to be told the answer is back: were it called before
    the answer, the call would time out)."""

    returned = threading.Event()
    told: list[bool] = []  # noqa: RUF012  # shared by the instance the host makes and the test

    def __init__(self) -> None:
        self.sleep = 0.0

    def identity(self) -> Identity:
        return Identity("recorder", "0", "example.com/recorder")

    def capabilities(self) -> Capabilities:
        return Capabilities(100, Stability.DYNAMIC, ())

    def configure(self, config: Mapping[str, Any]) -> None:
        return None

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        time.sleep(self.sleep)
        text = "é" * 5  # 10 UTF-8 bytes: the kernel counts 3
        return Contribution((Section("one", text, counter.count(text), Stability.DYNAMIC),))

    def answer_sent(self) -> None:
        Recorder.told.append(Recorder.returned.wait(5))


SPEC = f"{__name__}:Recorder"


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[InProcessPlugin]:
    Recorder.returned.clear()
    Recorder.told.clear()
    plugin = InProcessPlugin.start(SPEC, local_name="rec")
    try:
        yield plugin
    finally:
        plugin.close()


def contribute_request(directory: Path, budget: int = 100) -> context_pb2.ContextRequest:
    return request_to_proto(ContextRequest(budget, str(directory), ModelTarget("m")))


def test_answer_sent_comes_after_the_answer_and_tokens_are_the_kernels(
    recorder: InProcessPlugin, tmp_path: Path
) -> None:
    response = recorder.stub.Contribute(contribute_request(tmp_path), timeout=10)
    Recorder.returned.set()
    (section,) = response.sections
    assert section.provider == "rec"  # the local name, as the kernel's environment says
    assert section.tokens == 3  # ceil(10 bytes / 4)
    deadline = time.monotonic() + 5
    while not Recorder.told and time.monotonic() < deadline:
        time.sleep(0.01)
    assert Recorder.told == [True]


def test_a_call_past_its_timeout_fails_as_over_grpc(
    recorder: InProcessPlugin, tmp_path: Path
) -> None:
    """A caller's deadline holds whatever the provider does: DEADLINE_EXCEEDED, and the
    provider's next answer still comes."""
    assert isinstance(recorder.handle.get(), Recorder)
    recorder.handle.get().sleep = 1.0  # type: ignore[attr-defined]
    started = time.monotonic()
    with pytest.raises(LocalCallError) as failed:
        recorder.stub.Contribute(contribute_request(tmp_path), timeout=0.2)
    assert time.monotonic() - started < 0.9
    assert failed.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    recorder.handle.get().sleep = 0.0  # type: ignore[attr-defined]
    Recorder.returned.set()
    assert recorder.stub.Contribute(contribute_request(tmp_path), timeout=10).sections


def test_a_bad_request_is_refused_with_its_category(
    recorder: InProcessPlugin, tmp_path: Path
) -> None:
    """invalid_request with a ContextError, as the adapter answers over gRPC."""
    slot = configured(recorder, "rec", {})
    request = contribute_request(tmp_path)
    request.working_directory = "relative/dir"
    with pytest.raises(LocalCallError) as failed:
        slot.plugin.stub.Contribute(request, timeout=10)
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    error = context_error_of(failed.value)
    assert error is not None and "must be absolute" in error.message
    assert category_from_wire(error.category).value == "invalid_request"


def test_close_stops_the_watchers(sample_git: Path, session: Plugins) -> None:
    """The file tree's watcher starts once an answer is out and stops on close."""
    bring_up_all(config_of(sample_git, declaration("tree", "file_tree")), session, in_process=True)
    run_turn(session.slots, ContextRequest(0, str(sample_git), ModelTarget("m")))

    def watching() -> bool:
        return any(str(sample_git) in t.name for t in threading.enumerate())

    deadline = time.monotonic() + 10
    while not watching() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert watching(), [t.name for t in threading.enumerate()]
    session.close()
    deadline = time.monotonic() + 10
    while watching() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not watching()


def test_other_sources_run_as_plugins_at_most_n(sample_git: Path, session: Plugins) -> None:
    """A declaration of another source is a plugin process (here our script under
    another name, through dev_overrides); past ``max_processes`` a warning, no process;
    ours in this process do not count."""
    command = script("context-git-status")
    others = [
        ProviderDeclaration(f"other{i}", "example.com/someone/status", "1.0.0", {})
        for i in range(3)
    ]
    config = config_of(
        sample_git,
        declaration("conv", "repo_conventions"),
        *others,
        **{d.local_name: command for d in others},
    )
    bring_up_all(config, session, in_process=True, max_processes=1)
    kinds = [(s.name, type(s.plugin).__name__) for s in session.slots]
    assert kinds == [("conv", "InProcessPlugin"), ("other0", "PluginProcess")]
    assert len(session.warnings) == 2
    assert all("at most 1 plugin processes per repository" in w for w in session.warnings)
    assert 'provider "other2"' in session.warnings[1]


if sys.platform != "linux":  # pragma: no cover
    pytestmark = pytest.mark.skip("reads /proc")


GRPC_FREE = """
import sys
from pathlib import Path
from providers.core.types import ContextRequest, ModelTarget
from providers.host.agent_config import default_agent_config
from providers.host.bringup import Plugins, bring_up_all
from providers.host.chain import run_turn
import providers.clients.daemon  # everything the background process imports
repo = Path(sys.argv[1])
session = Plugins()
bring_up_all(default_agent_config(repo), session, concurrently=True, in_process=True)
request = ContextRequest(0, str(repo), ModelTarget("m"), files_touched=("README.md",))
result = run_turn(session.slots, request)
session.close()
print(sorted(o.name for o in result.outcomes if o.accepted))
print(sorted(m for m in sys.modules if m == "grpc" or m.startswith(("grpc.", "grpc_"))))
"""


def test_our_providers_in_the_host_process_never_load_grpcio(sample_git: Path) -> None:
    """The background process serving only ours imports no grpcio (about 50 ms of its
    start, issue 29 item 5): the four defaults brought up and asked a turn."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", GRPC_FREE, str(sample_git)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answered, loaded = done.stdout.strip().splitlines()[-2:]
    assert answered == str(sorted(e.package for e in PROVIDERS)), done.stdout
    assert loaded == "[]", loaded
