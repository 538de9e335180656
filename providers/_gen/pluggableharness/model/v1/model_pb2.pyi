from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ModelTarget(_message.Message):
    __slots__ = ("id", "context_window", "effective_ceiling")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_CEILING_FIELD_NUMBER: _ClassVar[int]
    id: str
    context_window: int
    effective_ceiling: int
    def __init__(self, id: _Optional[str] = ..., context_window: _Optional[int] = ..., effective_ceiling: _Optional[int] = ...) -> None: ...

class ModelRef(_message.Message):
    __slots__ = ("provider", "id")
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    provider: str
    id: str
    def __init__(self, provider: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...
