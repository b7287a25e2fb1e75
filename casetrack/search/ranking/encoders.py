"""The query-side encoders one search may use, typed by what they return."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from casetrack.embed.protocols import DenseQueryEncoder, LateQueryEncoder, SparseQueryEncoder


@dataclass(frozen=True)
class QueryEncoders:
    """E1, E6, E7 and E12 as loaded for this search; one left out is skipped and `skipped` (slot ->
    why) says why."""

    dense: DenseQueryEncoder | None = None  # E1
    sparse: SparseQueryEncoder | None = None  # E6
    e7: DenseQueryEncoder | None = None  # E7
    late: LateQueryEncoder | None = None  # E12
    late_codec: str | None = None  # how the case stored its E12 vectors
    skipped: Mapping[str, str] = field(default_factory=dict)

    def has(self, list_name: str) -> bool:
        """Is the encoder behind a fused list ("dense", "sparse", "e7") loaded?"""
        return {"dense": self.dense, "sparse": self.sparse, "e7": self.e7}.get(list_name) is not None
