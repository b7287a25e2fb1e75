"""Learned sparse vectors (pipeline slot E6): one vocabulary-weighted term vector per text.

Documents always run the ONNX model. Queries run the same model (symmetric models: the pack's
splade-tiny) or, for inference-free models (opensearch-neural-sparse-encoding-doc-v3-distill),
are the query's token ids weighted by the IDF table shipped with the graph: no model call.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Encoding

from casetrack.embed import tokens
from casetrack.embed.base import EncoderBase
from casetrack.embed.catalog import REIMPORT_HINT, ModelSpec
from casetrack.embed.session import create_session
from casetrack.errors import ModelNotFoundError

logger = logging.getLogger(__name__)

# Padded tokens per onnxruntime call. The graph materialises [tokens, vocab] float32 temporaries
# (~125 MB each per 1024 tokens), so this bounds the peak: splade-tiny, arena off, 500-token
# chunks, RSS peaked at ~0.64 GB with 2048 (4 rows) vs ~1.14 GB with 4096 (8 rows).
DEFAULT_MAX_BATCH_TOKENS = 2048
# Terms kept per passage (storage bound: 8 bytes a term). splade-tiny on 500 CUAD chunks of
# ~500 tokens: nnz median ~400, p90 ~490, p99 560, max 579. A cap of 512 cuts 5-7% of chunks,
# drops 0.4-0.5% of all terms (each weighing <= 0.093 against a median kept weight of 0.5) and
# <= 0.05% of any chunk's squared weight; over 100 CUAD queries x 300 chunks it moved no top-10
# result (largest score change 1%). A cap of 384 would cut 58-72% of chunks and change top-1s.
DEFAULT_MAX_TERMS = 512
IDF_FILE = "idf.json"


@dataclass(frozen=True, eq=False)  # == on numpy fields gives arrays, not a bool: compare fields
class SparseVector:
    """Term weights over the model vocabulary: `indices` ascending and unique, `values` > 0."""

    indices: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]

    def __post_init__(self) -> None:
        if self.indices.shape != self.values.shape or self.indices.ndim != 1:
            raise ValueError(f"indices {self.indices.shape} and values {self.values.shape}: need equal 1-D")

    @property
    def nnz(self) -> int:
        """Number of stored terms."""
        return int(self.indices.shape[0])

    def dot(self, other: SparseVector) -> float:
        """Dot product: the sum over shared terms of the two weights (the retrieval score)."""
        _, mine, theirs = np.intersect1d(self.indices, other.indices, assume_unique=True, return_indices=True)
        return float(np.dot(self.values[mine].astype(np.float64), other.values[theirs]))


def splade_pool(
    logits: npt.NDArray[np.floating[Any]], mask: npt.NDArray[Any], double_log: bool = False
) -> npt.NDArray[np.float32]:
    """SPLADE pooling of logits [batch, seq, vocab]: max over positions where `mask` [batch, seq]
    is non-zero of log(1 + relu(x)), as [batch, vocab] float32; a row without tokens is all zeros.

    `double_log` applies log1p once more: the opensearch v3 document models were trained with
    log(1 + log(1 + relu(x))) (model.json pooling "max-log1p-log1p-relu").
    log1p(relu(.)) is monotone, so it runs after the max, on [vocab] rather than [seq, vocab]."""
    if logits.ndim != 3 or mask.shape != logits.shape[:2]:
        raise ValueError(f"logits {logits.shape}, mask {mask.shape}: need [batch, seq, vocab], [batch, seq]")
    out = np.empty((logits.shape[0], logits.shape[2]), dtype=np.float32)
    for row in range(logits.shape[0]):
        keep = mask[row].astype(bool)[:, None]
        out[row] = logits[row].max(axis=0, where=keep, initial=-np.inf)
    np.log1p(np.maximum(out, 0.0, out=out), out=out)
    return np.log1p(out, out=out) if double_log else out


def to_sparse(row: npt.NDArray[np.float32], drop: npt.NDArray[np.bool_], cap: int | None) -> SparseVector:
    """The positive weights of a [vocab] row, minus the ids set in `drop`; the `cap` largest."""
    ids = np.flatnonzero((row > 0) & ~drop)
    values = row[ids]
    if cap is not None and ids.shape[0] > cap:
        top = np.sort(np.argpartition(values, -cap)[-cap:])
        ids, values = ids[top], values[top]
    return SparseVector(ids.astype(np.int32), values.astype(np.float32))


def _broken(message: str) -> ModelNotFoundError:
    return ModelNotFoundError(message, REIMPORT_HINT)


class SparseEncoder(EncoderBase):
    """Encodes passages (and queries) with one learned-sparse model; thread-safe once built.

    Memory arena on: onnxruntime keeps the largest call's [tokens, vocab] temporaries for the
    session's lifetime, ~0.5 MB per padded token (splade-tiny: +258 MB after 1 x 512, ~2 GB after
    8 x 512). Off (default): nothing is kept (+10 MB after 64 chunks), but each call page-faults
    its temporaries afresh (~32k faults per 512-token chunk): ~3x slower on 2 cores (batch 1:
    ~6-7 vs ~15-19 chunks/s at 512 tokens, ~12 vs ~33-39 at 256).
    """

    def __init__(
        self,
        spec: ModelSpec,
        threads: int | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        max_terms: int | None = DEFAULT_MAX_TERMS,
        arena: bool = False,
    ) -> None:
        """Load the tokenizer, the ONNX session and (if shipped) the IDF table for `spec`.

        `threads`: onnxruntime intra-op threads (default: all usable CPUs). `max_terms` keeps the
        largest weights of each passage (None: all). `arena=True` trades ~0.5 MB resident per
        padded token for ~3x speed and then limits each call to `max_tokens` padded tokens, so
        the memory kept stays at one chunk's (~260 MB for splade-tiny). Raises
        ModelNotFoundError if the folder, graph, tokenizer or IDF table is unusable."""
        if spec.role != "sparse":
            raise ValueError(f"SparseEncoder needs a sparse model, got {spec.name} ({spec.role})")
        if max_batch_tokens < 1:
            raise ValueError(f"max_batch_tokens must be >= 1, got {max_batch_tokens}")
        if max_terms is not None and max_terms < 1:
            raise ValueError(f"max_terms must be >= 1 or None, got {max_terms}")
        super().__init__(spec)
        self._max_batch_tokens = min(max_batch_tokens, spec.max_tokens) if arena else max_batch_tokens
        self._max_terms = max_terms
        self._tokenizer = tokens.load_tokenizer(spec, truncate_at=spec.max_tokens)
        self._pad_id = tokens.pad_id(self._tokenizer)
        self._vocab_size = self._read_vocab_size()
        # Special tokens ([CLS], [SEP], [PAD], [UNK], [MASK]) carry no term meaning; a weight on
        # [UNK] would even match unrelated out-of-vocabulary words.
        self._drop = np.zeros(self._vocab_size, dtype=bool)
        for token_id, token in self._tokenizer.get_added_tokens_decoder().items():
            if token.special and token_id < self._vocab_size:
                self._drop[token_id] = True

        # INT8 dynamic quantization takes one activation scale per input tensor, so a text's
        # weights depend on its batch neighbours and padding. splade-tiny, 500-token CUAD chunks:
        # batches of 2-8 vs alone differ by up to 0.24 (weights reach ~2.5) and flip ~20 terms
        # per chunk, far from "batched == one by one within 1e-4". Batch 1 meets it; on 2 shared
        # cores it cost 5-40% throughput against batch 8 (chunks/s, arena off: 8.5-12 vs 13-15 at
        # 256 tokens, 6.1-6.7 vs 6.6-7.9 at 512; arena on: 33-39 vs 45-49, 17-19 vs 21-22).
        self._default_batch = tokens.default_batch_size(spec)

        self._session = create_session(spec.onnx_path, threads=threads, arena=arena)
        self._input_types = tokens.graph_inputs(self._session, spec.name)
        self._output = self._choose_output()
        self._token_level = self._probe()
        self._double_log = "log1p-log1p" in (spec.pooling or "")
        self._idf = self._load_idf()

    @property
    def vocab_size(self) -> int:
        """Width of the vectors: every index is < vocab_size."""
        return self._vocab_size

    @property
    def query_mode(self) -> str:
        """ "idf" (tokenizer + IDF table, no model call) or "model" (queries run the model)."""
        return "model" if self._idf is None else "idf"

    @property
    def default_batch_size(self) -> int:
        """Rows per call when `encode_passages` gets no batch_size (1 for INT8-dynamic models)."""
        return self._default_batch

    def encode_passages(self, texts: Sequence[str], batch_size: int | None = None) -> list[SparseVector]:
        """One vector per document chunk, in input order, capped at `max_terms` terms.

        `batch_size` None means `default_batch_size`, which keeps each vector independent of its
        batch neighbours; more rows can be faster on short texts, at that cost (see __init__).
        """
        rows = self._default_batch if batch_size is None else batch_size
        return self._encode(texts, self._spec.passage_prefix, rows, self._max_terms)

    def encode_queries(self, texts: Sequence[str]) -> list[SparseVector]:
        """One vector per search query, in input order (never capped)."""
        tokens.reject_str(texts)
        if self._idf is None:
            return self._encode(texts, self._spec.query_prefix, self._default_batch, None)
        out = []
        # Inference-free: each distinct token once, weighted by its IDF; no model call.
        for enc in self._tokenizer.encode_batch(list(texts), add_special_tokens=False):
            ids = np.unique(np.asarray(enc.ids, dtype=np.int64))
            ids = ids[ids < self._vocab_size]
            weights = self._idf[ids]
            out.append(SparseVector(ids[weights > 0].astype(np.int32), weights[weights > 0]))
        return out

    def __repr__(self) -> str:
        return f"SparseEncoder({self.fingerprint}, vocab={self._vocab_size}, queries={self.query_mode})"

    def _encode(self, texts: Sequence[str], prefix: str, rows: int, cap: int | None) -> list[SparseVector]:
        tokens.reject_str(texts)
        if rows < 1:
            raise ValueError(f"batch_size must be >= 1, got {rows}")
        if not texts:
            return []
        started = time.perf_counter()
        out: dict[int, SparseVector] = {}
        encodings = self._tokenizer.encode_batch([prefix + t for t in texts])
        # Sorting by length keeps similar lengths in one batch, so little compute goes to padding.
        for batch in tokens.bucketed(encodings, rows, self._max_batch_tokens):
            weights = self._run([encodings[i] for i in batch])
            for i, row in zip(batch.tolist(), weights, strict=True):
                out[i] = to_sparse(row, self._drop, cap)
        logger.debug("%s: %d texts in %.2f s", self._spec.name, len(texts), time.perf_counter() - started)
        return [out[i] for i in range(len(texts))]

    def _run(self, batch: list[Encoding]) -> npt.NDArray[np.float32]:
        """[rows, vocab] non-negative weights for one padded batch."""
        arrays = tokens.pad_batch(batch, self._pad_id)
        (result,) = self._session.run([self._output], tokens.feed(arrays, self._input_types))
        if self._token_level:
            return splade_pool(result, arrays["attention_mask"], self._double_log)
        return np.asarray(result, dtype=np.float32)

    def _read_vocab_size(self) -> int:
        value = self._spec.extra.get("vocab_size", self._tokenizer.get_vocab_size())
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _broken(f"{self._spec.name}: model.json vocab_size must be a positive int, not {value!r}.")
        return value

    def _choose_output(self) -> str:
        name, outputs = self._spec.name, tokens.output_names(self._session)
        if self._spec.output in outputs:
            return self._spec.output
        if len(outputs) == 1:
            # Safe to guess: _probe checks that it is [batch, (seq,) vocab].
            (only,) = outputs
            logger.info("%s: no output %r, reading the only one, %r", name, self._spec.output, only)
            return only
        raise _broken(f"{name}: the ONNX graph has no output {self._spec.output!r} ({', '.join(outputs)}).")

    def _probe(self) -> bool:
        """True if the graph gives token-level logits [batch, seq, vocab], False if it pools itself.
        Declared shapes may be symbolic, so a run on an empty text decides (and tests the graph)."""
        name, vocab = self._spec.name, self._vocab_size
        arrays = tokens.pad_batch([self._tokenizer.encode("")], self._pad_id)
        try:
            (result,) = self._session.run([self._output], tokens.feed(arrays, self._input_types))
        # onnxruntime's errors (Fail, InvalidArgument, ...) derive straight from Exception.
        except Exception as e:
            raise _broken(f"{name}: the ONNX graph failed on a test input: {e}") from e
        shape = list(np.shape(result))
        if len(shape) not in (2, 3) or shape[-1] != vocab:
            raise _broken(
                f"{name}: output {self._output!r} has shape {shape}; expected [batch, {vocab}] "
                f"or [batch, seq, {vocab}] (vocab_size in model.json or the tokenizer's)."
            )
        return len(shape) == 3

    def _load_idf(self) -> npt.NDArray[np.float32] | None:
        """IDF weight per token id (0 = not in the table), or None if queries run the model."""
        name, named = self._spec.name, self._spec.extra.get("idf")
        if named is not None and not isinstance(named, str):
            raise _broken(f"{name}: 'idf' in model.json must be a file name, not {named!r}.")
        path = self._spec.path / (named or IDF_FILE)
        if named is None and not path.is_file():
            if self._spec.extra.get("symmetric") is not True:
                # Inference-free models are trained for IDF queries; running their document
                # encoder on queries would silently rank worse, so a missing table is an error.
                raise _broken(
                    f"{name}: no {IDF_FILE} in {self._spec.path} and model.json does not say "
                    '"symmetric": true, so CaseTrack cannot encode queries.'
                )
            return None
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise _broken(f"{name}: could not read the IDF table {path}: {e}") from e
        if not isinstance(table, dict):
            raise _broken(f"{name}: the IDF table {path} must map tokens to weights.")
        idf = np.zeros(self._vocab_size, dtype=np.float32)
        unknown = 0
        for token, weight in table.items():
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                raise _broken(f"{path}: the weight of {token!r} is {weight!r}, not a number.")
            token_id = self._tokenizer.token_to_id(token)
            if token_id is None or token_id >= self._vocab_size:
                unknown += 1
            else:
                idf[token_id] = max(float(weight), 0.0)  # values must be > 0: others never count
        idf[self._drop] = 0.0
        if unknown:
            logger.warning("%s: %d tokens are not in the tokenizer's vocabulary; ignored", path, unknown)
        return idf
