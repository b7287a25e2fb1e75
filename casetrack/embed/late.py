"""Late-interaction (ColBERT) token vectors from an ONNX encoder, and MaxSim scoring.

A ColBERT model returns one vector per token. Queries keep every position; documents keep the
vectors that `TokenPruning` allows (stored with `casetrack.embed.token_codec`). A query scores
a document by MaxSim: the sum, over query tokens, of the best dot product with any document
token.

ColBERT settings come from keys of model.json outside the ModelSpec fields (`spec.extra`):
`query_marker_id` / `document_marker_id` (inserted right after [CLS]), `query_max_tokens` and
`query_pad_token` (queries are truncated and padded to that length with e.g. [MASK]: ColBERT's
query augmentation), `attend_to_mask_tokens` (attention_mask 1 on that padding; default true;
Stanford ColBERT and fastembed's Colbert use 0) and `skip_punctuation` (drop punctuation
token vectors from documents, ColBERT's skiplist). Absent keys mean: no markers, no query
padding, punctuation kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Encoding, Tokenizer
from tokenizers.processors import TemplateProcessing

from casetrack.embed.base import EncoderBase
from casetrack.embed.catalog import REIMPORT_HINT, ModelSpec
from casetrack.embed.session import create_session
from casetrack.embed.token_codec import (
    DEFAULT_CODEC,
    TokenPruning,
    prune_positions,
    punctuation_ids,
    tokens_within_budget,
)
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
Vectors = npt.NDArray[np.float32]


def default_pruning(spec: ModelSpec) -> TokenPruning:
    """The pruning rule for stored documents: keep [CLS], markers and [SEP]; drop punctuation
    only if model.json sets `skip_punctuation` (a model trained with ColBERT's skiplist); cap
    the tokens so that a chunk fits `CHUNK_BYTE_BUDGET` under `DEFAULT_CODEC`.

    Measured with bench/late_storage.py on CUAD (stand-in, 384 dims, b1, float32 MaxSim of all
    tokens as reference): this rule gave Kendall tau 0.911 / top-10 overlap 0.948 at 19.3 KB
    per chunk; also dropping special tokens and punctuation gave 0.898 / 0.938 at 18.6 KB.
    """
    return TokenPruning(
        drop_special=False,
        drop_punctuation=_extra(spec, "skip_punctuation", bool, False),
        max_kept=tokens_within_budget(spec.dim or 0, DEFAULT_CODEC),
    )


def maxsim(query: Vectors, doc: Vectors) -> float:
    """Sum over query tokens of the largest dot product with any doc token (0.0 for no tokens)."""
    if query.shape[0] == 0 or doc.shape[0] == 0:
        return 0.0
    return float((query @ doc.T).max(axis=1).sum())


def maxsim_many(query: Vectors, docs: Sequence[Vectors]) -> Vectors:
    """`maxsim(query, d)` for every doc, with one matrix product for all of them."""
    scores = np.zeros(len(docs), dtype=np.float32)
    kept = [i for i, d in enumerate(docs) if d.shape[0] > 0]
    if not kept or query.shape[0] == 0:
        return scores
    sims = query @ np.concatenate([docs[i] for i in kept]).T
    starts = np.cumsum([0] + [docs[i].shape[0] for i in kept[:-1]])
    scores[kept] = np.maximum.reduceat(sims, starts, axis=1).sum(axis=0)
    return scores


class LateInteractionEncoder(EncoderBase):
    """Encodes queries and documents into L2-normalised token vectors with one ColBERT model.

    The caller owns the instance (one onnxruntime session, two tokenizers); `encode_*` may be
    called from several threads. Documents are sorted by token length and batched (see
    `default_batch_size`); results come back in input order.
    """

    def __init__(
        self,
        spec: ModelSpec,
        threads: int | None = None,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
        pruning: TokenPruning | None = None,
    ) -> None:
        """Load the tokenizers and the ONNX session for `spec` (role "late_interaction").

        `threads` is onnxruntime's intra-op thread count (default: all usable CPUs);
        `pruning` defaults to `default_pruning(spec)`.
        """
        if spec.role != "late_interaction" or spec.dim is None:
            raise ValueError(f"LateInteractionEncoder needs a late_interaction model, not {spec.role}")
        if max_batch_tokens < 1:
            raise ValueError(f"max_batch_tokens must be >= 1, got {max_batch_tokens}")
        super().__init__(spec)
        self._dim = spec.dim
        self._max_batch_tokens = max_batch_tokens
        self._pruning = pruning if pruning is not None else default_pruning(spec)
        self._batch_size = default_batch_size(spec)

        query_max = _extra(spec, "query_max_tokens", int)
        if query_max is not None and not 3 <= query_max <= spec.max_tokens:
            raise _bad_key(spec, "query_max_tokens", f"between 3 and max_tokens ({spec.max_tokens})")
        self._query_len = query_max or spec.max_tokens
        self._query_tokenizer = self._with_marker(
            load_tokenizer(spec, truncate_at=self._query_len), "query_marker_id"
        )
        self._doc_tokenizer = self._with_marker(
            load_tokenizer(spec, truncate_at=spec.max_tokens), "document_marker_id"
        )
        self._pad_id = pad_id(self._doc_tokenizer)
        self._query_pad = self._query_pad_token(query_max)
        self._attend_pad: bool = _extra(spec, "attend_to_mask_tokens", bool, True)
        self._punctuation = punctuation_ids(self._doc_tokenizer)

        self._session = create_session(spec.onnx_path, threads=threads)
        self._input_types = graph_inputs(self._session, spec.name)
        self._check_output()

    # -- public API -------------------------------------------------------------------------

    @property
    def dim(self) -> int:
        """Size of each token vector."""
        return self._dim

    @property
    def pruning(self) -> TokenPruning:
        return self._pruning

    def encode_query(self, text: str) -> Vectors:
        """Token vectors [q_tokens, dim] (float32, unit rows) for one search query.

        Every position is kept, [CLS], marker and [MASK] padding included (they are the query).
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        enc = self._query_tokenizer.encode(text)
        if self._query_pad is not None and len(enc.ids) < self._query_len:
            # Query augmentation, not padding: these positions' vectors are part of the query.
            enc.pad(self._query_len, pad_id=self._query_pad[1], pad_token=self._query_pad[0])
        return self._run([enc], own_mask=not self._attend_pad)[0]

    def encode_documents(self, texts: Sequence[str], batch_size: int | None = None) -> list[Vectors]:
        """Token vectors [kept_tokens, dim] (float32, unit rows) per document, in input order.

        Truncates at `max_tokens`, then keeps the positions `pruning` allows. `batch_size`
        defaults to `default_batch_size(spec)`; a larger one is faster for short texts on INT8
        models but makes vectors depend on batch neighbours (see `default_batch_size`).
        """
        reject_str(texts)
        size = self._batch_size if batch_size is None else batch_size
        if size < 1:
            raise ValueError(f"batch_size must be >= 1, got {size}")
        out: list[Vectors] = [np.empty((0, self._dim), np.float32)] * len(texts)
        if not texts:
            return out
        started = time.perf_counter()
        encodings = self._doc_tokenizer.encode_batch(list(texts))
        for rows in bucketed(encodings, size, self._max_batch_tokens):
            batch = [encodings[i] for i in rows]
            for i, enc, vectors in zip(rows, batch, self._run(batch), strict=True):
                keep = prune_positions(enc.ids, enc.special_tokens_mask, self._pruning, self._punctuation)
                out[i] = np.ascontiguousarray(vectors[keep])
        logger.debug(
            "%s: encoded %d documents in %.2f s", self._spec.name, len(texts), time.perf_counter() - started
        )
        return out

    def __repr__(self) -> str:
        return f"LateInteractionEncoder({self.fingerprint}, dim={self._dim}, {self._pruning})"

    # -- internals --------------------------------------------------------------------------

    def _run(self, batch: list[Encoding], own_mask: bool = False) -> list[Vectors]:
        """Token vectors of each encoding, batch padding dropped.

        pad_batch attends to every id of an Encoding; `own_mask` uses the Encoding's mask
        instead (0 on [MASK] query padding when the model does not attend to it).
        """
        arrays = pad_batch(batch, self._pad_id)
        for row, enc in enumerate(batch if own_mask else []):
            arrays["attention_mask"][row, : len(enc.ids)] = enc.attention_mask
        (result,) = self._session.run([self._spec.output], feed(arrays, self._input_types))
        vectors = np.asarray(result, dtype=np.float32)
        if self._spec.normalize:
            # The graph already normalises (norms 1 +- 5e-7); doing it again is cheap insurance.
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=2, keepdims=True), 1e-12)
        return [vectors[row, : len(enc.ids)] for row, enc in enumerate(batch)]

    def _with_marker(self, tokenizer: Tokenizer, key: str) -> Tokenizer:
        """`tokenizer` with the marker of `key` inserted right after the leading special tokens."""
        marker_id = _extra(self._spec, key, int)
        if marker_id is None:
            return tokenizer
        marker = tokenizer.id_to_token(marker_id) if marker_id >= 0 else None
        if marker is None:
            raise _bad_key(
                self._spec, key, f"a token id below the vocabulary size {tokenizer.get_vocab_size()}"
            )
        probe = tokenizer.encode("a")
        special = probe.special_tokens_mask
        lead = special.index(0) if 0 in special else len(special)
        tokens = list(zip(probe.tokens, probe.ids, strict=True))
        prefix = [t for t, _ in tokens[:lead]]
        suffix = [t for (t, _), s in zip(tokens[lead:], special[lead:], strict=True) if s]
        single = " ".join([*prefix, marker, "$A", *suffix])
        specials = dict(t for t, s in zip(tokens, special, strict=True) if s)
        specials[marker] = marker_id
        # Truncation reserves room for the template's tokens, so max_tokens still holds.
        tokenizer.post_processor = TemplateProcessing(single=single, special_tokens=list(specials.items()))
        return tokenizer

    def _query_pad_token(self, query_max: int | None) -> tuple[str, int] | None:
        token = _extra(self._spec, "query_pad_token", str)
        if token is None or query_max is None:
            return None
        token_id = self._query_tokenizer.token_to_id(token)
        if token_id is None:
            raise _bad_key(self._spec, "query_pad_token", "a token of the vocabulary")
        return token, token_id

    def _check_output(self) -> None:
        outputs = output_names(self._session)
        name = self._spec.output
        shape = outputs[name].shape if name in outputs else []
        last = shape[-1] if shape else None
        if len(shape) != 3 or (isinstance(last, int) and last != self._dim):
            found = ", ".join(f"{n} {o.shape}" for n, o in outputs.items())
            raise ModelNotFoundError(
                f"{self._spec.name}: model.json wants output {name!r} [batch, seq, {self._dim}]; "
                f"the ONNX graph has {found}.",
                REIMPORT_HINT,
            )


def _extra(spec: ModelSpec, key: str, kind: type[Any], default: Any = None) -> Any:
    """A ColBERT setting from `spec.extra` (`default` if absent); a wrong type is a damaged model.json."""
    value = spec.extra.get(key)
    if value is None:
        return default
    # bool is an int subclass; `true` is never a token id or a length.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _bad_key(spec, key, f"a {kind.__name__}")
    return value


def _bad_key(spec: ModelSpec, key: str, expected: str) -> ModelNotFoundError:
    return ModelNotFoundError(
        f"{spec.path / 'model.json'}: {key!r} must be {expected}, got {spec.extra.get(key)!r}.",
        REIMPORT_HINT,
    )
