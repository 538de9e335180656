"""A provider block decoded against a schema as the kernel's hcldec bridge does it
(internal/config/bridge.go): every attribute present, null when omitted, values converted
the way go-cty converts, unknown attributes and nested blocks refused."""

from __future__ import annotations

import pytest

from providers.core.types import AttrType, ConfigAttribute
from providers.host.decode import BLOCK_MARK, DecodeError, decode_block

SCHEMA = (
    ConfigAttribute("token_budget", AttrType.NUMBER, ""),
    ConfigAttribute("name", AttrType.STRING, ""),
    ConfigAttribute("watch", AttrType.BOOL, ""),
    ConfigAttribute("paths", AttrType.LIST_STRING, ""),
    ConfigAttribute("sizes", AttrType.LIST_NUMBER, ""),
    ConfigAttribute("dirs", AttrType.MAP_STRING, ""),
    ConfigAttribute("extra", AttrType.OBJECT, ""),
)


def test_omitted_attributes_are_null_and_present() -> None:
    assert decode_block(SCHEMA, {}) == {a.name: None for a in SCHEMA}


def test_values_convert_as_cty_converts() -> None:
    decoded = decode_block(
        SCHEMA,
        {
            "token_budget": "3000",
            "name": 12,
            "watch": "false",
            "paths": ["a", 1, True],
            "sizes": ["1", 2.5],
            "dirs": {"x": 1, "y": False},
            "extra": {"port": "8080", "deep": [1]},
        },
    )
    assert decoded == {
        "token_budget": 3000.0,
        "name": "12",
        "watch": False,
        "paths": ["a", "1", "true"],
        "sizes": [1.0, 2.5],
        "dirs": {"x": "1", "y": "false"},
        "extra": {"port": "8080", "deep": [1]},
    }
    assert isinstance(decoded["token_budget"], float)  # numbers travel as doubles


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"nope": 1}, 'Unsupported argument; An argument named "nope" is not expected here.'),
        ({"inner": {BLOCK_MARK: True}}, 'Blocks of type "inner" are not expected here.'),
        ({"token_budget": "lots"}, '"token_budget": a number is required.'),
        ({"watch": "True"}, 'to convert from string, use lowercase "true"'),
        ({"paths": "a"}, "list of string required"),
        ({"dirs": {"x": [1]}}, "string required"),
        ({"name": '${env("NOT_SET_ANYWHERE")}'}, "environment variable not set"),
    ],
)
def test_what_the_kernel_refuses(block: dict[str, object], message: str) -> None:
    with pytest.raises(DecodeError) as caught:
        decode_block(SCHEMA, block, environ={})
    assert message in str(caught.value)


def test_env_is_the_one_function() -> None:
    decoded = decode_block(SCHEMA, {"name": '${env("WHO")}'}, environ={"WHO": "me"})
    assert decoded["name"] == "me"


def test_required_attributes_must_be_written() -> None:
    schema = (ConfigAttribute("key", AttrType.STRING, "", required=True),)
    with pytest.raises(DecodeError, match='The argument "key" is required'):
        decode_block(schema, {})
