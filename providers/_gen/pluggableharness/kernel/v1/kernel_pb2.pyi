from providers._gen.pluggableharness.content.v1 import content_pb2 as _content_pb2
from providers._gen.pluggableharness.log.v1 import log_pb2 as _log_pb2
from providers._gen.pluggableharness.model.v1 import model_pb2 as _model_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CountTokensRequest(_message.Message):
    __slots__ = ("content", "model_ref")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MODEL_REF_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[_content_pb2.ContentBlock]
    model_ref: _model_pb2.ModelRef
    def __init__(self, content: _Optional[_Iterable[_Union[_content_pb2.ContentBlock, _Mapping]]] = ..., model_ref: _Optional[_Union[_model_pb2.ModelRef, _Mapping]] = ...) -> None: ...

class CountTokensResult(_message.Message):
    __slots__ = ("count", "exact")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    count: int
    exact: bool
    def __init__(self, count: _Optional[int] = ..., exact: _Optional[bool] = ...) -> None: ...

class LogRequest(_message.Message):
    __slots__ = ("session_id", "entry", "entries")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    entry: _log_pb2.LogEntry
    entries: _containers.RepeatedCompositeFieldContainer[_log_pb2.LogEntry]
    def __init__(self, session_id: _Optional[str] = ..., entry: _Optional[_Union[_log_pb2.LogEntry, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[_log_pb2.LogEntry, _Mapping]]] = ...) -> None: ...

class LogResult(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
