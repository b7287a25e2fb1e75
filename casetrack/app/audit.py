"""The query audit log (seed 000, RF19): who asked what kind of question of which case, when,
with how many results and how fast — never the question itself or any document text, unless
the user turns that on (`CASETRACK_AUDIT_QUERIES=1`).

One JSON object per line in `DATA_DIR/logs/audit.log` (0600), rotated at ROTATE_BYTES with
KEEP_FILES older files (`audit.log.1` ...). Written by whichever process serves the request
(the daemon for Claude, the CLI in-process), under a lock and with O_APPEND so lines from two
processes do not interleave. `casetrack audit` reads it back.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from casetrack.atomic_files import rename_durably

ROTATE_BYTES = 5 * 2**20
KEEP_FILES = 3
ENV_AUDIT_QUERIES = "CASETRACK_AUDIT_QUERIES"


class AuditLog:
    def __init__(self, path: Path, include_queries: bool = False) -> None:
        self.path = path
        self.include_queries = include_queries
        self._lock = threading.Lock()

    def record(
        self, client: str, case: str, tool: str, results: int, ms: float, query: str | None = None
    ) -> None:
        """One line: when, client (cli, Claude Desktop, Claude Code, ...), case, tool, results, ms."""
        entry: dict[str, Any] = {
            "at": round(time.time(), 3),
            "client": client,
            "case": case,
            "tool": tool,
            "results": results,
            "ms": round(ms, 1),
        }
        if self.include_queries and query is not None:
            entry["query"] = query
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                self._rotate()
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    os.write(fd, line)
                finally:
                    os.close(fd)
            except OSError:  # an audit line must never fail the search it describes
                pass

    def _rotate(self) -> None:
        try:
            if self.path.stat().st_size < ROTATE_BYTES:
                return
        except FileNotFoundError:
            return
        for i in range(KEEP_FILES - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            if older.exists():
                rename_durably(older, self.path.with_name(f"{self.path.name}.{i + 1}"))
        rename_durably(self.path, self.path.with_name(f"{self.path.name}.1"))

    def read(self, case: str | None = None, last: int = 50) -> list[dict[str, Any]]:
        """The newest `last` entries (oldest first), for one case (its name) or all."""
        files = [self.path.with_name(f"{self.path.name}.{i}") for i in range(KEEP_FILES, 0, -1)] + [self.path]
        entries: list[dict[str, Any]] = []
        for file in files:
            try:
                lines = file.read_text(encoding="utf-8").splitlines()
            except OSError:
                continue
            for line in lines:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if case is None or entry.get("case") == case:
                    entries.append(entry)
        return entries[-last:] if last > 0 else entries


def client_label(name: str | None) -> str:
    """A readable client name from an MCP clientInfo name ("claude-ai" -> "Claude Desktop")."""
    if not name:
        return "mcp"
    lowered = name.lower()
    if lowered in ("claude-ai", "claude desktop", "claude-desktop"):
        return "Claude Desktop"
    if "claude-code" in lowered or lowered == "claude code":
        return "Claude Code"
    return name[:60]
