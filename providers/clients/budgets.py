"""What each event may add to the transcript, in tokens, and what each kind of provider
is asked for: the bridge's budgets, written once (``setup``'s options and the background
process read them here). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from providers.clients import deltas, facts
from providers.clients.deltas import Event, Kind
from providers.clients.hook import OPTIONS as EVENT_PARTS


@dataclass(frozen=True)
class Budgets:
    """Tokens each event may add to the transcript (docs/clients.md, the budget column)."""

    start: int = 6000
    prompt: int = 2000
    tool: int = 2000

    def of(self, event: Event) -> int:
        if event in ("start", "resume"):
            return self.start
        return self.prompt if event == "prompt" else self.tool

    def room(self, event: Event, info: facts.ClientFacts, name: str) -> deltas.Room:
        """What one event of ``info``'s client may add: this event's budget within the
        client's cap on one hook's text, and no ``@`` it would expand."""
        return deltas.Room(
            self.of(event), info.inline_chars, self.start, escape_at=name in info.expands_at
        )

    def of_providers(self, chars: int | None) -> Mapping[Kind, int]:
        """The most each kind of provider is asked for, the same at every event (a
        section asked at another budget would read as changed): all it answers fits one
        empty event of its kind whole (session start's for what it sends, an after-tool
        event's for scoped docs), so it never waits for room that cannot come."""
        start = deltas.provider_budget(self.start, chars)
        return {
            "conventions": start,
            "git_status": start,
            "file_tree": start,
            "static": start,
            "dynamic": start,
            "scoped_docs": deltas.provider_budget(self.tool, chars),
        }

    def with_options(self, options: Sequence[str]) -> Budgets:
        """``start=N`` and the like, as the hook command passes them."""
        values: dict[str, int] = {}
        for option in options:
            name, _, value = option.partition("=")
            if name in EVENT_PARTS and value.isdigit():
                values[name] = min(int(value), 200_000)
        return replace(self, **values)
