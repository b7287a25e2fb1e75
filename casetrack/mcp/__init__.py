"""Entry layer: the MCP tools (one `MCPServer` per session, tools in groups by `tools_*.py`), their structured outputs and readable text; depends on the app, never on the daemon that hosts it."""
