"""Talk to an MCP server over real stdio with the official ``mcp`` client SDK (1.x or 2.x).

``talk(argv, cwd, env, steps)`` starts the server as a client would (its own process,
in ``cwd``), initializes, lists its tools and resources, runs ``steps`` (tool calls and
resource reads) in order and returns everything as plain JSON (``by_alias``: the wire's
own names, ``isError``, ``mimeType``, the same in both SDK majors).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Read:
    uri: str


Step = Call | Read


@dataclass
class Talk:
    instructions: str
    tools: list[dict[str, Any]]
    resources: list[dict[str, Any]]
    answers: list[dict[str, Any]]
    """One per step: a CallToolResult or a ReadResourceResult, as JSON."""
    seconds_to_initialize: float

    def text(self, index: int) -> str:
        """The text of step ``index``'s answer (a tool's content or a resource's)."""
        answer = self.answers[index]
        items = answer.get("content") or answer.get("contents") or []
        return "".join(str(item.get("text", "")) for item in items)

    def is_error(self, index: int) -> bool:
        return bool(self.answers[index].get("isError"))


def _json(value: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


async def _talk(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], steps: Sequence[Step]
) -> Talk:
    started = time.monotonic()
    params = StdioServerParameters(command=argv[0], args=list(argv[1:]), cwd=cwd, env=dict(env))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = _json(await session.initialize())
        ready = time.monotonic() - started
        tools = _json(await session.list_tools())["tools"]
        resources = _json(await session.list_resources())["resources"]
        answers = []
        for step in steps:
            if isinstance(step, Call):
                answers.append(_json(await session.call_tool(step.tool, dict(step.arguments))))
            else:
                answers.append(_json(await session.read_resource(step.uri)))
    return Talk(str(init.get("instructions") or ""), tools, resources, answers, ready)


def talk(
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    steps: Sequence[Step] = (),
    timeout_s: float = 120,
) -> Talk:
    return asyncio.run(asyncio.wait_for(_talk(argv, cwd, env, steps), timeout_s))
