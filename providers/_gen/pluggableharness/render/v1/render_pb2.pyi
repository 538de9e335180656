from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Region(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REGION_UNSPECIFIED: _ClassVar[Region]
    REGION_MAIN_CHAT: _ClassVar[Region]
    REGION_SIDEBAR: _ClassVar[Region]
    REGION_TOP_BAR: _ClassVar[Region]
    REGION_INPUT_BAR: _ClassVar[Region]
    REGION_HOTKEY_HINTS: _ClassVar[Region]
    REGION_OVERLAY: _ClassVar[Region]

class TextStyle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEXT_STYLE_UNSPECIFIED: _ClassVar[TextStyle]
    TEXT_STYLE_NORMAL: _ClassVar[TextStyle]
    TEXT_STYLE_BOLD: _ClassVar[TextStyle]
    TEXT_STYLE_ITALIC: _ClassVar[TextStyle]
    TEXT_STYLE_CODE: _ClassVar[TextStyle]
    TEXT_STYLE_DIM: _ClassVar[TextStyle]
    TEXT_STYLE_ERROR: _ClassVar[TextStyle]
    TEXT_STYLE_WARNING: _ClassVar[TextStyle]
    TEXT_STYLE_SUCCESS: _ClassVar[TextStyle]

class DiffLineOp(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIFF_LINE_OP_UNSPECIFIED: _ClassVar[DiffLineOp]
    DIFF_LINE_OP_CONTEXT: _ClassVar[DiffLineOp]
    DIFF_LINE_OP_ADD: _ClassVar[DiffLineOp]
    DIFF_LINE_OP_REMOVE: _ClassVar[DiffLineOp]
REGION_UNSPECIFIED: Region
REGION_MAIN_CHAT: Region
REGION_SIDEBAR: Region
REGION_TOP_BAR: Region
REGION_INPUT_BAR: Region
REGION_HOTKEY_HINTS: Region
REGION_OVERLAY: Region
TEXT_STYLE_UNSPECIFIED: TextStyle
TEXT_STYLE_NORMAL: TextStyle
TEXT_STYLE_BOLD: TextStyle
TEXT_STYLE_ITALIC: TextStyle
TEXT_STYLE_CODE: TextStyle
TEXT_STYLE_DIM: TextStyle
TEXT_STYLE_ERROR: TextStyle
TEXT_STYLE_WARNING: TextStyle
TEXT_STYLE_SUCCESS: TextStyle
DIFF_LINE_OP_UNSPECIFIED: DiffLineOp
DIFF_LINE_OP_CONTEXT: DiffLineOp
DIFF_LINE_OP_ADD: DiffLineOp
DIFF_LINE_OP_REMOVE: DiffLineOp

class RenderTree(_message.Message):
    __slots__ = ("root",)
    ROOT_FIELD_NUMBER: _ClassVar[int]
    root: RenderNode
    def __init__(self, root: _Optional[_Union[RenderNode, _Mapping]] = ...) -> None: ...

class PlacedContent(_message.Message):
    __slots__ = ("region", "content", "replace", "priority")
    REGION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    region: Region
    content: RenderTree
    replace: bool
    priority: int
    def __init__(self, region: _Optional[_Union[Region, str]] = ..., content: _Optional[_Union[RenderTree, _Mapping]] = ..., replace: _Optional[bool] = ..., priority: _Optional[int] = ...) -> None: ...

class DiffLine(_message.Message):
    __slots__ = ("op", "text")
    OP_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    op: DiffLineOp
    text: str
    def __init__(self, op: _Optional[_Union[DiffLineOp, str]] = ..., text: _Optional[str] = ...) -> None: ...

class DiffHunk(_message.Message):
    __slots__ = ("old_start", "old_lines", "new_start", "new_lines", "lines")
    OLD_START_FIELD_NUMBER: _ClassVar[int]
    OLD_LINES_FIELD_NUMBER: _ClassVar[int]
    NEW_START_FIELD_NUMBER: _ClassVar[int]
    NEW_LINES_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: _containers.RepeatedCompositeFieldContainer[DiffLine]
    def __init__(self, old_start: _Optional[int] = ..., old_lines: _Optional[int] = ..., new_start: _Optional[int] = ..., new_lines: _Optional[int] = ..., lines: _Optional[_Iterable[_Union[DiffLine, _Mapping]]] = ...) -> None: ...

class RenderNode(_message.Message):
    __slots__ = ("text", "code_block", "diff", "table", "link", "list", "group", "collapsible", "sub_session", "action")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CODE_BLOCK_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    LINK_FIELD_NUMBER: _ClassVar[int]
    LIST_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    COLLAPSIBLE_FIELD_NUMBER: _ClassVar[int]
    SUB_SESSION_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    text: TextNode
    code_block: CodeBlockNode
    diff: DiffNode
    table: TableNode
    link: LinkNode
    list: ListNode
    group: GroupNode
    collapsible: CollapsibleNode
    sub_session: SubSessionNode
    action: ActionNode
    def __init__(self, text: _Optional[_Union[TextNode, _Mapping]] = ..., code_block: _Optional[_Union[CodeBlockNode, _Mapping]] = ..., diff: _Optional[_Union[DiffNode, _Mapping]] = ..., table: _Optional[_Union[TableNode, _Mapping]] = ..., link: _Optional[_Union[LinkNode, _Mapping]] = ..., list: _Optional[_Union[ListNode, _Mapping]] = ..., group: _Optional[_Union[GroupNode, _Mapping]] = ..., collapsible: _Optional[_Union[CollapsibleNode, _Mapping]] = ..., sub_session: _Optional[_Union[SubSessionNode, _Mapping]] = ..., action: _Optional[_Union[ActionNode, _Mapping]] = ...) -> None: ...

class TextNode(_message.Message):
    __slots__ = ("content", "style")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STYLE_FIELD_NUMBER: _ClassVar[int]
    content: str
    style: TextStyle
    def __init__(self, content: _Optional[str] = ..., style: _Optional[_Union[TextStyle, str]] = ...) -> None: ...

class CodeBlockNode(_message.Message):
    __slots__ = ("language", "content")
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    language: str
    content: str
    def __init__(self, language: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class DiffNode(_message.Message):
    __slots__ = ("hunks",)
    HUNKS_FIELD_NUMBER: _ClassVar[int]
    hunks: _containers.RepeatedCompositeFieldContainer[DiffHunk]
    def __init__(self, hunks: _Optional[_Iterable[_Union[DiffHunk, _Mapping]]] = ...) -> None: ...

class TableRow(_message.Message):
    __slots__ = ("cells",)
    CELLS_FIELD_NUMBER: _ClassVar[int]
    cells: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cells: _Optional[_Iterable[str]] = ...) -> None: ...

class TableNode(_message.Message):
    __slots__ = ("headers", "rows")
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    headers: _containers.RepeatedScalarFieldContainer[str]
    rows: _containers.RepeatedCompositeFieldContainer[TableRow]
    def __init__(self, headers: _Optional[_Iterable[str]] = ..., rows: _Optional[_Iterable[_Union[TableRow, _Mapping]]] = ...) -> None: ...

class LinkNode(_message.Message):
    __slots__ = ("text", "url")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    text: str
    url: str
    def __init__(self, text: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class ListNode(_message.Message):
    __slots__ = ("items", "ordered")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ORDERED_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[RenderNode]
    ordered: bool
    def __init__(self, items: _Optional[_Iterable[_Union[RenderNode, _Mapping]]] = ..., ordered: _Optional[bool] = ...) -> None: ...

class GroupNode(_message.Message):
    __slots__ = ("children",)
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    children: _containers.RepeatedCompositeFieldContainer[RenderNode]
    def __init__(self, children: _Optional[_Iterable[_Union[RenderNode, _Mapping]]] = ...) -> None: ...

class CollapsibleNode(_message.Message):
    __slots__ = ("summary", "children", "collapsed_by_default")
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    COLLAPSED_BY_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    summary: str
    children: _containers.RepeatedCompositeFieldContainer[RenderNode]
    collapsed_by_default: bool
    def __init__(self, summary: _Optional[str] = ..., children: _Optional[_Iterable[_Union[RenderNode, _Mapping]]] = ..., collapsed_by_default: _Optional[bool] = ...) -> None: ...

class SubSessionNode(_message.Message):
    __slots__ = ("session_id", "summary")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    summary: str
    def __init__(self, session_id: _Optional[str] = ..., summary: _Optional[str] = ...) -> None: ...

class ActionNode(_message.Message):
    __slots__ = ("id", "label", "tool_name", "args", "provider")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    tool_name: str
    args: _struct_pb2.Struct
    provider: str
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ..., tool_name: _Optional[str] = ..., args: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., provider: _Optional[str] = ...) -> None: ...
