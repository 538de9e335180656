"""What the agent clients people use (Claude Code, Gemini CLI, Codex CLI) do with context.

The bridge that serves the providers to these clients (through their hooks and an MCP
server) relies on the facts in :mod:`providers.clients.facts`, each one observed against
the real client by ``tests/clients``.
"""
