"""What bench_reach.py puts between a client and our hook command or MCP server, to
record exactly what we sent (standard library only; run as a script by the client):

    reach_tap.py hook CAPTURE COMMAND        runs COMMAND (a shell command line, as the
                                             client would) with the client's stdin; passes
                                             its stdout and exit code on; appends
                                             {"command", "stdin", "stdout", "code",
                                             "seconds"} to CAPTURE
    reach_tap.py mcp CAPTURE PROGRAM ARGS... runs the stdio MCP server PROGRAM ARGS and
                                             passes every line both ways; appends each
                                             message of the server that carries
                                             "instructions" (or a tool result) to CAPTURE

Nothing is changed on the way: the text the client gets is the text our command printed.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time


def _append(capture: str, record: dict[str, object]) -> None:
    with open(capture, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def hook(capture: str, command: str) -> int:
    data = sys.stdin.buffer.read()
    started = time.monotonic()
    done = subprocess.run(["/bin/sh", "-c", command], input=data, capture_output=True, check=False)
    _append(
        capture,
        {
            "command": command,
            "stdin": data.decode("utf-8", "replace"),
            "stdout": done.stdout.decode("utf-8", "replace"),
            "code": done.returncode,
            "seconds": round(time.monotonic() - started, 3),
        },
    )
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.buffer.flush()
    return done.returncode


def mcp(capture: str, argv: list[str]) -> int:
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    to_child = child.stdin

    def pump_in() -> None:
        with contextlib.suppress(OSError):
            for line in sys.stdin.buffer:
                to_child.write(line)
                to_child.flush()
        with contextlib.suppress(OSError):
            to_child.close()

    threading.Thread(target=pump_in, daemon=True).start()
    for line in child.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        if b'"instructions"' in line or b'"content"' in line:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            result = message.get("result") if isinstance(message, dict) else None
            if isinstance(result, dict):
                _append(capture, {"result": result})
    return child.wait()


def main(argv: list[str]) -> int:
    kind, capture, *rest = argv
    if kind == "hook":
        return hook(capture, rest[0])
    return mcp(capture, rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
