"""Front matter YAML into a mapping, or a reason it cannot be trusted.

A rule whose front matter does not parse must not be applied: its scope is
unknown, and applying it everywhere is the silent failure we exist to avoid.
One leniency: Cursor writes ``globs: *.ts`` unquoted, which YAML reads as an
alias and rejects although every Cursor user means the glob. When the first
parse fails, the glob keys' unquoted one-line values are quoted and the parse
is tried once more; anything still broken is reported.

Front matter is bounded before anything is built from it: its size, its
nesting depth and the number of values its aliases would expand to (a
"billion laughs" alias bomb is a few hundred bytes). YAML is composed into
its node graph first, where aliases are shared nodes, measured there, and
only then constructed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

import yaml

# libyaml's loader when PyYAML was built with it: the same results, many times faster.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_FRONT_MATTER_BYTES = 64 * 1024
MAX_VALUES = 10_000
"""Values (scalars, items, keys) the front matter may hold once aliases are expanded."""
MAX_DEPTH = 64


class FrontMatterError(ValueError):
    """Front matter that is not a YAML mapping; the message names the problem."""


def parse_front_matter(raw: str | None, glob_keys: Collection[str] = ()) -> dict[str, Any]:
    """The front matter as a dict (``{}`` when absent or empty)."""
    if raw is None or not raw.strip():
        return {}
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_FRONT_MATTER_BYTES:
        raise FrontMatterError(f"front matter is larger than {MAX_FRONT_MATTER_BYTES} bytes")
    try:
        data = _bounded_load(raw)
    except yaml.YAMLError as exc:
        requoted = _quote_glob_values(raw, glob_keys)
        if requoted is None:
            raise FrontMatterError(_describe(exc)) from None
        try:
            data = _bounded_load(requoted)
        except yaml.YAMLError:
            raise FrontMatterError(_describe(exc)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"front matter is a {type(data).__name__}, not a mapping")
    return {str(k): v for k, v in data.items()}


def _bounded_load(raw: str) -> Any:
    """``yaml.safe_load`` of ``raw``, refused (:class:`FrontMatterError`) past the bounds."""
    loader = _Loader(raw)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_bounds(node)
        return loader.construct_document(node)
    except RecursionError:
        raise FrontMatterError(f"front matter is nested deeper than {MAX_DEPTH}") from None
    finally:
        loader.dispose()


def _check_bounds(root: yaml.Node) -> None:
    """Depth and expanded size of a node graph, each shared (aliased) node measured once."""
    sizes: dict[int, int] = {}
    started: set[int] = set()  # begun, not finished: the ancestors of the node in hand
    # Iterative post-order walk: (node, depth, children done).
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > MAX_DEPTH:
            raise FrontMatterError(f"front matter is nested deeper than {MAX_DEPTH}")
        children = _children(node)
        if not done:
            if id(node) in sizes:
                continue
            if id(node) in started:
                raise FrontMatterError("front matter refers to itself (a recursive alias)")
            started.add(id(node))
            stack.append((node, depth, True))
            stack.extend((child, depth + 1, False) for child in children if id(child) not in sizes)
            continue
        started.discard(id(node))
        total = 1 + sum(sizes.get(id(child), 0) for child in children)
        if total > MAX_VALUES:
            raise FrontMatterError(
                f"front matter expands to over {MAX_VALUES} values (aliases); not read"
            )
        sizes[id(node)] = total


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


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


_TOP_KEY = re.compile(r"^([A-Za-z_-]+):\s+(\S.*)$")
_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")


def quote_special_values(raw: str) -> str:
    """Claude Code's second try at a front matter that did not parse: each top-level
    ``key: value`` line whose unquoted value holds a YAML indicator (``*``, ``[``, ``: ``,
    ...) gets it double-quoted, unless it is a flow list that parses; leading tabs become
    two spaces each."""
    lines: list[str] = []
    for line in raw.split("\n"):
        found = _TOP_KEY.match(line)
        if found is not None:
            key, value = found.groups()
            quoted = value[0] == value[-1] and value[0] in "'\"" and len(value) > 1
            if not quoted and not _flow_list(value) and _SPECIAL.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        lines.append(re.sub(r"^\t+", lambda tabs: "  " * len(tabs.group(0)), line))
    return "\n".join(lines)


def _flow_list(value: str) -> bool:
    if not (value.startswith("[") and value.endswith("]")):
        return False
    try:
        return isinstance(_bounded_load(value), list)
    except (yaml.YAMLError, FrontMatterError):
        return False


_SCALAR_LINE = re.compile(r"^([A-Za-z_][\w.-]*):[ \t]*(.*?)[ \t]*$")


def recover_keys(raw: str) -> dict[str, Any]:
    """What a tolerant parser (VS Code's) still reads from a front matter that is not
    valid YAML: each top-level ``key: value`` line, its value a plain or quoted string
    (``true``/``false`` as booleans); nested and multi-line values are not recovered."""
    found: dict[str, Any] = {}
    for line in raw.split("\n"):
        match = _SCALAR_LINE.match(line)
        if match is None or match.group(1) in found:
            continue
        key, value = match.groups()
        value = value.split(" #", 1)[0].rstrip()
        if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
            found[key] = value[1:-1]
        elif value in ("true", "false"):
            found[key] = value == "true"
        elif value:
            found[key] = value
    return found


def _describe(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
    where = f" (front matter line {mark.line + 1})" if mark is not None else ""
    return f"front matter is not valid YAML: {problem}{where}"
