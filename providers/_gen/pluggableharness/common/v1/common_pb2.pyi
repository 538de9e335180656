from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Category(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CATEGORY_UNSPECIFIED: _ClassVar[Category]
    CATEGORY_MODEL: _ClassVar[Category]
    CATEGORY_TOOL: _ClassVar[Category]
    CATEGORY_CONTEXT: _ClassVar[Category]
    CATEGORY_MEMORY: _ClassVar[Category]
    CATEGORY_FRONTEND: _ClassVar[Category]
    CATEGORY_WIDGET: _ClassVar[Category]

class HookPoint(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HOOK_POINT_UNSPECIFIED: _ClassVar[HookPoint]
CATEGORY_UNSPECIFIED: Category
CATEGORY_MODEL: Category
CATEGORY_TOOL: Category
CATEGORY_CONTEXT: Category
CATEGORY_MEMORY: Category
CATEGORY_FRONTEND: Category
CATEGORY_WIDGET: Category
HOOK_POINT_UNSPECIFIED: HookPoint

class ProducerRef(_message.Message):
    __slots__ = ("name", "version", "source", "category", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    source: str
    category: Category
    protocol_version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., source: _Optional[str] = ..., category: _Optional[_Union[Category, str]] = ..., protocol_version: _Optional[int] = ...) -> None: ...
