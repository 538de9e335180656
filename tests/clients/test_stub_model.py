"""The stub model alone, over real loopback HTTP: each wire API answers the script, the
recording keeps what the client tests search, and credentials are never recorded."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.clients.stub_model import SIDE_REPLY, ReadFile, StubModel, Text


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[str, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(headers or {})},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["content-type"], response.read().decode()


def sse_data(text: str) -> list[Any]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_binds_loopback_and_records_without_credentials() -> None:
    """Bind 127.0.0.1 only; a recorded request keeps its path and body, never its key."""
    with StubModel([Text("hi")]) as stub:
        assert stub.url.startswith("http://127.0.0.1:")
        post(
            f"{stub.url}/v1/messages",
            {"messages": [], "tools": [{"name": "Read"}]},
            {"x-api-key": "secret", "authorization": "Bearer secret", "anthropic-version": "1"},
        )
        (recorded,) = stub.snapshot()
    assert recorded.path == "/v1/messages"
    assert recorded.headers["anthropic-version"] == "1"
    assert "secret" not in json.dumps(dict(recorded.headers))


def test_anthropic_json_and_sse_follow_the_tool_results() -> None:
    """Anthropic Messages: the reply is the script's entry for the number of tool results
    in the conversation (a Read tool_use first, then the text), as JSON or SSE."""
    with StubModel([ReadFile("/r/a.py"), Text("done")]) as stub:
        first = {"messages": [{"role": "user", "content": "go"}], "tools": [{}]}
        _, body = post(f"{stub.url}/v1/messages", first)
        message = json.loads(body)
        assert message["stop_reason"] == "tool_use"
        assert message["content"][0]["input"] == {"file_path": "/r/a.py"}
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}
        second = {"messages": [*first["messages"], result], "tools": [{}], "stream": True}
        kind, body = post(f"{stub.url}/v1/messages", second)
        assert kind == "text/event-stream"
        events = sse_data(body)
        assert next(e["type"] for e in events) == "message_start"
        assert events[2]["delta"] == {"type": "text_delta", "text": "done"}
        _, side = post(f"{stub.url}/v1/messages", {"messages": []})
        assert json.loads(side)["content"][0]["text"] == SIDE_REPLY


def test_gemini_stream_and_schema_json() -> None:
    """Gemini: streamGenerateContent answers SSE with a read_file call; a request with a
    response schema (the routing classifier) gets JSON that satisfies it."""
    with StubModel([ReadFile("src/a.py"), Text("done")]) as stub:
        base = f"{stub.url}/v1beta/models/m"
        body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": [{}]}
        _, text = post(f"{base}:streamGenerateContent?alt=sse", body)
        (chunk,) = sse_data(text)
        part = chunk["candidates"][0]["content"]["parts"][0]
        assert part == {"functionCall": {"name": "read_file", "args": {"file_path": "src/a.py"}}}
        schema = {
            "type": "OBJECT",
            "properties": {
                "reasoning": {"type": "STRING"},
                "score": {"type": "INTEGER"},
                "choice": {"type": "STRING", "enum": ["flash", "pro"]},
            },
        }
        config = {"responseMimeType": "application/json", "responseJsonSchema": schema}
        _, text = post(f"{base}:generateContent", {"contents": [], "generationConfig": config})
        answer = json.loads(json.loads(text)["candidates"][0]["content"]["parts"][0]["text"])
        assert answer == {"reasoning": "stub", "score": 1, "choice": "flash"}


def test_responses_function_tools_and_code_mode() -> None:
    """OpenAI Responses: with function tools a ReadFile is an exec_command call; in Codex's
    code mode (tools in an additional_tools item) it is JavaScript for the exec tool."""
    with StubModel([ReadFile("src/a.py"), Text("done")]) as stub:
        url = f"{stub.url}/v1/responses"
        _, text = post(url, {"input": [], "tools": [{"type": "function", "name": "exec_command"}]})
        done = [e for e in sse_data(text) if e["type"] == "response.output_item.done"]
        assert done[0]["item"]["name"] == "exec_command"
        assert json.loads(done[0]["item"]["arguments"]) == {"cmd": "cat src/a.py"}
        code_mode = {
            "type": "additional_tools",
            "tools": [{"type": "namespace", "name": "functions", "tools": [{"name": "exec"}]}],
        }
        _, text = post(url, {"input": [code_mode]})
        item = next(e for e in sse_data(text) if e["type"] == "response.output_item.done")["item"]
        assert item["type"] == "custom_tool_call" and "cat src/a.py" in item["input"]
        output = {"type": "custom_tool_call_output", "call_id": "c", "output": "x"}
        _, text = post(url, {"input": [code_mode, output]})
        completed = sse_data(text)[-1]
        assert completed["type"] == "response.completed"
        assert completed["response"]["output"][0]["content"][0]["text"] == "done"
