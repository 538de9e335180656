"""One context-assemble firing, as the kernel runs it, with every check the spec puts on the kernel.

Providers run in declaration order; each gets the chain so far and must
return it whole with its own sections appended. The kernel then: discards a
non-compactor's response that touched foreign sections (scope_violation),
rejects non-text content, recounts each of the provider's sections and
drops any over budget, and on a failed call drops that provider's sections
for this turn without failing the turn. The final prompt wraps each section
in a labelled boundary.

A host that places each section itself (an agent client's hook) asks every provider at
once (:func:`run_each`) and may give the turn a :class:`~providers.core.deadline.Deadline`:
each provider is told it (the Contribute call's timeout: the spec's request carries no
deadline of its own, the gRPC call does), and the turn answers by then with what arrived,
leaving out a provider that did not answer without waiting for its call to end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.deadline import Deadline
from providers.core.types import ContextRequest
from providers.goplugin.context_errors import category_from_wire
from providers.goplugin.convert import request_to_proto, section_text
from providers.host.call_errors import call_errors, context_error_of, failure_text
from providers.host.kernel_count import kernel_token_count

CONTRIBUTE_TIMEOUT_S = 30.0

Section = content_pb2.ContextSection
"""A section as it travels the chain (the wire type)."""


class Plugin(Protocol):
    """A provider as the chain asks it: a plugin process (``launcher.PluginProcess``) or
    one of ours in this process (``inprocess.InProcessPlugin``). ``stub`` has the
    ContextService's methods, each called as a gRPC stub's (request, ``timeout=``),
    failing with one of :func:`~providers.host.call_errors.call_errors`."""

    @property
    def local_name(self) -> str: ...

    @property
    def stub(self) -> Any: ...

    def close(self) -> float: ...


@dataclass
class Slot:
    """A configured provider in the chain."""

    plugin: Plugin
    budget: int
    stability: str
    compactor: bool = False

    @property
    def name(self) -> str:
        return self.plugin.local_name


@dataclass
class Outcome:
    """What happened to one provider this turn."""

    name: str
    budget: int
    accepted: list[content_pb2.ContextSection] = field(default_factory=list)
    recounts: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    error_category: str | None = None
    seconds: float = 0.0
    late: bool = False
    """No answer by the turn's deadline: left out of this turn, its call not waited for."""


@dataclass
class TurnResult:
    chain: list[content_pb2.ContextSection]
    outcomes: list[Outcome]

    def prompt(self) -> str:
        return assemble_prompt(self.chain)

    def texts(self) -> list[tuple[str, str, str]]:
        """``(provider, label, text)`` of each accepted section, in chain order: the chain
        without protobuf, for hosts that place sections themselves."""
        return [(s.provider, s.label, section_text(s)) for s in self.chain]


def run_turn(slots: Sequence[Slot], base: ContextRequest) -> TurnResult:
    chain: list[content_pb2.ContextSection] = []
    outcomes: list[Outcome] = []
    for slot in slots:
        chain, outcome = contribute(slot, base, chain)
        outcomes.append(outcome)
    return TurnResult(chain, outcomes)


def run_each(
    slots: Sequence[Slot], base: ContextRequest, deadline: Deadline | None = None
) -> TurnResult:
    """Every provider asked at once, each with an empty chain: for a host that adds each
    section on its own (an agent client's hook) rather than assembling one prompt, so no
    provider waits for the one before it. The result's chain is in slot order.

    With a ``deadline``, each provider is told it (its call's timeout) and the turn ends
    by then whatever happens: a provider that has not answered is left out (its outcome
    ``late``, a problem saying so) and its call goes on alone, on a daemon thread that
    nothing joins, so a hung provider holds up neither this turn nor the next."""
    if deadline is None and len(slots) < 2:
        return run_turn(slots, base)
    started = time.perf_counter()
    futures: list[Future[tuple[list[Section], Outcome]]] = []
    for slot in slots:
        future: Future[tuple[list[Section], Outcome]] = Future()
        futures.append(future)
        threading.Thread(
            target=_contribute_into,
            args=(future, slot, base, deadline),
            name=f"contribute-{slot.name}",
            daemon=True,
        ).start()
    wait(futures, timeout=None if deadline is None else deadline.remaining())
    chain: list[Section] = []
    outcomes: list[Outcome] = []
    for slot, future in zip(slots, futures, strict=True):
        if future.done():
            sections, outcome = future.result()
        else:
            sections, outcome = [], _late(slot, time.perf_counter() - started)
        chain.extend(sections)
        outcomes.append(outcome)
    return TurnResult(chain, outcomes)


def _contribute_into(
    future: Future[tuple[list[Section], Outcome]],
    slot: Slot,
    base: ContextRequest,
    deadline: Deadline | None,
) -> None:
    timeout = CONTRIBUTE_TIMEOUT_S if deadline is None else deadline.remaining()
    try:
        future.set_result(contribute(slot, base, [], timeout))
    except BaseException as error:  # handed to the turn, which reports it
        future.set_exception(error)


def _late(slot: Slot, waited: float) -> Outcome:
    outcome = Outcome(slot.name, slot.budget, seconds=waited, late=True)
    outcome.problems.append(f"no answer within {waited:.2f} s: left out of this turn")
    return outcome


NO_CAP = 0
"""A turn's ``token_budget`` that caps no provider: each gets its slot's budget."""


def budget_for(slot: Slot, base: ContextRequest) -> int:
    """The provider's budget this turn: its slot's, capped by the turn's own
    ``token_budget`` when that is set (0: no cap, each provider its own, as the spec
    reads a zero budget)."""
    return slot.budget if base.token_budget <= 0 else min(slot.budget, base.token_budget)


def contribute(
    slot: Slot,
    base: ContextRequest,
    chain: list[content_pb2.ContextSection],
    timeout: float = CONTRIBUTE_TIMEOUT_S,
) -> tuple[list[content_pb2.ContextSection], Outcome]:
    """One provider's Contribute after ``chain``, checked as the kernel checks it; the
    chain that goes on, and what happened. The request is ``base`` as the caller made it
    (every field kept, ``parent_session_id`` included) with the provider's budget
    (:func:`budget_for`). ``timeout`` is the call's (the provider's deadline: our
    providers work for part of it, then answer with what they have)."""
    budget = budget_for(slot, base)
    outcome = Outcome(slot.name, budget)
    request = request_to_proto(replace(base, token_budget=budget))
    request.prior_sections.extend(chain)
    started = time.perf_counter()
    try:
        response = slot.plugin.stub.Contribute(request, timeout=max(0.001, timeout))
    except call_errors() as call:
        outcome.seconds = time.perf_counter() - started
        error = context_error_of(call)
        category = category_from_wire(error.category).value if error else "unknown"
        outcome.error_category = category
        detail = error.message if error else failure_text(call)
        outcome.problems.append(f"Contribute failed ({category}): {detail}")
        return chain, outcome
    outcome.seconds = time.perf_counter() - started
    return accept(slot.name, budget, slot.compactor, chain, response, outcome), outcome


def accept(
    name: str,
    budget: int,
    compactor: bool,
    prior: list[content_pb2.ContextSection],
    response: context_pb2.ContextContribution,
    outcome: Outcome,
) -> list[content_pb2.ContextSection]:
    """Apply the kernel's checks to one response; return the chain that goes on."""
    ours = [s for s in response.sections if s.provider == name]
    foreign = [s for s in response.sections if s.provider != name]
    if not compactor and foreign != prior:
        outcome.error_category = "scope_violation"
        outcome.problems.append("response changed other providers' sections; discarded")
        return prior
    kept: list[content_pb2.ContextSection] = []
    total = 0
    for section in ours:
        if not section.label:
            outcome.problems.append("section without a label rejected")
            continue
        if any(b.WhichOneof("block") != "text" for b in section.content):
            outcome.problems.append(f"{section.label}: non-text content rejected")
            continue
        recount = kernel_token_count(list(section.content))
        if recount != section.tokens:
            outcome.problems.append(
                f"{section.label}: reported {section.tokens} tokens, kernel counts {recount}"
            )
        if total + recount > budget:
            outcome.error_category = "budget_exceeded"
            outcome.problems.append(
                f"{section.label}: {recount} tokens over the budget of {budget}; dropped"
            )
            continue
        total += recount
        kept.append(section)
        outcome.recounts.append(recount)
    outcome.accepted = kept
    return [*prior, *kept] if not compactor else [*foreign, *kept]


def assemble_prompt(chain: Sequence[content_pb2.ContextSection]) -> str:
    """Each section inside a labelled boundary, in chain order."""
    parts = []
    for section in chain:
        label = section.label.replace('"', "'")
        parts.append(
            f'<context provider="{section.provider}" label="{label}">\n'
            f"{section_text(section).rstrip()}\n</context>"
        )
    return "\n\n".join(parts) + ("\n" if parts else "")
