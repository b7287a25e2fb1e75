"""Dense text embeddings (one vector per text) from an ONNX encoder described by a ModelSpec."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from casetrack.embed.catalog import REIMPORT_HINT, ModelSpec
from casetrack.embed.session import create_session
from casetrack.errors import ModelNotFoundError

logger = logging.getLogger(__name__)

# Padded tokens per onnxruntime call. On 2 cores throughput is flat from batch 4 up for
# 500-token chunks, but the attention temporaries the memory arena keeps grow with batch x seq^2
# (RSS ~0.45 GB at 4 x 512, ~2.2 GB at 32 x 512); short texts still batch up to `batch_size`.
DEFAULT_MAX_BATCH_TOKENS = 2048

_ORT_INT_TYPES: dict[str, type[np.signedinteger[Any]]] = {
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
}
_TOKEN_LEVEL_OUTPUT = "last_hidden_state"
_POOLINGS = ("mean", "cls")
_PAD_TOKENS = ("<pad>", "[PAD]", "<|endoftext|>")


class DenseEncoder:
    """Encodes queries and passages with one dense model.

    The caller owns the instance (an onnxruntime session and two tokenizers: ~135 MB resident
    for e5-small after loading); `encode_*` and `count_tokens` may be called from several
    threads.

    Batches are formed after sorting texts by token length, hold at most `batch_size` texts
    and at most `max_batch_tokens` padded tokens, and results come back in input order.

    Vectors depend slightly on which texts share a batch: the INT8 models quantize activations
    with one scale per input tensor, so padding and neighbours move a vector (cosine to the
    same text encoded alone: e5 >= 0.985, MiniLM >= 0.96; very short texts move most).
    `batch_size=1` makes every vector independent of its neighbours and, for ~500-token
    chunks on 2 cores, costs no throughput.
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
        self._spec = spec
        self._dim = spec.dim
        self._max_batch_tokens = max_batch_tokens

        # Two tokenizers: the encoding one truncates at the model limit; the counting one must
        # report true lengths so the chunker can see that a text is too long.
        self._tokenizer = _load_tokenizer(spec)
        self._pad_id = _pad_id(self._tokenizer)
        self._tokenizer.no_padding()  # batches are padded here, after length bucketing
        self._tokenizer.enable_truncation(max_length=spec.max_tokens)
        self._counter = _load_tokenizer(spec)
        self._counter.no_padding()
        self._counter.no_truncation()

        self._session = create_session(spec.onnx_path, threads=threads)
        self._input_types = self._check_inputs(self._session)
        self._output, self._pooling = self._choose_output(self._session)

    # -- public API -------------------------------------------------------------------------

    @property
    def spec(self) -> ModelSpec:
        return self._spec

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        """Model input limit in tokens, special tokens and prefix included."""
        return self._spec.max_tokens

    @property
    def fingerprint(self) -> str:
        return self._spec.fingerprint

    @property
    def passage_token_budget(self) -> int:
        """Most `count_tokens` a passage may have before `encode_passages` truncates it.

        `max_tokens` minus the special tokens and the passage prefix.
        """
        specials = len(self._counter.encode("", add_special_tokens=True).ids)
        prefix = self.count_tokens([self._spec.passage_prefix])[0] if self._spec.passage_prefix else 0
        return self._spec.max_tokens - specials - prefix

    def encode_passages(self, texts: Sequence[str], batch_size: int = 16) -> npt.NDArray[np.float32]:
        """Vectors [len(texts), dim] (float32) for document chunks, in input order.

        Applies the model's passage prefix and truncates each text at `max_tokens`.
        """
        return self._encode(texts, self._spec.passage_prefix, batch_size)

    def encode_queries(self, texts: Sequence[str], batch_size: int = 16) -> npt.NDArray[np.float32]:
        """Vectors [len(texts), dim] (float32) for search queries, in input order.

        Applies the model's query prefix (e5: "query: "), which the passage side lacks.
        """
        return self._encode(texts, self._spec.query_prefix, batch_size)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text, without prefix or special tokens and without truncation."""
        _reject_str(texts)
        if not texts:
            return []
        return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]

    def __repr__(self) -> str:
        return f"DenseEncoder({self.fingerprint}, dim={self._dim}, output={self._output})"

    # -- internals --------------------------------------------------------------------------

    def _encode(self, texts: Sequence[str], prefix: str, batch_size: int) -> npt.NDArray[np.float32]:
        _reject_str(texts)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        started = time.perf_counter()
        encodings = self._tokenizer.encode_batch([prefix + t for t in texts])
        # Sorting by length keeps similar lengths in one batch, so little compute goes to padding.
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        order = np.argsort(lengths, kind="stable")
        for rows in _batches(order, lengths, batch_size, self._max_batch_tokens):
            out[rows] = self._run([encodings[i] for i in rows])
        logger.debug(
            "%s: encoded %d texts (%d tokens) in %.2f s",
            self._spec.name,
            len(texts),
            int(lengths.sum()),
            time.perf_counter() - started,
        )
        return out

    def _run(self, batch: list[Encoding]) -> npt.NDArray[np.float32]:
        width = max(len(e.ids) for e in batch)
        ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        type_ids = np.zeros((len(batch), width), dtype=np.int64)
        for row, enc in enumerate(batch):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            mask[row, :n] = 1
            type_ids[row, :n] = enc.type_ids
        available = {"input_ids": ids, "attention_mask": mask, "token_type_ids": type_ids}
        feed = {name: available[name].astype(dtype, copy=False) for name, dtype in self._input_types.items()}
        (result,) = self._session.run([self._output], feed)
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

    def _check_inputs(self, session: ort.InferenceSession) -> dict[str, type[np.signedinteger[Any]]]:
        """Input name -> dtype for every graph input; token_type_ids only if the graph has it."""
        types: dict[str, type[np.signedinteger[Any]]] = {}
        for node in session.get_inputs():
            if node.name not in ("input_ids", "attention_mask", "token_type_ids"):
                raise ModelNotFoundError(
                    f"{self._spec.name}: the ONNX graph wants an input {node.name!r} that CaseTrack "
                    "cannot provide.",
                    REIMPORT_HINT,
                )
            if node.type not in _ORT_INT_TYPES:
                raise ModelNotFoundError(
                    f"{self._spec.name}: input {node.name!r} has type {node.type}; expected int64 or int32.",
                    REIMPORT_HINT,
                )
            types[node.name] = _ORT_INT_TYPES[node.type]
        if "input_ids" not in types:
            raise ModelNotFoundError(f"{self._spec.name}: the ONNX graph has no input_ids.", REIMPORT_HINT)
        return types

    def _choose_output(self, session: ort.InferenceSession) -> tuple[str, str | None]:
        """The output to read and the pooling it needs (None if it is already one vector per text)."""
        outputs = {node.name: node for node in session.get_outputs()}
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


def _batches(
    order: npt.NDArray[np.intp], lengths: npt.NDArray[np.int64], batch_size: int, max_batch_tokens: int
) -> Iterator[npt.NDArray[np.intp]]:
    """Consecutive slices of `order` (indices by ascending length), each with at most
    `batch_size` rows and `max_batch_tokens` padded tokens; a text over the budget goes alone."""
    start = 0
    while start < len(order):
        end = start + 1
        # Lengths ascend, so the row being added sets the padded width of the whole batch.
        while (
            end < len(order)
            and end - start < batch_size
            and (end - start + 1) * int(lengths[order[end]]) <= max_batch_tokens
        ):
            end += 1
        yield order[start:end]
        start = end


def _load_tokenizer(spec: ModelSpec) -> Tokenizer:
    try:
        return Tokenizer.from_file(str(spec.tokenizer_path))
    # tokenizers raises a bare Exception for unreadable or malformed files.
    except Exception as e:
        raise ModelNotFoundError(
            f"Could not load the tokenizer {spec.tokenizer_path}: {e}", REIMPORT_HINT
        ) from e


def _pad_id(tokenizer: Tokenizer) -> int:
    # Prefer the tokenizer's own padding setting; some tokenizer.json files ship without one.
    padding = tokenizer.padding
    if padding and isinstance(padding.get("pad_id"), int):
        return int(padding["pad_id"])
    for token in _PAD_TOKENS:
        token_id = tokenizer.token_to_id(token)
        if token_id is not None:
            return token_id
    return 0


def _reject_str(texts: Sequence[str]) -> None:
    # A bare str is a Sequence[str] too; encoding it would embed each character separately.
    if isinstance(texts, str):
        raise TypeError("expected a sequence of texts, got a single str; wrap it in a list")
