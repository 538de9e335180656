from google.protobuf import struct_pb2 as _struct_pb2
from providers._gen.pluggableharness.common.v1 import common_pb2 as _common_pb2
from providers._gen.pluggableharness.config.v1 import config_pb2 as _config_pb2
from providers._gen.pluggableharness.content.v1 import content_pb2 as _content_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2 as _model_pb2
from providers._gen.pluggableharness.render.v1 import render_pb2 as _render_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ContextErrorCategory(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTEXT_ERROR_CATEGORY_UNSPECIFIED: _ClassVar[ContextErrorCategory]
    CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE: _ClassVar[ContextErrorCategory]
    CONTEXT_ERROR_CATEGORY_BUDGET_EXCEEDED: _ClassVar[ContextErrorCategory]
    CONTEXT_ERROR_CATEGORY_SCOPE_VIOLATION: _ClassVar[ContextErrorCategory]
    CONTEXT_ERROR_CATEGORY_INVALID_REQUEST: _ClassVar[ContextErrorCategory]
    CONTEXT_ERROR_CATEGORY_UNKNOWN: _ClassVar[ContextErrorCategory]
CONTEXT_ERROR_CATEGORY_UNSPECIFIED: ContextErrorCategory
CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE: ContextErrorCategory
CONTEXT_ERROR_CATEGORY_BUDGET_EXCEEDED: ContextErrorCategory
CONTEXT_ERROR_CATEGORY_SCOPE_VIOLATION: ContextErrorCategory
CONTEXT_ERROR_CATEGORY_INVALID_REQUEST: ContextErrorCategory
CONTEXT_ERROR_CATEGORY_UNKNOWN: ContextErrorCategory

class GetCapabilitiesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCapabilitiesResponse(_message.Message):
    __slots__ = ("capabilities",)
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    capabilities: ContextCapabilities
    def __init__(self, capabilities: _Optional[_Union[ContextCapabilities, _Mapping]] = ...) -> None: ...

class ContextCapabilities(_message.Message):
    __slots__ = ("default_token_budget", "stability", "compactor", "config_schema", "supported_hook_points")
    DEFAULT_TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    STABILITY_FIELD_NUMBER: _ClassVar[int]
    COMPACTOR_FIELD_NUMBER: _ClassVar[int]
    CONFIG_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    SUPPORTED_HOOK_POINTS_FIELD_NUMBER: _ClassVar[int]
    default_token_budget: int
    stability: _content_pb2.Stability
    compactor: bool
    config_schema: _config_pb2.ConfigSchema
    supported_hook_points: _containers.RepeatedScalarFieldContainer[_common_pb2.HookPoint]
    def __init__(self, default_token_budget: _Optional[int] = ..., stability: _Optional[_Union[_content_pb2.Stability, str]] = ..., compactor: _Optional[bool] = ..., config_schema: _Optional[_Union[_config_pb2.ConfigSchema, _Mapping]] = ..., supported_hook_points: _Optional[_Iterable[_Union[_common_pb2.HookPoint, str]]] = ...) -> None: ...

class ConfigureRequest(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: _struct_pb2.Struct
    def __init__(self, config: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ConfigureResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ContextRequest(_message.Message):
    __slots__ = ("session_id", "parent_session_id", "turn_id", "token_budget", "model_target", "files_touched", "working_directory", "prior_sections", "conversation_history", "history_tokens", "assembled_tokens_last_turn")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    MODEL_TARGET_FIELD_NUMBER: _ClassVar[int]
    FILES_TOUCHED_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    PRIOR_SECTIONS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_HISTORY_FIELD_NUMBER: _ClassVar[int]
    HISTORY_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ASSEMBLED_TOKENS_LAST_TURN_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    parent_session_id: str
    turn_id: str
    token_budget: int
    model_target: _model_pb2.ModelTarget
    files_touched: _containers.RepeatedScalarFieldContainer[str]
    working_directory: str
    prior_sections: _containers.RepeatedCompositeFieldContainer[_content_pb2.ContextSection]
    conversation_history: _containers.RepeatedCompositeFieldContainer[_content_pb2.Message]
    history_tokens: int
    assembled_tokens_last_turn: int
    def __init__(self, session_id: _Optional[str] = ..., parent_session_id: _Optional[str] = ..., turn_id: _Optional[str] = ..., token_budget: _Optional[int] = ..., model_target: _Optional[_Union[_model_pb2.ModelTarget, _Mapping]] = ..., files_touched: _Optional[_Iterable[str]] = ..., working_directory: _Optional[str] = ..., prior_sections: _Optional[_Iterable[_Union[_content_pb2.ContextSection, _Mapping]]] = ..., conversation_history: _Optional[_Iterable[_Union[_content_pb2.Message, _Mapping]]] = ..., history_tokens: _Optional[int] = ..., assembled_tokens_last_turn: _Optional[int] = ...) -> None: ...

class ContextContribution(_message.Message):
    __slots__ = ("sections", "rewritten_history")
    SECTIONS_FIELD_NUMBER: _ClassVar[int]
    REWRITTEN_HISTORY_FIELD_NUMBER: _ClassVar[int]
    sections: _containers.RepeatedCompositeFieldContainer[_content_pb2.ContextSection]
    rewritten_history: _containers.RepeatedCompositeFieldContainer[_content_pb2.Message]
    def __init__(self, sections: _Optional[_Iterable[_Union[_content_pb2.ContextSection, _Mapping]]] = ..., rewritten_history: _Optional[_Iterable[_Union[_content_pb2.Message, _Mapping]]] = ...) -> None: ...

class ContextError(_message.Message):
    __slots__ = ("category", "message", "retryable")
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    category: ContextErrorCategory
    message: str
    retryable: bool
    def __init__(self, category: _Optional[_Union[ContextErrorCategory, str]] = ..., message: _Optional[str] = ..., retryable: _Optional[bool] = ...) -> None: ...

class RenderRequest(_message.Message):
    __slots__ = ("payload", "schema_version")
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    schema_version: str
    def __init__(self, payload: _Optional[bytes] = ..., schema_version: _Optional[str] = ...) -> None: ...

class RenderResponse(_message.Message):
    __slots__ = ("tree",)
    TREE_FIELD_NUMBER: _ClassVar[int]
    tree: _render_pb2.RenderTree
    def __init__(self, tree: _Optional[_Union[_render_pb2.RenderTree, _Mapping]] = ...) -> None: ...

class DescribeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ("producer",)
    PRODUCER_FIELD_NUMBER: _ClassVar[int]
    producer: _common_pb2.ProducerRef
    def __init__(self, producer: _Optional[_Union[_common_pb2.ProducerRef, _Mapping]] = ...) -> None: ...
