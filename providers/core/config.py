"""Config resolution: the provider's schema is the only source of names, types and defaults.

The kernel decodes ``agent.hcl`` against our advertised schema and sends the
result as a ``google.protobuf.Struct`` (numbers arrive as floats). This turns
that mapping into checked Python values, or an ``invalid_request`` error that
names the attribute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from providers.core.errors import invalid_request
from providers.core.types import AttrType, ConfigAttribute

MAX_TOKEN_BUDGET = 10_000_000

TOKEN_BUDGET = ConfigAttribute(
    "token_budget",
    AttrType.NUMBER,
    "Token cap for this provider's sections (the kernel's reserved attribute); "
    "0 or unset: the provider's default.",
    bounds=(0, MAX_TOKEN_BUDGET),
    zero_is_default=True,
)
PROVIDER_NAME = ConfigAttribute(
    "provider_name",
    AttrType.STRING,
    "Name stamped on our sections; defaults to the agent.hcl local name from "
    "OTEL_RESOURCE_ATTRIBUTES, then the published name.",
)
COMMON_ATTRIBUTES: tuple[ConfigAttribute, ...] = (TOKEN_BUDGET, PROVIDER_NAME)


_NAMED = 5
"""Unknown attribute names quoted in the error; the rest are counted."""


def resolve_config(schema: Sequence[ConfigAttribute], raw: Mapping[str, Any]) -> dict[str, Any]:
    """Check ``raw`` against ``schema``; fill defaults; reject unknown names."""
    by_name = {attr.name: attr for attr in schema}
    unknown = sorted(set(raw) - set(by_name))
    if unknown:
        shown = ", ".join(repr(name[:60]) for name in unknown[:_NAMED])
        more = f" and {len(unknown) - _NAMED} more" if len(unknown) > _NAMED else ""
        what = (
            "unknown config attribute"
            if len(unknown) == 1
            else (f"{len(unknown)} unknown config attributes")
        )
        raise invalid_request(f"{what}: {shown}{more} (known: {', '.join(sorted(by_name))})")
    resolved: dict[str, Any] = {}
    for attr in schema:
        value = raw.get(attr.name)
        if attr.zero_is_default and _is_zero(value):
            value = None
        if value is None:
            if attr.required:
                raise invalid_request(f"config attribute {attr.name!r} is required")
            resolved[attr.name] = attr.default
        else:
            resolved[attr.name] = _coerce(attr, value)
    return resolved


def _is_zero(value: Any) -> bool:
    """The zero value of a config type (never ``False``: bools are read as written)."""
    if isinstance(value, bool):
        return False
    return value in ("", 0) or (isinstance(value, list | tuple | Mapping) and not value)


def _coerce(attr: ConfigAttribute, value: Any) -> Any:
    name = attr.name
    if attr.type is AttrType.STRING:
        if not isinstance(value, str):
            raise invalid_request(f"config attribute {name!r} must be a string")
        return value
    if attr.type is AttrType.BOOL:
        if not isinstance(value, bool):
            raise invalid_request(f"config attribute {name!r} must be a bool")
        return value
    if attr.type is AttrType.NUMBER:
        number = _number(name, value)
        if attr.bounds is not None:
            low, high = attr.bounds
            if not isinstance(number, int) or not low <= number <= high:
                raise invalid_request(
                    f"config attribute {name!r} must be a whole number from {low:,} to "
                    f"{high:,} (got {value!r})"
                )
        return number
    if attr.type is AttrType.LIST_STRING:
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise invalid_request(f"config attribute {name!r} must be a list of strings")
        return tuple(value)
    if attr.type is AttrType.LIST_NUMBER:
        if not isinstance(value, list | tuple):
            raise invalid_request(f"config attribute {name!r} must be a list of numbers")
        return tuple(_number(name, v) for v in value)
    if attr.type is AttrType.MAP_STRING:
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise invalid_request(f"config attribute {name!r} must be a map of strings")
        return dict(value)
    if not isinstance(value, Mapping):
        raise invalid_request(f"config attribute {name!r} must be an object")
    return resolve_config(attr.object_attributes, value)


def _number(name: str, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise invalid_request(f"config attribute {name!r} must be a number")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
