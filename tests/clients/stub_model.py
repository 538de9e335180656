"""A loopback stub model for the real agent clients: records every request, answers a script.

The clients are run offline against this server (127.0.0.1, a free port) so a test can see
exactly what each client sends to its model: which hook output, convention file or MCP
instruction reached the request. It speaks the three wire APIs the clients use:

- Anthropic Messages (Claude Code): ``POST /v1/messages``, SSE when ``stream`` is true,
  one JSON message otherwise; ``/v1/messages/count_tokens`` too.
- Gemini (Gemini CLI): ``POST .../models/M:generateContent`` and
  ``:streamGenerateContent?alt=sse``; a request that asks for JSON by a response schema
  (the CLI's routing classifier, its next-speaker check) gets JSON built from that schema.
- OpenAI Responses (Codex CLI): ``POST /v1/responses`` as SSE.

A script is a list of replies, :class:`Text` (final answer), :class:`ReadFile` (a tool
call reading one file: Claude ``Read``, Gemini ``read_file``, Codex a shell ``cat``) or
:class:`McpCall` (a call of an MCP server's tool, by the name each client gives it). Which
reply a request gets is decided by the conversation it carries, not by a counter: the
number of tool results already in it. So retries, and side requests that carry no tools
(titles, summaries), never use up the script; those get :data:`SIDE_REPLY`.

Standard library only: ``http.server``, ``threading``, ``json``.
"""

from __future__ import annotations

import gzip
import itertools
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

SIDE_REPLY = "stub side reply"
"""What a request outside the script's conversation (no tools offered) is answered."""

# Headers kept on each recorded request; credentials are never kept.
HEADERS_OF_INTEREST = (
    "content-type",
    "accept",
    "user-agent",
    "anthropic-version",
    "anthropic-beta",
    "x-goog-api-client",
    "openai-beta",
    "originator",
    "session_id",
    "x-app",
)


@dataclass(frozen=True)
class Text:
    """A final answer: the client prints it and the one-shot run ends."""

    text: str


@dataclass(frozen=True)
class ReadFile:
    """A tool call that makes the client read ``path`` (Claude wants it absolute)."""

    path: str


@dataclass(frozen=True)
class Shell:
    """A call of the client's shell tool running ``command``: Claude ``Bash``, Gemini
    ``run_shell_command`` (offered only outside its default approval mode), Codex its
    shell."""

    command: str


@dataclass(frozen=True)
class ClaudeTool:
    """Claude only: a call of its tool ``name`` with ``input`` (``Write``, ``Edit``)."""

    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Patch:
    """Codex only: a call of its ``apply_patch`` tool with ``patch`` (Codex's patch format)."""

    patch: str


@dataclass(frozen=True)
class McpCall:
    """A call of the tool ``tool`` of the MCP server ``server`` with ``arguments``, named
    as each client names it: Claude ``mcp__SERVER__TOOL``, Gemini ``mcp_SERVER_TOOL``,
    Codex ``tools.mcp__SERVER__TOOL(...)`` inside its JavaScript ``exec`` tool (code
    mode) or a ``mcp__SERVER__TOOL`` function call."""

    server: str
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


Reply = Text | ReadFile | Shell | ClaudeTool | Patch | McpCall


@dataclass(frozen=True)
class Recorded:
    """One request as the stub saw it; ``body`` is the parsed JSON (or None)."""

    method: str
    path: str
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]
    body: Any
    raw: bytes

    @property
    def text(self) -> str:
        """The whole body as text: what "reached the model" is searched in."""
        return self.raw.decode("utf-8", errors="replace")


@dataclass
class StubModel:
    """The server; use as a context manager. ``url`` is its base (no trailing slash)."""

    script: Sequence[Reply] = (Text("stub final answer"),)
    requests: list[Recorded] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> StubModel:
        stub = self

        class Handler(_Handler):
            model = stub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> StubModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "stub not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- recording -----------------------------------------------------------------

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def snapshot(self) -> list[Recorded]:
        with self._lock:
            return list(self.requests)

    def next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def reply_for(self, tool_results: int) -> Reply:
        """The script's reply for a conversation that already holds ``tool_results``."""
        if not self.script:
            return Text("stub final answer")
        return self.script[min(tool_results, len(self.script) - 1)]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    model: StubModel

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.headers.get("content-encoding", "").lower() == "gzip":
            raw = gzip.decompress(raw)
        return raw

    def _handle(self) -> None:
        raw = self._read_body()
        split = urlsplit(self.path)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {name: self.headers[name] for name in HEADERS_OF_INTEREST if name in self.headers}
        self.model.record(
            Recorded(self.command, split.path, parse_qs(split.query), headers, body, raw)
        )
        path = split.path
        body_map: dict[str, Any] = body if isinstance(body, dict) else {}
        if path.endswith("/messages/count_tokens"):
            self._json({"input_tokens": 100})
        elif path.endswith("/messages"):
            self._anthropic(body_map)
        elif ":countTokens" in path:
            self._json({"totalTokens": 100})
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(body_map, stream=":streamGenerateContent" in path)
        elif path.endswith("/responses"):
            self._responses(body_map)
        elif path.endswith("/models"):
            self._json({"object": "list", "data": [], "models": []})
        else:
            self.model.unknown.append(f"{self.command} {self.path}")
            self._json({"error": {"message": f"stub: no route {path}"}}, status=404)

    do_POST = _handle
    do_GET = _handle

    # -- writing -------------------------------------------------------------------

    def _send(self, status: int, content_type: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _json(self, value: Any, status: int = 200) -> None:
        self._send(status, "application/json", json.dumps(value).encode())

    def _sse(self, events: Iterator[tuple[str | None, Any]]) -> None:
        out = []
        for event, data in events:
            head = f"event: {event}\n" if event else ""
            out.append(f"{head}data: {json.dumps(data)}\n\n")
        self._send(200, "text/event-stream", "".join(out).encode())

    # -- Anthropic Messages --------------------------------------------------------

    def _anthropic(self, body: Mapping[str, Any]) -> None:
        results = sum(
            1
            for message in body.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )
        reply: Reply = self.model.reply_for(results) if body.get("tools") else Text(SIDE_REPLY)
        if isinstance(reply, Patch):
            reply = Text("stub: patches are a Codex reply")
        n = self.model.next_id()
        if isinstance(reply, ReadFile):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_stub{n}",
                "name": "Read",
                "input": {"file_path": reply.path},
            }
            stop = "tool_use"
        elif isinstance(reply, ClaudeTool):
            block = {
                "type": "tool_use",
                "id": f"toolu_stub{n}",
                "name": reply.name,
                "input": dict(reply.input),
            }
            stop = "tool_use"
        elif isinstance(reply, Shell):
            block = {
                "type": "tool_use",
                "id": f"toolu_stub{n}",
                "name": "Bash",
                "input": {"command": reply.command, "description": "stub shell call"},
            }
            stop = "tool_use"
        elif isinstance(reply, McpCall):
            block = {
                "type": "tool_use",
                "id": f"toolu_stub{n}",
                "name": f"mcp__{reply.server}__{reply.tool}",
                "input": dict(reply.arguments),
            }
            stop = "tool_use"
        else:
            block = {"type": "text", "text": reply.text}
            stop = "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 10}
        message = {
            "id": f"msg_stub{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "stub"),
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            self._json(message)
            return

        def events() -> Iterator[tuple[str | None, Any]]:
            yield (
                "message_start",
                {
                    "type": "message_start",
                    "message": {**message, "content": [], "stop_reason": None},
                },
            )
            if block["type"] == "tool_use":
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": start,
                },
            )
            yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            yield (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            )
            yield "message_stop", {"type": "message_stop"}

        self._sse(events())

    # -- Gemini --------------------------------------------------------------------

    def _gemini(self, body: Mapping[str, Any], stream: bool) -> None:
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if schema is not None or config.get("responseMimeType") == "application/json":
            part: dict[str, Any] = {"text": json.dumps(_from_schema(schema or {}))}
        else:
            results = sum(
                1
                for content in body.get("contents", [])
                for p in content.get("parts", [])
                if isinstance(p, dict) and "functionResponse" in p
            )
            reply = self.model.reply_for(results) if body.get("tools") else Text(SIDE_REPLY)
            if isinstance(reply, (Patch, ClaudeTool)):
                reply = Text("stub: not a Gemini reply")
            if isinstance(reply, ReadFile):
                part = {"functionCall": {"name": "read_file", "args": {"file_path": reply.path}}}
            elif isinstance(reply, Shell):
                args = {"command": reply.command, "description": "stub shell call"}
                part = {"functionCall": {"name": "run_shell_command", "args": args}}
            elif isinstance(reply, McpCall):
                name = f"mcp_{reply.server}_{reply.tool}"
                part = {"functionCall": {"name": name, "args": dict(reply.arguments)}}
            else:
                part = {"text": reply.text}
        answer = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [part]},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 100,
                "candidatesTokenCount": 10,
                "totalTokenCount": 110,
            },
            "modelVersion": "stub",
        }
        if stream:
            self._sse(iter([(None, answer)]))
        else:
            self._json(answer)

    # -- OpenAI Responses ----------------------------------------------------------

    def _responses(self, body: Mapping[str, Any]) -> None:
        inputs = body.get("input") or []
        results = sum(
            1
            for item in inputs
            if isinstance(item, dict)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")
        )
        tools = _responses_tools(body)
        reply = self.model.reply_for(results) if tools else Text(SIDE_REPLY)
        if isinstance(reply, ClaudeTool):
            reply = Text("stub: not a Codex reply")
        n = self.model.next_id()
        code_mode = "exec" in tools and "exec_command" not in tools
        if isinstance(reply, (ReadFile, Shell, Patch, McpCall)) and code_mode:
            # Code mode: the model writes JavaScript that calls the nested tools.
            if isinstance(reply, (ReadFile, Shell)):
                command = reply.command if isinstance(reply, Shell) else "cat " + reply.path
                call = f"tools.exec_command({{cmd: {json.dumps(command)}}})"
            elif isinstance(reply, McpCall):
                name = f"mcp__{reply.server}__{reply.tool}"
                call = f"tools.{name}({json.dumps(dict(reply.arguments))})"
            else:
                call = f"tools.apply_patch({json.dumps(reply.patch)})"
            source = (
                f"const r = await {call};\ntext(typeof r === 'string' ? r : JSON.stringify(r));"
            )
            item: dict[str, Any] = {
                "type": "custom_tool_call",
                "id": f"ctc_stub{n}",
                "call_id": f"call_stub{n}",
                "status": "completed",
                "name": "exec",
                "input": source,
            }
        elif isinstance(reply, Patch):
            item = {
                "type": "custom_tool_call",
                "id": f"ctc_stub{n}",
                "call_id": f"call_stub{n}",
                "status": "completed",
                "name": "apply_patch",
                "input": reply.patch,
            }
        elif isinstance(reply, McpCall):
            item = {
                "type": "function_call",
                "id": f"fc_stub{n}",
                "call_id": f"call_stub{n}",
                "status": "completed",
                "name": f"mcp__{reply.server}__{reply.tool}",
                "arguments": json.dumps(dict(reply.arguments)),
            }
        elif isinstance(reply, (ReadFile, Shell)):
            command = reply.command if isinstance(reply, Shell) else f"cat {reply.path}"
            item = {
                "type": "function_call",
                "id": f"fc_stub{n}",
                "call_id": f"call_stub{n}",
                "status": "completed",
                **_codex_shell_call(tools, command),
            }
        else:
            item = {
                "type": "message",
                "id": f"msg_stub{n}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        response = {
            "id": f"resp_stub{n}",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": body.get("model", "stub"),
            "output": [item],
            "usage": {
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 10,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 110,
            },
        }

        def events() -> Iterator[tuple[str | None, Any]]:
            created = {**response, "status": "in_progress", "output": []}
            yield "response.created", {"type": "response.created", "response": created}
            yield (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": item,
                },
            )
            if item["type"] == "message":
                yield (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": 0,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            yield (
                "response.output_item.done",
                {
                    "type": "response.output_item.done",
                    "output_index": 0,
                    "item": item,
                },
            )
            yield "response.completed", {"type": "response.completed", "response": response}

        self._sse(events())


def _responses_tools(body: Mapping[str, Any]) -> set[str]:
    """Names of the top-level tools a Responses request offers: in ``tools``, or (Codex's
    code mode) in the namespaces of an ``additional_tools`` input item."""
    found = {str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)}
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            for tool in item.get("tools") or []:
                found.add(str(tool.get("name")))
                found.update(str(sub.get("name")) for sub in tool.get("tools") or [])
    return found


def _codex_shell_call(tools: set[str], command: str) -> dict[str, str]:
    """Name and arguments of a shell call in whichever shell tool Codex offered."""
    if "shell_command" in tools:
        return {"name": "shell_command", "arguments": json.dumps({"command": command})}
    if "exec_command" in tools:
        return {"name": "exec_command", "arguments": json.dumps({"cmd": command})}
    return {
        "name": "shell",
        "arguments": json.dumps({"command": ["bash", "-lc", command]}),
    }


def _from_schema(schema: Mapping[str, Any]) -> Any:
    """A value that satisfies a (JSON or Gemini-OpenAPI) schema: first enum, 1, stub strings."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _from_schema(sub) for name, sub in properties.items()}
    if kind == "array":
        return [_from_schema(schema.get("items") or {"type": "string"})]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        # Scores are often 1-based without saying so in the schema (Gemini's classifier).
        return schema.get("minimum", 1)
    return "stub"
