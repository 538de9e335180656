"""Proto <-> core conversion: the only module that knows the generated message types."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from providers._gen.pluggableharness.common.v1 import common_pb2
from providers._gen.pluggableharness.config.v1 import config_pb2
from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2
from providers._gen.pluggableharness.render.v1 import render_pb2
from providers.core.errors import invalid_request
from providers.core.render_tree import (
    CodeBlock,
    Collapsible,
    Group,
    ListNode,
    Node,
    SectionPayload,
    Text,
    TextStyle,
)
from providers.core.types import (
    AttrType,
    Capabilities,
    ConfigAttribute,
    ContextRequest,
    Identity,
    ModelTarget,
    Section,
    Stability,
)

PROTOCOL_VERSION = 1

_STABILITY = {
    Stability.STATIC: content_pb2.STABILITY_STATIC,
    Stability.DYNAMIC: content_pb2.STABILITY_DYNAMIC,
}
_ATTR_TYPE = {
    AttrType.STRING: config_pb2.ATTR_TYPE_STRING,
    AttrType.NUMBER: config_pb2.ATTR_TYPE_NUMBER,
    AttrType.BOOL: config_pb2.ATTR_TYPE_BOOL,
    AttrType.LIST_STRING: config_pb2.ATTR_TYPE_LIST_STRING,
    AttrType.LIST_NUMBER: config_pb2.ATTR_TYPE_LIST_NUMBER,
    AttrType.MAP_STRING: config_pb2.ATTR_TYPE_MAP_STRING,
    AttrType.OBJECT: config_pb2.ATTR_TYPE_OBJECT,
}


def request_from_proto(message: context_pb2.ContextRequest) -> ContextRequest:
    """The core's view of a request; prior sections stay with the adapter."""
    target = None
    if message.HasField("model_target"):
        mt = message.model_target
        target = ModelTarget(mt.id, mt.context_window, mt.effective_ceiling)
    return ContextRequest(
        token_budget=message.token_budget,
        working_directory=message.working_directory,
        model_target=target,
        files_touched=tuple(message.files_touched),
        session_id=message.session_id,
        parent_session_id=message.parent_session_id,
        turn_id=message.turn_id,
        history_tokens=message.history_tokens,
        assembled_tokens_last_turn=message.assembled_tokens_last_turn,
    )


def request_to_proto(request: ContextRequest) -> context_pb2.ContextRequest:
    """The kernel's side (reference host and standalone preview)."""
    message = context_pb2.ContextRequest(
        session_id=request.session_id,
        parent_session_id=request.parent_session_id,
        turn_id=request.turn_id,
        token_budget=request.token_budget,
        files_touched=list(request.files_touched),
        working_directory=request.working_directory,
        history_tokens=request.history_tokens,
        assembled_tokens_last_turn=request.assembled_tokens_last_turn,
    )
    if request.model_target is not None:
        mt = request.model_target
        message.model_target.CopyFrom(
            model_pb2.ModelTarget(
                id=mt.id, context_window=mt.context_window, effective_ceiling=mt.effective_ceiling
            )
        )
    return message


def text_block(text: str) -> content_pb2.ContentBlock:
    return content_pb2.ContentBlock(text=content_pb2.TextBlock(text=text))


def section_to_proto(section: Section, provider: str) -> content_pb2.ContextSection:
    return content_pb2.ContextSection(
        provider=provider,
        label=section.label,
        content=[text_block(section.text)],
        tokens=section.tokens,
        stability=_STABILITY[section.stability],
        truncated=section.truncated,
    )


def stability_from_proto(value: int) -> Stability | None:
    for stability, wire in _STABILITY.items():
        if wire == value:
            return stability
    return None


def section_text(section: content_pb2.ContextSection) -> str:
    """The concatenated text of a section's text blocks (non-text blocks ignored)."""
    return "".join(b.text.text for b in section.content if b.WhichOneof("block") == "text")


def contribution_to_proto(
    prior: Iterable[content_pb2.ContextSection], ours: Iterable[Section], provider: str
) -> context_pb2.ContextContribution:
    """The full chain: every prior section untouched, in order, then ours."""
    response = context_pb2.ContextContribution()
    response.sections.extend(prior)
    response.sections.extend(section_to_proto(s, provider) for s in ours)
    return response


def capabilities_to_proto(capabilities: Capabilities) -> context_pb2.GetCapabilitiesResponse:
    caps = context_pb2.ContextCapabilities(
        default_token_budget=capabilities.default_token_budget,
        stability=_STABILITY[capabilities.stability],
        compactor=capabilities.compactor,
        config_schema=config_pb2.ConfigSchema(
            attributes=[_attribute(a) for a in capabilities.config_schema]
        ),
    )
    return context_pb2.GetCapabilitiesResponse(capabilities=caps)


def _attribute(attr: ConfigAttribute) -> config_pb2.ConfigAttribute:
    message = config_pb2.ConfigAttribute(
        name=attr.name,
        type=_ATTR_TYPE[attr.type],
        required=attr.required,
        sensitive=attr.sensitive,
        description=attr.description,
        object_attributes=[_attribute(a) for a in attr.object_attributes],
    )
    if attr.default is not None:
        default = list(attr.default) if isinstance(attr.default, tuple) else attr.default
        message.default_json = json.dumps(default, sort_keys=True)
    return message


def attr_type_name(value: int) -> str:
    """``ATTR_TYPE_STRING`` -> ``string`` (for the host's decoding of agent.hcl)."""
    return config_pb2.AttrType.Name(value).removeprefix("ATTR_TYPE_").lower()


def describe_to_proto(identity: Identity) -> context_pb2.DescribeResponse:
    return context_pb2.DescribeResponse(
        producer=common_pb2.ProducerRef(
            name=identity.name,
            version=identity.version,
            source=identity.source,
            category=common_pb2.CATEGORY_CONTEXT,
            protocol_version=PROTOCOL_VERSION,
        )
    )


def config_from_proto(message: context_pb2.ConfigureRequest) -> dict[str, Any]:
    """The decoded provider block as plain Python values (numbers arrive as floats)."""
    if not message.HasField("config"):
        return {}
    return json_format.MessageToDict(message.config)


def config_to_proto(config: dict[str, Any]) -> context_pb2.ConfigureRequest:
    request = context_pb2.ConfigureRequest()
    request.config.update(config)
    return request


_TEXT_STYLE = {
    TextStyle.NORMAL: render_pb2.TEXT_STYLE_NORMAL,
    TextStyle.BOLD: render_pb2.TEXT_STYLE_BOLD,
    TextStyle.ITALIC: render_pb2.TEXT_STYLE_ITALIC,
    TextStyle.CODE: render_pb2.TEXT_STYLE_CODE,
    TextStyle.DIM: render_pb2.TEXT_STYLE_DIM,
    TextStyle.ERROR: render_pb2.TEXT_STYLE_ERROR,
    TextStyle.WARNING: render_pb2.TEXT_STYLE_WARNING,
    TextStyle.SUCCESS: render_pb2.TEXT_STYLE_SUCCESS,
}
_STYLE_FROM_WIRE = {wire: style for style, wire in _TEXT_STYLE.items()}


def section_payload(payload: bytes) -> SectionPayload:
    """A Render payload (schema_version "1") as the section it must be; ``invalid_request``
    when the bytes are not a ContextSection."""
    try:
        section = content_pb2.ContextSection.FromString(payload)
    except DecodeError as exc:
        raise invalid_request(
            f"Render: the payload is not a serialized content.v1.ContextSection ({exc})"
        ) from exc
    return SectionPayload(section.provider, section.label, section_text(section))


def node_to_proto(node: Node) -> render_pb2.RenderNode:
    match node:
        case Text(content, style):
            text = render_pb2.TextNode(content=content)
            if style is not None:
                text.style = _TEXT_STYLE[style]
            return render_pb2.RenderNode(text=text)
        case CodeBlock(content, language):
            code = render_pb2.CodeBlockNode(content=content)
            if language is not None:
                code.language = language
            return render_pb2.RenderNode(code_block=code)
        case ListNode(items, ordered):
            listed = render_pb2.ListNode(items=[node_to_proto(i) for i in items], ordered=ordered)
            return render_pb2.RenderNode(list=listed)
        case Group(children):
            group = render_pb2.GroupNode(children=[node_to_proto(c) for c in children])
            return render_pb2.RenderNode(group=group)
        case Collapsible(summary, children, collapsed):
            folded = render_pb2.CollapsibleNode(
                summary=summary,
                children=[node_to_proto(c) for c in children],
                collapsed_by_default=collapsed,
            )
            return render_pb2.RenderNode(collapsible=folded)
    raise TypeError(f"not a render node: {node!r}")  # pragma: no cover


def render_response(node: Node) -> context_pb2.RenderResponse:
    return context_pb2.RenderResponse(tree=render_pb2.RenderTree(root=node_to_proto(node)))


def node_from_proto(message: render_pb2.RenderNode) -> Node:
    """The kernel's side (the preview). A variant we never build (diff, table, link,
    sub-session, action) or none at all becomes a text naming it: never dropped."""
    which = message.WhichOneof("node")
    if which == "text":
        style = message.text.style if message.text.HasField("style") else None
        return Text(message.text.content, _STYLE_FROM_WIRE.get(style) if style else None)
    if which == "code_block":
        code = message.code_block
        return CodeBlock(code.content, code.language if code.HasField("language") else None)
    if which == "list":
        items = tuple(node_from_proto(i) for i in message.list.items)
        return ListNode(items, message.list.ordered)
    if which == "group":
        return Group(tuple(node_from_proto(c) for c in message.group.children))
    if which == "collapsible":
        folded = message.collapsible
        children = tuple(node_from_proto(c) for c in folded.children)
        return Collapsible(folded.summary, children, folded.collapsed_by_default)
    return Text(f"[{which or 'empty'} node]", TextStyle.DIM)
