"""A ``provider`` block decoded against the plugin's config schema, as the kernel's hcldec does.

The upstream kernel (``internal/config/bridge.go``) builds one attribute spec
per schema attribute and decodes the block with HCL's type conversion
(go-cty's ``convert``), then sends the result as a ``google.protobuf.Struct``:

- every schema attribute is present; one the block omits is ``null`` (the
  kernel fills in no defaults: ``default_json`` is never read);
- values are converted to the schema's type the way cty converts: a string
  ``"3000"`` becomes the number 3000, a number or a bool becomes a string,
  ``"true"``/``"1"`` and ``"false"``/``"0"`` become bools, list elements and
  map values convert one by one; a bare scalar is not wrapped into a list;
- numbers travel as doubles;
- an attribute the schema does not declare, or any nested block, is an error
  (``Unsupported argument``), so is a missing required one;
- ``OBJECT`` attributes take any value, unconverted.

The messages follow HCL's own wording so what fails here fails the same way
in the kernel.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from providers.core.types import AttrType, ConfigAttribute

BLOCK_MARK = "__is_block__"
"""python-hcl2's mark on a value that was written as a block (``x { ... }``)."""

_ENV_CALL = re.compile(r'^\$\{env\("([^"\\]*)"\)\}$')
"""The one function the kernel's evaluation context has: ``env("NAME")``."""


class DecodeError(ValueError):
    """The block cannot be decoded against the schema; the message is HCL's."""


def decode_block(
    schema: Sequence[ConfigAttribute],
    block: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Every schema attribute, converted, ``None`` where the block has no value."""
    environ = os.environ if environ is None else environ
    by_name = {attr.name: attr for attr in schema}
    problems: list[str] = []
    for name, value in block.items():
        if name == BLOCK_MARK:
            continue
        if _is_block(value):
            problems.append(
                f'Unsupported block type; Blocks of type "{name}" are not expected here.'
            )
        elif name not in by_name:
            problems.append(
                f'Unsupported argument; An argument named "{name}" is not expected here.'
            )
    decoded: dict[str, Any] = {}
    for attr in schema:
        if attr.name not in block:
            if attr.required:
                problems.append(
                    f'Missing required argument; The argument "{attr.name}" is required, '
                    "but no definition was found."
                )
            decoded[attr.name] = None
            continue
        try:
            decoded[attr.name] = _convert(attr.type, _evaluate(block[attr.name], environ))
        except DecodeError as exc:
            problems.append(
                "Incorrect attribute value type; Inappropriate value for attribute "
                f'"{attr.name}": {exc}.'
            )
    if problems:
        more = f", and {len(problems) - 1} other diagnostic(s)" if len(problems) > 1 else ""
        raise DecodeError(problems[0] + more)
    return decoded


def _is_block(value: Any) -> bool:
    if isinstance(value, Mapping):
        return bool(value.get(BLOCK_MARK))
    if isinstance(value, list):
        return any(_is_block(item) for item in value)
    return False


def _evaluate(value: Any, environ: Mapping[str, str]) -> Any:
    """``env("NAME")`` calls replaced by their value (anywhere in the value)."""
    if isinstance(value, str):
        found = _ENV_CALL.match(value)
        if found is None:
            return value
        name = found.group(1)
        if name not in environ:
            raise DecodeError(f'env("{name}"): environment variable not set')
        return environ[name]
    if isinstance(value, list):
        return [_evaluate(item, environ) for item in value]
    if isinstance(value, Mapping):
        return {k: _evaluate(v, environ) for k, v in value.items() if k != BLOCK_MARK}
    return value


def _convert(kind: AttrType, value: Any) -> Any:
    if value is None or kind is AttrType.OBJECT:
        return value
    if kind is AttrType.STRING:
        return _string(value)
    if kind is AttrType.NUMBER:
        return _number(value)
    if kind is AttrType.BOOL:
        return _bool(value)
    if kind in (AttrType.LIST_STRING, AttrType.LIST_NUMBER):
        if not isinstance(value, list):
            raise DecodeError(
                "list of " + ("string" if kind is AttrType.LIST_STRING else "number") + " required"
            )
        element = _string if kind is AttrType.LIST_STRING else _number
        return [element(item) for item in value]
    if not isinstance(value, Mapping):
        raise DecodeError("map of string required")
    return {str(k): _string(v) for k, v in value.items()}


def _string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return value
    raise DecodeError("string required")


def _number(value: Any) -> float:
    if isinstance(value, bool):
        raise DecodeError("number required")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            parsed = Decimal(value.strip())
        except InvalidOperation:
            raise DecodeError("a number is required") from None
        if not parsed.is_finite() or value.strip() != value:
            raise DecodeError("a number is required")
        number = float(parsed)
        if math.isinf(number):
            raise DecodeError("a number is required")
        return number
    raise DecodeError("number required")


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "1"):
            return True
        if value in ("false", "0"):
            return False
        raise DecodeError('a bool is required; to convert from string, use lowercase "true"')
    raise DecodeError("bool required")
