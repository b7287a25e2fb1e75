"""Dense text embeddings (one vector per text) from an ONNX encoder described by a ModelSpec."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding

from casetrack.embed.base import EncoderBase
from casetrack.embed.catalog import REIMPORT_HINT, ModelSpec
from casetrack.embed.session import create_session
from casetrack.embed.tokens import (
    DEFAULT_MAX_BATCH_TOKENS,
    bucketed,
    default_batch_size,
    feed,
    graph_inputs,
    load_tokenizer,
    output_names,
    pad_batch,
    pad_id,
    reject_str,
)
from casetrack.errors import ModelNotFoundError

logger = logging.getLogger(__name__)

_TOKEN_LEVEL_OUTPUT = "last_hidden_state"
_POOLINGS = ("mean", "cls")


class DenseEncoder(EncoderBase):
    """Encodes queries and passages with one dense model.

    The caller owns the instance (an onnxruntime session and two tokenizers: ~135 MB resident
    for e5-small after loading); `encode_*` and `count_tokens` may be called from several
    threads.

    Batches are formed after sorting texts by token length, hold at most `batch_size` texts
    and at most `max_batch_tokens` padded tokens, and results come back in input order.

    Vectors depend slightly on which texts share a batch: the INT8 models quantize activations
    with one scale per input tensor, so padding and neighbours move a vector (cosine to the
    same text encoded alone: e5 >= 0.985, MiniLM >= 0.96; very short texts move most).
    The default batch size (`tokens.default_batch_size`) is therefore 1 for INT8-dynamic
    models, which keeps every vector independent of its neighbours.
    """

    def __init__(
        self,
        spec: ModelSpec,
        threads: int | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
    ) -> None:
        """Load the tokenizer and the ONNX session for `spec` (a model with role "dense").

        `threads` is onnxruntime's intra-op thread count (default: all usable CPUs).
        """
        if spec.role != "dense" or spec.dim is None:
            raise ValueError(f"DenseEncoder needs a dense model, got {spec.name} ({spec.role})")
        if max_batch_tokens < 1:
            raise ValueError(f"max_batch_tokens must be >= 1, got {max_batch_tokens}")
        super().__init__(spec)
        self._dim = spec.dim
        self._max_batch_tokens = max_batch_tokens

        # Two tokenizers: the encoding one truncates at the model limit; the counting one must
        # report true lengths so the chunker can see that a text is too long.
        self._tokenizer = load_tokenizer(spec, truncate_at=spec.max_tokens)
        self._pad_id = pad_id(self._tokenizer)
        self._counter = load_tokenizer(spec)

        self._session = create_session(spec.onnx_path, threads=threads)
        self._input_types = graph_inputs(self._session, spec.name)
        self._output, self._pooling = self._choose_output(self._session)

    # -- public API -------------------------------------------------------------------------

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def passage_token_budget(self) -> int:
        """Most `count_tokens` a passage may have before `encode_passages` truncates it.

        `max_tokens` minus the special tokens and the passage prefix.
        """
        specials = len(self._counter.encode("", add_special_tokens=True).ids)
        prefix = self.count_tokens([self._spec.passage_prefix])[0] if self._spec.passage_prefix else 0
        return self._spec.max_tokens - specials - prefix

    def encode_passages(self, texts: Sequence[str], batch_size: int | None = None) -> npt.NDArray[np.float32]:
        """Vectors [len(texts), dim] (float32) for document chunks, in input order.

        Applies the model's passage prefix and truncates each text at `max_tokens`.
        """
        return self._encode(texts, self._spec.passage_prefix, batch_size)

    def encode_queries(self, texts: Sequence[str], batch_size: int | None = None) -> npt.NDArray[np.float32]:
        """Vectors [len(texts), dim] (float32) for search queries, in input order.

        Applies the model's query prefix (e5: "query: "), which the passage side lacks.
        """
        return self._encode(texts, self._spec.query_prefix, batch_size)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text, without prefix or special tokens and without truncation."""
        reject_str(texts)
        if not texts:
            return []
        return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]

    def __repr__(self) -> str:
        return f"DenseEncoder({self.fingerprint}, dim={self._dim}, output={self._output})"

    # -- internals --------------------------------------------------------------------------

    def _encode(self, texts: Sequence[str], prefix: str, batch_size: int | None) -> npt.NDArray[np.float32]:
        reject_str(texts)
        batch_size = default_batch_size(self._spec) if batch_size is None else batch_size
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        started = time.perf_counter()
        encodings = self._tokenizer.encode_batch([prefix + t for t in texts])
        # Sorting by length keeps similar lengths in one batch, so little compute goes to padding.
        for rows in bucketed(encodings, batch_size, self._max_batch_tokens):
            out[rows] = self._run([encodings[i] for i in rows])
        logger.debug(
            "%s: encoded %d texts in %.2f s", self._spec.name, len(texts), time.perf_counter() - started
        )
        return out

    def _run(self, batch: list[Encoding]) -> npt.NDArray[np.float32]:
        arrays = pad_batch(batch, self._pad_id)
        mask = arrays["attention_mask"]
        (result,) = self._session.run([self._output], feed(arrays, self._input_types))
        vectors = np.asarray(result, dtype=np.float32)
        if self._pooling == "mean":
            weights = mask[:, :, None].astype(np.float32)
            vectors = (vectors * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        elif self._pooling == "cls":
            vectors = vectors[:, 0, :]
        if self._spec.normalize:
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.maximum(norms, 1e-12)
        return vectors.astype(np.float32, copy=False)

    def _choose_output(self, session: ort.InferenceSession) -> tuple[str, str | None]:
        """The output to read and the pooling it needs (None if it is already one vector per text)."""
        outputs = output_names(session)
        if self._spec.output in outputs:
            name = self._spec.output
        elif _TOKEN_LEVEL_OUTPUT in outputs:
            name = _TOKEN_LEVEL_OUTPUT
            logger.info("%s: no output %r, pooling %r instead", self._spec.name, self._spec.output, name)
        else:
            raise ModelNotFoundError(
                f"{self._spec.name}: the ONNX graph has no output {self._spec.output!r} "
                f"(it has {', '.join(outputs)}).",
                REIMPORT_HINT,
            )
        shape = outputs[name].shape
        last = shape[-1] if shape else None
        if isinstance(last, int) and last != self._dim:
            raise ModelNotFoundError(
                f"{self._spec.name}: output {name!r} has {last} dimensions but model.json says {self._dim}.",
                REIMPORT_HINT,
            )
        if len(shape) == 2:
            return name, None
        if len(shape) == 3:
            pooling = (self._spec.pooling or "mean").lower()
            if pooling not in _POOLINGS:
                raise ModelNotFoundError(
                    f"{self._spec.name}: pooling {pooling!r} is not supported (use one of {_POOLINGS}).",
                    REIMPORT_HINT,
                )
            return name, pooling
        raise ModelNotFoundError(
            f"{self._spec.name}: output {name!r} has shape {shape}; expected [batch, dim] or "
            "[batch, seq, dim].",
            REIMPORT_HINT,
        )
