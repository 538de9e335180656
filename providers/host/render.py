"""The kernel's side of Render: ask a provider to draw one of its own sections.

The payload is the section exactly as the provider returned it, serialized,
with schema_version "1" (``core.render_tree.SCHEMA_VERSION``); the tree comes
back as render.v1 and is shown as indented text (``core.render_tree.outline``).
A provider without Render answers UNIMPLEMENTED, which the spec allows.
"""

from __future__ import annotations

from collections.abc import Sequence

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.render_tree import SCHEMA_VERSION, Node, outline
from providers.goplugin.convert import node_from_proto
from providers.host.call_errors import call_errors, failure_text
from providers.host.chain import Plugin, Slot, TurnResult

RENDER_TIMEOUT_S = 10.0


def render_request(section: content_pb2.ContextSection) -> context_pb2.RenderRequest:
    return context_pb2.RenderRequest(
        payload=section.SerializeToString(), schema_version=SCHEMA_VERSION
    )


def call_render(plugin: Plugin, section: content_pb2.ContextSection) -> Node:
    """The provider's tree for ``section``; raises what the call raised (:func:`call_errors`)."""
    response = plugin.stub.Render(render_request(section), timeout=RENDER_TIMEOUT_S)
    return node_from_proto(response.tree.root)


def rendered_turn(slots: Sequence[Slot], result: TurnResult) -> str:
    """Every accepted section of the turn, rendered by its own provider, as indented text."""
    lines: list[str] = []
    for slot, outcome in zip(slots, result.outcomes, strict=True):
        for section in outcome.accepted:
            lines.append(f"render: {slot.name} / {section.label}")
            try:
                drawn = outline(call_render(slot.plugin, section))
            except call_errors() as call:
                drawn = f"(Render failed: {failure_text(call)})\n"
            lines.extend(f"  {line}" if line else line for line in drawn.rstrip("\n").split("\n"))
    return "\n".join(lines) + ("\n" if lines else "")
