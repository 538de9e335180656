from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AttrType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ATTR_TYPE_UNSPECIFIED: _ClassVar[AttrType]
    ATTR_TYPE_STRING: _ClassVar[AttrType]
    ATTR_TYPE_NUMBER: _ClassVar[AttrType]
    ATTR_TYPE_BOOL: _ClassVar[AttrType]
    ATTR_TYPE_LIST_STRING: _ClassVar[AttrType]
    ATTR_TYPE_LIST_NUMBER: _ClassVar[AttrType]
    ATTR_TYPE_MAP_STRING: _ClassVar[AttrType]
    ATTR_TYPE_OBJECT: _ClassVar[AttrType]
ATTR_TYPE_UNSPECIFIED: AttrType
ATTR_TYPE_STRING: AttrType
ATTR_TYPE_NUMBER: AttrType
ATTR_TYPE_BOOL: AttrType
ATTR_TYPE_LIST_STRING: AttrType
ATTR_TYPE_LIST_NUMBER: AttrType
ATTR_TYPE_MAP_STRING: AttrType
ATTR_TYPE_OBJECT: AttrType

class ConfigAttribute(_message.Message):
    __slots__ = ("name", "type", "required", "sensitive", "description", "object_attributes", "default_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    SENSITIVE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OBJECT_ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: AttrType
    required: bool
    sensitive: bool
    description: str
    object_attributes: _containers.RepeatedCompositeFieldContainer[ConfigAttribute]
    default_json: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[AttrType, str]] = ..., required: _Optional[bool] = ..., sensitive: _Optional[bool] = ..., description: _Optional[str] = ..., object_attributes: _Optional[_Iterable[_Union[ConfigAttribute, _Mapping]]] = ..., default_json: _Optional[str] = ...) -> None: ...

class ConfigSchema(_message.Message):
    __slots__ = ("attributes",)
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    attributes: _containers.RepeatedCompositeFieldContainer[ConfigAttribute]
    def __init__(self, attributes: _Optional[_Iterable[_Union[ConfigAttribute, _Mapping]]] = ...) -> None: ...
