"""MCP tools served by the daemon (one server object per session)."""
