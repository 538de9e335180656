from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_USER: _ClassVar[Role]
    ROLE_ASSISTANT: _ClassVar[Role]

class Stability(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STABILITY_UNSPECIFIED: _ClassVar[Stability]
    STABILITY_STATIC: _ClassVar[Stability]
    STABILITY_DYNAMIC: _ClassVar[Stability]
ROLE_UNSPECIFIED: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
STABILITY_UNSPECIFIED: Stability
STABILITY_STATIC: Stability
STABILITY_DYNAMIC: Stability

class Message(_message.Message):
    __slots__ = ("role", "content", "id", "produced_by_model_id", "produced_by_provider")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCED_BY_MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCED_BY_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    role: Role
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    id: str
    produced_by_model_id: str
    produced_by_provider: str
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ..., id: _Optional[str] = ..., produced_by_model_id: _Optional[str] = ..., produced_by_provider: _Optional[str] = ...) -> None: ...

class ContentBlock(_message.Message):
    __slots__ = ("text", "tool_use", "tool_result", "image", "thinking", "redacted_thinking", "document")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_USE_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    THINKING_FIELD_NUMBER: _ClassVar[int]
    REDACTED_THINKING_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    text: TextBlock
    tool_use: ToolUseBlock
    tool_result: ToolResultBlock
    image: ImageBlock
    thinking: ThinkingBlock
    redacted_thinking: RedactedThinkingBlock
    document: DocumentBlock
    def __init__(self, text: _Optional[_Union[TextBlock, _Mapping]] = ..., tool_use: _Optional[_Union[ToolUseBlock, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResultBlock, _Mapping]] = ..., image: _Optional[_Union[ImageBlock, _Mapping]] = ..., thinking: _Optional[_Union[ThinkingBlock, _Mapping]] = ..., redacted_thinking: _Optional[_Union[RedactedThinkingBlock, _Mapping]] = ..., document: _Optional[_Union[DocumentBlock, _Mapping]] = ...) -> None: ...

class TextBlock(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ToolUseBlock(_message.Message):
    __slots__ = ("id", "name", "arguments")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    arguments: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., arguments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolResultBlock(_message.Message):
    __slots__ = ("tool_use_id", "content", "is_error")
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    is_error: bool
    def __init__(self, tool_use_id: _Optional[str] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ..., is_error: _Optional[bool] = ...) -> None: ...

class ImageBlock(_message.Message):
    __slots__ = ("data", "media_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    media_type: str
    def __init__(self, data: _Optional[bytes] = ..., media_type: _Optional[str] = ...) -> None: ...

class ThinkingBlock(_message.Message):
    __slots__ = ("text", "signature")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    text: str
    signature: bytes
    def __init__(self, text: _Optional[str] = ..., signature: _Optional[bytes] = ...) -> None: ...

class RedactedThinkingBlock(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...

class DocumentBlock(_message.Message):
    __slots__ = ("data", "media_type", "filename")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    media_type: str
    filename: str
    def __init__(self, data: _Optional[bytes] = ..., media_type: _Optional[str] = ..., filename: _Optional[str] = ...) -> None: ...

class ContextSection(_message.Message):
    __slots__ = ("provider", "label", "content", "tokens", "stability", "truncated")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    STABILITY_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    provider: str
    label: str
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    tokens: int
    stability: Stability
    truncated: bool
    def __init__(self, provider: _Optional[str] = ..., label: _Optional[str] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ..., tokens: _Optional[int] = ..., stability: _Optional[_Union[Stability, str]] = ..., truncated: _Optional[bool] = ...) -> None: ...
