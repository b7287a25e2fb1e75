"""What the MCP tools need from the process that serves them (the daemon's `Service`).

Declared as Protocols so the MCP layer depends on the application core only, never on the
daemon that hosts it: the daemon imports `casetrack.mcp`, not the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from casetrack.app import CaseTrack
from casetrack.config import Settings


class JobView(Protocol):
    """An ingest job as the tools report it."""

    id: str
    case_id: str
    case_name: str
    status: str
    label: str
    current: str | None
    stage: str | None

    @property
    def done(self) -> int: ...

    @property
    def total(self) -> int: ...

    @property
    def progress_key(self) -> str: ...

    @property
    def finished(self) -> bool: ...

    def to_json(self) -> dict[str, Any]: ...


class JobQueue(Protocol):
    def get(self, job_id: str) -> JobView: ...

    def recent(self) -> Sequence[JobView]: ...

    def active(self) -> Sequence[JobView]: ...

    def cancel(self, job_id: str) -> JobView: ...

    def forget_document(self, name: str, source_path: str | None) -> None:
        """A deleted document's name and path out of the finished jobs' records."""
        ...

    def wait(
        self, job_id: str, timeout: float, on_change: None = None, changed_from: str | None = None
    ) -> JobView:
        """Return when the job finishes, its progress differs from `changed_from`, or `timeout` passes."""
        ...


class ToolHost(Protocol):
    @property
    def app(self) -> CaseTrack: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def jobs(self) -> JobQueue: ...

    def submit_ingest(
        self, case: str, paths: list[Path], force: bool = False, label: str = "", password: str | None = None
    ) -> JobView: ...

    def submit_models(self, kind: str, items: list[str], label: str, options: dict[str, Any]) -> JobView:
        """Queue a models job: "download" (catalog model ids) or "import" (one folder)."""
        ...

    def daemon_status(self) -> dict[str, Any]: ...
