"""Every embedding a chunk gets at ingest (and at `casetrack reembed`), as LanceDB columns.

E1 is required: without it a chunk cannot be found by meaning, so a missing E1 fails the file.
E7, E6 and E12 are computed when installed; a missing one becomes a warning that names the
search stage that will be skipped and the command that fills the gap later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from casetrack.chunk.windows import pack_windows, sentence_windows
from casetrack.domain.slots import SLOT_ORDER
from casetrack.embed.protocols import EmbedderPool
from casetrack.embed.tiers import SLOTS
from casetrack.embed.token_codec import DEFAULT_CODEC, encode_tokens
from casetrack.store import lance_tables as lt

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
STEP = 16  # chunks per encoder call, so progress moves and memory stays bounded


@dataclass
class ModelUse:
    """Which model filled a slot, recorded per case so a later mismatch can be reported."""

    fingerprint: str
    dim: int | None
    codec: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"fingerprint": self.fingerprint, "dim": self.dim, "codec": self.codec}


@dataclass
class ChunkEmbeddings:
    columns: dict[str, pa.Array] = field(default_factory=dict)
    models: dict[str, ModelUse] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # slot -> warning

    @property
    def fields(self) -> list[pa.Field]:
        return [pa.field(name, array.type) for name, array in self.columns.items()]


def missing_warning(slot: str, case: str) -> str:
    s = SLOTS[slot]
    return (
        f"{slot} ({s.purpose}) model is not installed: these chunks have no {slot} vectors and the "
        f"{s.stage} stage will skip them. Install it with `casetrack models download --slot {slot}`, "
        f'then run `casetrack reembed --case "{case}"`.'
    )


def embed_chunks(
    pool: EmbedderPool,
    language: str,
    case_name: str,
    texts: Sequence[str],
    progress: Progress,
    slots: Sequence[str] = SLOT_ORDER,
) -> ChunkEmbeddings:
    """Run every installed model of `slots` over `texts`, one model at a time.

    Raises ModelNotFoundError if E1 is asked for and missing.
    """
    out = ChunkEmbeddings()
    active = [s for s in slots if s == "E1" or pool.resolve(s, language) is not None]
    for slot in slots:
        if slot not in active:
            out.missing[slot] = missing_warning(slot, case_name)
    total = len(texts) * len(active)
    done = 0

    def step(n: int) -> None:
        nonlocal done
        done += n
        progress("embed", done, total)

    progress("embed", 0, total)
    for slot in active:
        with pool.use(slot, language) as encoder:
            if slot == "E1":
                vectors, windows = _dense_with_windows(encoder, texts, step)
                out.columns[lt.VECTOR] = _fixed_list(vectors)
                out.columns[lt.WINDOW_VECTORS] = windows
                out.models[slot] = ModelUse(encoder.fingerprint, int(vectors.shape[1]))
            elif slot == "E7":
                vectors = _dense(encoder, texts, step)
                out.columns[lt.E7_VECTOR] = _fixed_list(vectors)
                out.models[slot] = ModelUse(encoder.fingerprint, int(vectors.shape[1]))
            elif slot == "E6":
                ids, values = _sparse(encoder, texts, step)
                out.columns[lt.SPARSE_IDS], out.columns[lt.SPARSE_VALUES] = ids, values
                out.models[slot] = ModelUse(encoder.fingerprint, None)
            else:
                blobs, counts = _late(encoder, texts, step)
                out.columns[lt.LATE_VECTORS], out.columns[lt.LATE_COUNT] = blobs, counts
                out.models[slot] = ModelUse(encoder.fingerprint, int(encoder.dim), DEFAULT_CODEC)
    return out


def _slices(n: int) -> list[slice]:
    return [slice(i, min(i + STEP, n)) for i in range(0, n, STEP)]


def _dense(encoder: object, texts: Sequence[str], step: Callable[[int], None]) -> npt.NDArray[np.float32]:
    parts = []
    for part in _slices(len(texts)):
        parts.append(encoder.encode_passages(list(texts[part])))  # type: ignore[attr-defined]
        step(part.stop - part.start)
    return np.concatenate(parts).astype(np.float32)


def _dense_with_windows(
    encoder: object, texts: Sequence[str], step: Callable[[int], None]
) -> tuple[npt.NDArray[np.float32], pa.Array]:
    """Each chunk's E1 vector and its passage windows' vectors (`chunk/windows.py`)."""
    parts = []
    blobs: list[bytes] = []
    for part in _slices(len(texts)):
        chunk_texts = list(texts[part])
        parts.append(encoder.encode_passages(chunk_texts))  # type: ignore[attr-defined]
        per_chunk = [sentence_windows(t) for t in chunk_texts]
        flat = [w for ws in per_chunk for w in ws]
        vectors = encoder.encode_passages(flat) if flat else None  # type: ignore[attr-defined]
        at = 0
        for ws in per_chunk:
            blobs.append(pack_windows(vectors[at : at + len(ws)]) if ws and vectors is not None else b"")
            at += len(ws)
        step(part.stop - part.start)
    return np.concatenate(parts).astype(np.float32), pa.array(blobs, pa.binary())


def _sparse(encoder: object, texts: Sequence[str], step: Callable[[int], None]) -> tuple[pa.Array, pa.Array]:
    ids: list[list[int]] = []
    values: list[list[float]] = []
    for part in _slices(len(texts)):
        for vec in encoder.encode_passages(list(texts[part])):  # type: ignore[attr-defined]
            ids.append(vec.indices.tolist())
            values.append(vec.values.tolist())
        step(part.stop - part.start)
    return pa.array(ids, pa.list_(pa.int32())), pa.array(values, pa.list_(pa.float32()))


def _late(encoder: object, texts: Sequence[str], step: Callable[[int], None]) -> tuple[pa.Array, pa.Array]:
    blobs: list[bytes] = []
    counts: list[int] = []
    for part in _slices(len(texts)):
        for tokens in encoder.encode_documents(list(texts[part])):  # type: ignore[attr-defined]
            blobs.append(encode_tokens(tokens, DEFAULT_CODEC))
            counts.append(int(tokens.shape[0]))
        step(part.stop - part.start)
    return pa.array(blobs, pa.binary()), pa.array(counts, pa.int32())


def _fixed_list(vectors: npt.NDArray[np.float32]) -> pa.Array:
    flat = pa.array(vectors.reshape(-1), pa.float32())
    return pa.FixedSizeListArray.from_arrays(flat, int(vectors.shape[1]))


def model_mismatches(
    case_models: dict[str, dict[str, object]], pool: EmbedderPool, language: str, case_name: str
) -> dict[str, str]:
    """slot -> message for every slot whose installed model is not the one the case used.

    Vectors from different weights are not comparable, so such a slot must not be mixed: ingest
    refuses and search skips it until the case is re-embedded.
    """
    out: dict[str, str] = {}
    for slot, record in sorted(case_models.items()):
        spec = pool.resolve(slot, language) if slot in SLOTS else None
        stored = record.get("fingerprint")
        if spec is None or stored is None or spec.fingerprint == stored:
            continue
        out[slot] = (
            f"Case '{case_name}' was embedded with {stored} for {slot} ({SLOTS[slot].purpose}), but the "
            f'installed model is {spec.fingerprint}. Re-embed it: casetrack reembed --case "{case_name}"'
        )
    return out
