"""Tokenizing, length bucketing and input feeds shared by every encoder role.

All encoders (dense, sparse, late interaction) tokenize with the model's `tokenizer.json`,
sort texts by token length, cut them into batches bounded in rows and padded tokens, pad each
batch to its own longest row and feed onnxruntime the inputs the graph declares.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from casetrack.embed.catalog import REIMPORT_HINT, ModelSpec
from casetrack.errors import ModelNotFoundError

# Padded tokens per onnxruntime call. On 2 cores throughput is flat from batch 4 up for
# 500-token chunks, but the attention temporaries the memory arena keeps grow with batch x seq^2
# (RSS ~0.45 GB at 4 x 512, ~2.2 GB at 32 x 512); short texts still batch up to `batch_size`.
DEFAULT_MAX_BATCH_TOKENS = 2048
DEFAULT_BATCH_SIZE = 8  # rows per call for models whose results do not depend on neighbours

IntType = type[np.signedinteger[Any]]
ORT_INT_TYPES: dict[str, IntType] = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}
TEXT_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_PAD_TOKENS = ("<pad>", "[PAD]", "<|endoftext|>")


def load_tokenizer(spec: ModelSpec, truncate_at: int | None = None) -> Tokenizer:
    """The model's tokenizer without padding (batches are padded after bucketing).

    `truncate_at` caps the encoded length, special tokens included; None keeps full length
    (for counting tokens).
    """
    try:
        tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
    # tokenizers raises a bare Exception for unreadable or malformed files.
    except Exception as e:
        raise ModelNotFoundError(
            f"Could not load the tokenizer {spec.tokenizer_path}: {e}", REIMPORT_HINT
        ) from e
    tokenizer.no_padding()
    if truncate_at is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(max_length=truncate_at)
    return tokenizer


def default_batch_size(spec: ModelSpec) -> int:
    """Texts per onnxruntime call that keep batched results equal to one-by-one within 1e-4.

    INT8 dynamic quantization computes one activation scale per input tensor, so padding and
    batch neighbours move every output (measured here: dense cosine down to 0.96, ColBERT
    stand-in up to 0.08 per component, splade-tiny up to 0.24 per weight, even at equal
    lengths). Batch 1 avoids that; for ~500-token chunks on 2 cores it costs little (E1 and
    E12: within run-to-run noise; splade-tiny: 5-40%), see bench/RESULTS.md.
    """
    return 1 if (spec.quantization or "").startswith("int8-dynamic") else DEFAULT_BATCH_SIZE


def pad_id(tokenizer: Tokenizer) -> int:
    """The tokenizer's padding id; some tokenizer.json files ship without a padding setting."""
    padding = tokenizer.padding
    if padding and isinstance(padding.get("pad_id"), int):
        return int(padding["pad_id"])
    for token in _PAD_TOKENS:
        token_id = tokenizer.token_to_id(token)
        if token_id is not None:
            return token_id
    return 0


def reject_str(texts: Sequence[str]) -> None:
    """A bare str is a Sequence[str] too; encoding it would embed each character separately."""
    if isinstance(texts, str):
        raise TypeError("expected a sequence of texts, got a single str; wrap it in a list")


def length_batches(
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


def bucketed(
    encodings: Sequence[Encoding], batch_size: int, max_batch_tokens: int
) -> Iterator[npt.NDArray[np.intp]]:
    """Row indices of `encodings` grouped into length-sorted batches (see `length_batches`)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
    order = np.argsort(lengths, kind="stable")
    return length_batches(order, lengths, batch_size, max_batch_tokens)


def pad_batch(batch: Sequence[Encoding], pad: int) -> dict[str, npt.NDArray[np.int64]]:
    """`input_ids`, `attention_mask` and `token_type_ids` [rows, longest row], right-padded."""
    width = max(len(e.ids) for e in batch)
    ids = np.full((len(batch), width), pad, dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    type_ids = np.zeros((len(batch), width), dtype=np.int64)
    for row, enc in enumerate(batch):
        n = len(enc.ids)
        ids[row, :n] = enc.ids
        mask[row, :n] = 1
        type_ids[row, :n] = enc.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": type_ids}


def graph_inputs(session: ort.InferenceSession, model_name: str) -> dict[str, IntType]:
    """Input name -> integer dtype for every graph input; errors name what CaseTrack cannot feed."""
    types: dict[str, IntType] = {}
    for node in session.get_inputs():
        if node.name not in TEXT_INPUTS:
            raise ModelNotFoundError(
                f"{model_name}: the ONNX graph wants an input {node.name!r} that CaseTrack cannot provide.",
                REIMPORT_HINT,
            )
        if node.type not in ORT_INT_TYPES:
            raise ModelNotFoundError(
                f"{model_name}: input {node.name!r} has type {node.type}; expected int64 or int32.",
                REIMPORT_HINT,
            )
        types[node.name] = ORT_INT_TYPES[node.type]
    if "input_ids" not in types:
        raise ModelNotFoundError(f"{model_name}: the ONNX graph has no input_ids.", REIMPORT_HINT)
    return types


def feed(arrays: dict[str, npt.NDArray[np.int64]], types: dict[str, IntType]) -> dict[str, Any]:
    """The subset of `arrays` the graph takes, cast to the graph's integer types."""
    return {name: arrays[name].astype(dtype, copy=False) for name, dtype in types.items()}


def output_names(session: ort.InferenceSession) -> dict[str, Any]:
    """Output name -> onnxruntime NodeArg."""
    return {node.name: node for node in session.get_outputs()}
