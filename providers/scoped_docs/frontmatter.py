"""Front matter YAML into a mapping, or a reason it cannot be trusted.

A rule whose front matter does not parse must not be applied: its scope is
unknown, and applying it everywhere is the silent failure we exist to avoid.
One leniency: Cursor writes ``globs: *.ts`` unquoted, which YAML reads as an
alias and rejects although every Cursor user means the glob. When the first
parse fails, the glob keys' unquoted one-line values are quoted and the parse
is tried once more; anything still broken is reported.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import yaml

# libyaml's loader when PyYAML was built with it: the same results, many times faster.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class FrontMatterError(ValueError):
    """Front matter that is not a YAML mapping; the message names the problem."""


def parse_front_matter(raw: str | None, glob_keys: Collection[str] = ()) -> dict[str, Any]:
    """The front matter as a dict (``{}`` when absent or empty)."""
    if raw is None or not raw.strip():
        return {}
    try:
        data = yaml.load(raw, Loader=_Loader)
    except yaml.YAMLError as exc:
        requoted = _quote_glob_values(raw, glob_keys)
        if requoted is None:
            raise FrontMatterError(_describe(exc)) from None
        try:
            data = yaml.load(requoted, Loader=_Loader)
        except yaml.YAMLError:
            raise FrontMatterError(_describe(exc)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"front matter is a {type(data).__name__}, not a mapping")
    return {str(k): v for k, v in data.items()}


def _quote_glob_values(raw: str, glob_keys: Collection[str]) -> str | None:
    """``raw`` with top-level ``key: *.ts`` lines quoted, or ``None`` if none qualify."""
    lines = raw.split("\n")
    changed = False
    for i, line in enumerate(lines):
        key, sep, value = line.partition(":")
        text = value.strip()
        if not sep or key not in glob_keys or not text or text[0] in "'\"[{|>#":
            continue
        lines[i] = f"{key}: {json.dumps(text)}"
        changed = True
    return "\n".join(lines) if changed else None


def _describe(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
    where = f" (front matter line {mark.line + 1})" if mark is not None else ""
    return f"front matter is not valid YAML: {problem}{where}"
