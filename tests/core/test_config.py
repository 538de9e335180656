"""Config resolution against a provider's schema: names, types, defaults."""

from __future__ import annotations

import pytest

from providers.core.config import COMMON_ATTRIBUTES, resolve_config
from providers.core.errors import ErrorCategory, ProviderError
from providers.core.types import AttrType, ConfigAttribute

SCHEMA = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute("paths", AttrType.LIST_STRING, "p", default=("A",)),
    ConfigAttribute("flag", AttrType.BOOL, "f", default=False),
    ConfigAttribute("dirs", AttrType.MAP_STRING, "d", default=None),
)


def test_defaults_and_struct_numbers() -> None:
    values = resolve_config(SCHEMA, {"token_budget": 300.0})
    assert values["token_budget"] == 300 and isinstance(values["token_budget"], int)
    assert values["paths"] == ("A",) and values["flag"] is False


@pytest.mark.parametrize(
    "raw",
    [
        {"nope": 1},
        {"token_budget": "many"},
        {"token_budget": True},
        {"paths": "AGENTS.md"},
        {"flag": 1},
        {"dirs": {"a": 1}},
    ],
)
def test_bad_config_is_invalid_request(raw: dict[str, object]) -> None:
    with pytest.raises(ProviderError) as info:
        resolve_config(SCHEMA, raw)
    assert info.value.category is ErrorCategory.INVALID_REQUEST
    assert next(iter(raw)) in info.value.message
