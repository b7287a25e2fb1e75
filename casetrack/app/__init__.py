"""Application layer: `CaseTrack`, the operations the CLI, the daemon and the MCP tools share (cases, ingest, search, documents, status), over the ingest/search services and the stores."""

from casetrack.app.core import CaseTrack, FileCallback

__all__ = ["CaseTrack", "FileCallback"]
