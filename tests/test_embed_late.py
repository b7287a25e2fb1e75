"""LateInteractionEncoder and MaxSim on the ColBERT stand-in of the model pack."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from casetrack.embed.catalog import ModelSpec, load_model_spec
from casetrack.embed.late import (
    LateInteractionEncoder,
    default_pruning,
    maxsim,
    maxsim_many,
)
from casetrack.embed.session import create_session
from casetrack.embed.token_codec import DEFAULT_CODEC, TokenPruning, decode_tokens, encode_tokens
from casetrack.embed.tokens import default_batch_size, load_tokenizer
from casetrack.errors import ModelNotFoundError
from tests.conftest import MODELS

MODELS_DIR = MODELS
COLBERT = MODELS_DIR / "colbert-standin-minilm"
CLS, SEP, MASK, Q_MARKER, D_MARKER = 101, 102, 103, 1, 2
COLBERT_KEYS = {
    "query_marker_id": Q_MARKER,
    "document_marker_id": D_MARKER,
    "query_max_tokens": 32,
    "query_pad_token": "[MASK]",
    "skip_punctuation": True,
}

pytestmark = pytest.mark.skipif(not COLBERT.is_dir(), reason=f"model pack not found at {COLBERT}")

MIXED_LENGTHS = [
    "Appeal dismissed.",
    "The defendant shall pay the costs of the proceedings, to be assessed if not agreed.",
    " ".join(["The court considered the evidence of the expert witness at length."] * 12),
    "Lease.",
    " ".join(["Either party may terminate this Agreement upon thirty (30) days' written notice."] * 4),
    "",
]
Vectors = npt.NDArray[np.float32]


def model_folder(tmp: Path, **changes: Any) -> Path:
    """A copy of the stand-in's folder (graph and tokenizer linked) with model.json changed."""
    meta = json.loads((COLBERT / "model.json").read_text())
    meta.update(changes)
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "model.json").write_text(json.dumps(meta))
    for file in ("model.onnx", "tokenizer.json"):
        (tmp / file).symlink_to(COLBERT / file)
    return tmp


@pytest.fixture(scope="module")
def spec() -> ModelSpec:
    return load_model_spec(COLBERT)


@pytest.fixture(scope="module")
def encoder(spec: ModelSpec) -> LateInteractionEncoder:
    return LateInteractionEncoder(spec)


@pytest.fixture(scope="module")
def colbert(tmp_path_factory: pytest.TempPathFactory) -> LateInteractionEncoder:
    """The stand-in's graph with the production model's markers, query padding and skiplist."""
    return LateInteractionEncoder(
        load_model_spec(model_folder(tmp_path_factory.mktemp("m") / "c", **COLBERT_KEYS))
    )


def reference(spec: ModelSpec, ids: list[int], mask: list[int] | None = None) -> Vectors:
    """The graph run by hand on one sequence (every position attended by default), rows normalised."""
    session = create_session(spec.onnx_path, threads=1)
    attention = np.array([mask if mask is not None else [1] * len(ids)], np.int64)
    feed = {"input_ids": np.array([ids], np.int64), "attention_mask": attention}
    (out,) = session.run(["contextual"], feed)
    vectors = np.asarray(out[0], dtype=np.float32)
    rows: Vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return rows


def plain_ids(spec: ModelSpec, text: str) -> list[int]:
    return list(load_tokenizer(spec).encode(text, add_special_tokens=False).ids)


def assert_unit_rows(vectors: Vectors) -> None:
    assert vectors.dtype == np.float32 and vectors.ndim == 2 and vectors.shape[1] == 384
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_properties(encoder: LateInteractionEncoder, spec: ModelSpec) -> None:
    assert (encoder.dim, encoder.max_tokens) == (384, 512)
    assert encoder.spec is spec and encoder.fingerprint == spec.fingerprint
    assert encoder.fingerprint.startswith("colbert-standin-minilm@")
    # No skiplist key in the stand-in's model.json: punctuation stays, the b1 budget caps at 416.
    assert encoder.pruning == TokenPruning(drop_special=False, drop_punctuation=False, max_kept=416)
    assert default_batch_size(spec) == 1
    assert default_batch_size(dataclasses.replace(spec, quantization=None)) > 1


def test_query_shape_and_norm(encoder: LateInteractionEncoder, spec: ModelSpec) -> None:
    text = "deadline to file a notice of appeal"
    query = encoder.encode_query(text)
    assert_unit_rows(query)
    # No markers and no padding in the stand-in's model.json: [CLS] tokens [SEP].
    ids = [CLS, *plain_ids(spec, text), SEP]
    assert query.shape == (len(ids), 384)
    np.testing.assert_allclose(query, reference(spec, ids), atol=1e-5)


def test_documents_shapes_and_padding_dropped(spec: ModelSpec) -> None:
    full = LateInteractionEncoder(spec, pruning=TokenPruning())
    texts = MIXED_LENGTHS
    # Batches of 8 pad the short texts to the longest: the padding rows must not come back.
    docs = full.encode_documents(texts, batch_size=8)
    assert len(docs) == len(texts)
    for text, doc in zip(texts, docs, strict=True):
        assert_unit_rows(doc)
        assert doc.shape[0] == len(plain_ids(spec, text)) + 2


def test_documents_match_the_graph_alone(encoder: LateInteractionEncoder, spec: ModelSpec) -> None:
    text = MIXED_LENGTHS[1]
    (doc,) = encoder.encode_documents([text])
    np.testing.assert_allclose(doc, reference(spec, [CLS, *plain_ids(spec, text), SEP]), atol=1e-5)


def test_batched_equals_one_by_one_under_defaults(encoder: LateInteractionEncoder) -> None:
    together = encoder.encode_documents(MIXED_LENGTHS)
    for text, vectors in zip(MIXED_LENGTHS, together, strict=True):
        np.testing.assert_allclose(vectors, encoder.encode_documents([text])[0], atol=1e-4)


def test_larger_batches_stay_close(encoder: LateInteractionEncoder) -> None:
    """Not within 1e-4: INT8 dynamic quantization takes one activation scale per batch tensor
    (measured: up to 0.07 per component), which is why the default batch is 1."""
    alone = encoder.encode_documents(MIXED_LENGTHS, batch_size=1)
    batched = encoder.encode_documents(MIXED_LENGTHS, batch_size=8)
    for a, b in zip(alone, batched, strict=True):
        assert a.shape == b.shape
        assert (a * b).sum(axis=1).min() > 0.9


def test_query_markers_and_mask_padding(colbert: LateInteractionEncoder) -> None:
    text = "deadline to file a notice of appeal"
    query = colbert.encode_query(text)
    assert_unit_rows(query)
    ids = [CLS, Q_MARKER, *plain_ids(colbert.spec, text), SEP]
    ids += [MASK] * (32 - len(ids))
    assert query.shape == (32, 384)
    # The [MASK] positions are attended (attention_mask 1), as ColBERT's query augmentation wants.
    np.testing.assert_allclose(query, reference(colbert.spec, ids), atol=1e-5)


def test_query_padding_unattended_when_asked(tmp_path: Path, colbert: LateInteractionEncoder) -> None:
    # Stanford ColBERT and fastembed's Colbert leave attention_mask 0 on the [MASK] padding.
    folder = model_folder(tmp_path / "u", **COLBERT_KEYS, attend_to_mask_tokens=False)
    unattended = LateInteractionEncoder(load_model_spec(folder))
    text = "deadline to file a notice of appeal"
    ids = [CLS, Q_MARKER, *plain_ids(colbert.spec, text), SEP]
    mask = [1] * len(ids) + [0] * (32 - len(ids))
    query = unattended.encode_query(text)
    assert query.shape == (32, 384)
    np.testing.assert_allclose(
        query, reference(colbert.spec, ids + [MASK] * (32 - len(ids)), mask), atol=1e-5
    )
    assert np.abs(query - colbert.encode_query(text)).max() > 0.01


def test_long_query_is_truncated_to_query_max_tokens(colbert: LateInteractionEncoder) -> None:
    text = " ".join(f"clause{i}" for i in range(60))
    query = colbert.encode_query(text)
    ids = [CLS, Q_MARKER, *plain_ids(colbert.spec, text)[:29], SEP]
    assert query.shape == (32, 384)
    np.testing.assert_allclose(query, reference(colbert.spec, ids), atol=1e-5)


def test_document_marker_and_skiplist(colbert: LateInteractionEncoder) -> None:
    text = "The Term (as defined below) ends on 31 December, 2025; renewal is automatic."
    (doc,) = colbert.encode_documents([text])
    assert_unit_rows(doc)
    tokenizer = load_tokenizer(colbert.spec)
    ids = [CLS, D_MARKER, *plain_ids(colbert.spec, text), SEP]
    punct = {tokenizer.token_to_id(s) for s in "(),;."}
    kept = [i for i, token in enumerate(ids) if token not in punct]
    assert len(kept) == len(ids) - 5 and doc.shape == (len(kept), 384)
    np.testing.assert_allclose(doc, reference(colbert.spec, ids)[kept], atol=1e-5)


def test_punctuation_kept_unless_asked(tmp_path: Path, encoder: LateInteractionEncoder) -> None:
    text = "Notice, given; received."
    kept = encoder.encode_documents([text])[0].shape[0]
    asked = LateInteractionEncoder(load_model_spec(model_folder(tmp_path / "s", skip_punctuation=True)))
    assert kept - asked.encode_documents([text])[0].shape[0] == 3
    assert default_pruning(asked.spec).drop_punctuation


def test_long_document_is_truncated_and_capped(spec: ModelSpec, encoder: LateInteractionEncoder) -> None:
    text = " ".join(f"word{i % 97}" for i in range(2000))
    full = LateInteractionEncoder(spec, pruning=TokenPruning())
    assert full.encode_documents([text])[0].shape == (512, 384)
    (capped,) = encoder.encode_documents([text])
    assert capped.shape == (416, 384)
    assert len(encode_tokens(capped, DEFAULT_CODEC)) <= 20_000


def test_maxsim_ranks_the_relevant_passage_first(encoder: LateInteractionEncoder) -> None:
    query = encoder.encode_query("deadline to file a notice of appeal")
    docs = encoder.encode_documents(
        [
            "The notice of appeal must be filed within thirty days after entry of the judgment.",
            "The tenant shall keep the premises in good repair and pay the rent monthly.",
        ]
    )
    scores = [maxsim(query, d) for d in docs]
    assert scores[0] > scores[1]
    np.testing.assert_allclose(maxsim_many(query, docs), scores, rtol=1e-5)
    # The ranking survives the storage codec.
    stored = [decode_tokens(encode_tokens(d, DEFAULT_CODEC), len(d), 384, DEFAULT_CODEC) for d in docs]
    assert maxsim(query, stored[0]) > maxsim(query, stored[1])


def test_maxsim_definition() -> None:
    query = np.array([[1, 0], [0, 1]], np.float32)
    doc = np.array([[0.6, 0.8], [1, 0], [0, -1]], np.float32)
    assert maxsim(query, doc) == pytest.approx(1.0 + 0.8)
    empty = np.empty((0, 2), np.float32)
    assert maxsim(query, empty) == 0.0 and maxsim(empty, doc) == 0.0
    np.testing.assert_allclose(maxsim_many(query, [doc, empty, doc[:1]]), [1.8, 0.0, 1.4])
    assert maxsim_many(query, []).shape == (0,)


def test_empty_input(encoder: LateInteractionEncoder, colbert: LateInteractionEncoder) -> None:
    assert encoder.encode_documents([]) == []
    # An empty text still has [CLS] and [SEP] (and the marker), which the default keeps.
    assert encoder.encode_documents([""])[0].shape == (2, 384)
    assert colbert.encode_documents([""])[0].shape == (3, 384)
    assert encoder.encode_query("").shape == (2, 384)
    assert colbert.encode_query("").shape == (32, 384)


def test_single_string_is_rejected(encoder: LateInteractionEncoder) -> None:
    with pytest.raises(TypeError):
        encoder.encode_documents("a single text")
    with pytest.raises(TypeError):
        encoder.encode_query(["a list"])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        encoder.encode_documents(["x"], batch_size=0)


def test_rejects_non_late_spec() -> None:
    with pytest.raises(ValueError):
        LateInteractionEncoder(load_model_spec(MODELS_DIR / "all-MiniLM-L6-v2"))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"output": "token_embeddings"}, "wants output 'token_embeddings'"),
        ({"dim_per_token": 96}, r"\[batch, seq, 96\]; the ONNX graph has contextual"),
        ({"query_marker_id": 10**6}, "query_marker_id"),
        ({"document_marker_id": "2"}, "document_marker_id"),
        ({"query_max_tokens": 32, "query_pad_token": "[NOPE]"}, "query_pad_token"),
        ({"query_max_tokens": 2}, "query_max_tokens"),
        ({"skip_punctuation": "yes"}, "skip_punctuation"),
        ({"attend_to_mask_tokens": 1}, "attend_to_mask_tokens"),
    ],
)
def test_bad_model_folder(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ModelNotFoundError, match=message) as info:
        LateInteractionEncoder(load_model_spec(model_folder(tmp_path / "bad", **changes)))
    assert info.value.hint and "casetrack models import DIR" in info.value.hint


def test_damaged_graph(tmp_path: Path) -> None:
    folder = tmp_path / "damaged"
    folder.mkdir()
    (folder / "model.json").write_text((COLBERT / "model.json").read_text())
    (folder / "tokenizer.json").symlink_to(COLBERT / "tokenizer.json")
    (folder / "model.onnx").write_bytes(b"\x00not an onnx graph" * 10)
    with pytest.raises(ModelNotFoundError) as info:
        LateInteractionEncoder(load_model_spec(folder))
    assert info.value.hint and "casetrack models import DIR" in info.value.hint
    assert info.value.__cause__ is not None
