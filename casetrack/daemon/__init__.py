"""Entry layer: the one long-lived process per data directory: socket endpoint, MCP sessions, CLI requests, the ingest job queue, the `serve` relay."""
