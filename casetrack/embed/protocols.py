"""What the rest of CaseTrack may ask of an encoder and of the embedder pool.

The app, ingest and search depend on these Protocols, not on `EncoderPool` itself: a test or a
future pool (a remote one, a GPU one) only has to offer the same methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from casetrack.domain.views import SlotStatusJson
from casetrack.embed.catalog import ModelSpec
from casetrack.embed.sparse import SparseVector
from casetrack.embed.tiers import Tier


class Encoder(Protocol):
    """Any loaded encoder: the model behind it and its fingerprint (stored with its vectors)."""

    @property
    def spec(self) -> ModelSpec: ...

    @property
    def fingerprint(self) -> str: ...

    @property
    def max_tokens(self) -> int: ...


class QueryEncoder(Encoder, Protocol):
    """E1, E6, E7: one vector per query (dense array or sparse vector)."""

    def encode_queries(self, texts: Sequence[str]) -> Any: ...


class DenseQueryEncoder(Encoder, Protocol):
    """E1, E7: one unit-length float vector per query."""

    def encode_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


class SparseQueryEncoder(Encoder, Protocol):
    """E6: one sparse vector of term weights per query."""

    def encode_queries(self, texts: Sequence[str]) -> list[SparseVector]: ...


class LateQueryEncoder(Encoder, Protocol):
    """E12: one matrix of token vectors per query."""

    def encode_query(self, text: str) -> npt.NDArray[np.float32]: ...


class SlotReport(Protocol):
    """One slot as `casetrack status` shows it."""

    @property
    def slot(self) -> str: ...

    def to_json(self) -> SlotStatusJson: ...


class EmbedderPool(Protocol):
    """The process's encoders by slot and case language, under a memory tier."""

    tier: Tier
    tier_reason: str
    load_count: int

    def resolve(self, slot: str, language: str) -> ModelSpec | None: ...

    def get(self, slot: str, language: str) -> Any: ...

    def use(self, slot: str, language: str) -> AbstractContextManager[Any]: ...

    def search_slots(self, language: str) -> dict[str, str | None]: ...

    def status(self, language: str) -> Sequence[SlotReport]: ...

    def loaded_models(self) -> list[str]: ...

    def rescan(self, models_dir: Path | None = None) -> None: ...
