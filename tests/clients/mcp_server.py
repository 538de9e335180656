"""A trivial stdio MCP server for the client tests:
``python mcp_server.py NAME INSTRUCTIONS [DELAY_S]``.

It serves one tool (``echo``) and the given server ``instructions``, the text the tests
look for in the model's requests; DELAY_S makes it a slow starter (it sleeps first).
Built on the official ``mcp`` SDK, 2.x (``MCPServer``) or 1.x (``FastMCP``, its old
name), whichever is installed.
"""

from __future__ import annotations

import sys
import time

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef]


def main(name: str, instructions: str) -> None:
    server = MCPServer(name, instructions=instructions)

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    server.run("stdio")


if __name__ == "__main__":
    time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
    main(sys.argv[1], sys.argv[2])
