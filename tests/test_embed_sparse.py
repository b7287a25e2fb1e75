"""SparseEncoder on the pack's real INT8 splade-tiny, SPLADE pooling and IDF (inference-free) queries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from tokenizers import Tokenizer

from casetrack.embed import sparse as sparse_module
from casetrack.embed.catalog import load_model_spec
from casetrack.embed.sparse import DEFAULT_MAX_TERMS, SparseEncoder, SparseVector, splade_pool
from casetrack.errors import ModelNotFoundError
from tests.conftest import DATA, MODELS, require

MODELS_DIR = MODELS
SPLADE = "splade-tiny"
VOCAB = 30522
SPECIAL_IDS = (0, 100, 101, 102, 103)  # [PAD] [UNK] [CLS] [SEP] [MASK]

pytestmark = pytest.mark.skipif(not MODELS_DIR.is_dir(), reason=f"model pack not found at {MODELS_DIR}")

TERMINATION = "Either party may terminate this Agreement on thirty days notice; termination is effective."
RENT = "The tenant shall keep the premises in good repair and pay the rent monthly to the landlord."
MIXED_LENGTHS = [
    "Appeal dismissed.",
    TERMINATION,
    " ".join(["The court considered the evidence of the expert witness at length."] * 12),
    "Lease.",
    RENT,
    " ".join(["The licensee shall indemnify the licensor against all third-party claims."] * 40),
    "",
]


@pytest.fixture(scope="module")
def splade() -> SparseEncoder:
    return SparseEncoder(load_model_spec(MODELS_DIR / SPLADE))


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer.from_file(str(MODELS_DIR / SPLADE / "tokenizer.json"))


def model_copy(tmp_path: Path, meta_changes: dict[str, Any] | None = None) -> Path:
    """A folder with splade-tiny's files symlinked and its model.json edited."""
    src = MODELS_DIR / SPLADE
    folder = tmp_path / SPLADE
    folder.mkdir()
    for file in ("model.onnx", "tokenizer.json"):
        (folder / file).symlink_to(src / file)
    meta = json.loads((src / "model.json").read_text())
    meta.update(meta_changes or {})
    (folder / "model.json").write_text(json.dumps({k: v for k, v in meta.items() if v is not None}))
    return folder


def as_dense(vectors: Sequence[SparseVector]) -> npt.NDArray[np.float32]:
    out = np.zeros((len(vectors), VOCAB), dtype=np.float32)
    for row, vec in enumerate(vectors):
        out[row, vec.indices] = vec.values
    return out


def check_vectors(vectors: Sequence[SparseVector], max_terms: int | None = None) -> None:
    for vec in vectors:
        assert vec.indices.dtype == np.int32 and vec.values.dtype == np.float32
        assert vec.indices.ndim == 1 and vec.indices.shape == vec.values.shape and vec.nnz == len(vec.indices)
        assert np.all(np.diff(vec.indices) > 0), "indices must ascend strictly (sorted, unique)"
        assert np.all(vec.values > 0) and np.all(np.isfinite(vec.values))
        assert vec.nnz == 0 or 0 <= vec.indices[0] <= vec.indices[-1] < VOCAB
        assert not np.isin(SPECIAL_IDS, vec.indices).any()
        if max_terms is not None:
            assert vec.nnz <= max_terms


def test_properties(splade: SparseEncoder) -> None:
    assert (splade.vocab_size, splade.max_tokens) == (VOCAB, 512)
    assert splade.fingerprint == splade.spec.fingerprint and splade.fingerprint.startswith(SPLADE + "@")
    # splade-tiny ships no idf.json and says "symmetric": true.
    assert splade.query_mode == "model"
    # INT8-dynamic: batch 1 by default so vectors do not depend on batch neighbours.
    assert splade.default_batch_size == 1


def test_shapes_dtypes_and_invariants(splade: SparseEncoder) -> None:
    passages = splade.encode_passages(MIXED_LENGTHS)
    queries = splade.encode_queries(["termination for convenience", "notice of appeal"])
    assert len(passages) == len(MIXED_LENGTHS) and len(queries) == 2
    check_vectors(passages, DEFAULT_MAX_TERMS)
    check_vectors(queries)
    assert all(v.nnz > 0 for v in passages[:-1])


def test_relevant_terms_present(splade: SparseEncoder, tokenizer: Tokenizer) -> None:
    term, rent = splade.encode_passages([TERMINATION, RENT])
    termination_id = tokenizer.token_to_id("termination")
    assert termination_id in term.indices
    assert termination_id not in rent.indices
    assert tokenizer.token_to_id("rent") in rent.indices


def test_dot_ranks_relevant_passage_first(splade: SparseEncoder) -> None:
    (query,) = splade.encode_queries(["termination of the agreement on notice"])
    relevant, irrelevant = splade.encode_passages([TERMINATION, RENT])
    assert relevant.dot(query) > irrelevant.dot(query) >= 0
    assert relevant.dot(query) == pytest.approx(query.dot(relevant))
    dense_dot = float(as_dense([relevant])[0] @ as_dense([query])[0])
    assert relevant.dot(query) == pytest.approx(dense_dot, rel=1e-6)


def test_batched_equals_one_by_one_under_defaults(splade: SparseEncoder) -> None:
    """Explicit batches of this INT8 model differ by up to ~0.2 per weight (one activation scale
    per input tensor), so the default must be what meets the 1e-4 requirement."""
    alone = as_dense([splade.encode_passages([t])[0] for t in MIXED_LENGTHS])
    np.testing.assert_allclose(as_dense(splade.encode_passages(MIXED_LENGTHS)), alone, atol=1e-4, rtol=0)


def test_batched_equals_one_by_one_on_contract_chunks(splade: SparseEncoder, tokenizer: Tokenizer) -> None:
    files = sorted(require(DATA / "legal_span_bench" / "corpus" / "cuad").glob("*.txt"))[:3]
    chunks = []
    for file in files:
        text = file.read_text(encoding="utf-8", errors="replace")
        offsets = tokenizer.encode(text, add_special_tokens=False).offsets
        chunks.append(text[offsets[0][0] : offsets[min(len(offsets), 500) - 1][1]])
    batched = splade.encode_passages(chunks)
    alone = [splade.encode_passages([c])[0] for c in chunks]
    np.testing.assert_allclose(as_dense(batched), as_dense(alone), atol=1e-4, rtol=0)
    check_vectors(batched, DEFAULT_MAX_TERMS)
    assert min(v.nnz for v in batched) > 100


@pytest.mark.parametrize("batch_size", [None, 3])
def test_order_is_preserved(splade: SparseEncoder, batch_size: int | None) -> None:
    # Token lengths are all distinct, so any input order forms the same length-sorted batches.
    forward = as_dense(splade.encode_passages(MIXED_LENGTHS, batch_size=batch_size))
    perm = [3, 0, 6, 2, 5, 1, 4]
    permuted = as_dense(splade.encode_passages([MIXED_LENGTHS[i] for i in perm], batch_size=batch_size))
    np.testing.assert_allclose(permuted, forward[perm], atol=1e-6)


def test_empty_input(splade: SparseEncoder) -> None:
    assert splade.encode_passages([]) == []
    assert splade.encode_queries([]) == []


def test_single_string_is_rejected(splade: SparseEncoder) -> None:
    with pytest.raises(TypeError):
        splade.encode_passages("a single text")
    with pytest.raises(TypeError):
        splade.encode_queries("a single text")
    with pytest.raises(ValueError):
        splade.encode_passages(["x"], batch_size=0)


def test_max_terms_keeps_the_largest_weights() -> None:
    spec = load_model_spec(MODELS_DIR / SPLADE)
    full = SparseEncoder(spec, max_terms=None).encode_passages([MIXED_LENGTHS[5]])[0]
    capped = SparseEncoder(spec, max_terms=20).encode_passages([MIXED_LENGTHS[5]])[0]
    assert full.nnz > 20 and capped.nnz == 20
    check_vectors([capped])
    top = np.sort(full.indices[np.argsort(-full.values, kind="stable")[:20]])
    assert set(capped.indices.tolist()) == set(top.tolist())
    np.testing.assert_allclose(as_dense([capped])[0][capped.indices], as_dense([full])[0][capped.indices])


def test_symmetric_queries_run_the_model_uncapped(splade: SparseEncoder) -> None:
    # No prefixes: a query is the same vector as the passage of the same text.
    query = splade.encode_queries([TERMINATION])[0]
    np.testing.assert_allclose(as_dense([query]), as_dense(splade.encode_passages([TERMINATION])), atol=1e-6)


def test_long_input_is_truncated(splade: SparseEncoder) -> None:
    words = [f"word{i % 97}" for i in range(3000)]
    a = splade.encode_passages([" ".join(words)])
    b = splade.encode_passages([" ".join(words[:1500] + ["appeal"] * 1500)])
    np.testing.assert_allclose(as_dense(a), as_dense(b), atol=1e-6)


def test_idf_query_mode(tmp_path: Path, tokenizer: Tokenizer, splade: SparseEncoder) -> None:
    # A real IDF table over the tokenizer's own tokens: document frequencies in a small corpus.
    corpus = [TERMINATION, RENT, *MIXED_LENGTHS[2:4]]
    df: dict[str, int] = {}
    for doc in corpus:
        for token in set(tokenizer.encode(doc, add_special_tokens=False).tokens):
            df[token] = df.get(token, 0) + 1
    idf = {token: float(np.log((len(corpus) + 1) / n)) for token, n in df.items()}
    idf.update({"[CLS]": 5.0, "[UNK]": 5.0, "notatoken": 9.0, "lease": 0.0})
    folder = model_copy(tmp_path, {"symmetric": None})
    (folder / "idf.json").write_text(json.dumps(idf))
    encoder = SparseEncoder(load_model_spec(folder))
    assert encoder.query_mode == "idf"

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("idf queries must not run the model")

    encoder._session = SimpleNamespace(run=no_model)
    text = "Termination of the lease on notice; the termination zzqx \N{ROBOT FACE}"
    query, lease, empty = encoder.encode_queries([text, "lease", ""])
    check_vectors([query, lease, empty])  # also: [CLS] and [UNK] (the emoji) never appear
    tokens = set(tokenizer.encode(text, add_special_tokens=False).tokens)
    # Each distinct token once, at its table weight; tokens missing from the table or at 0 drop out.
    expected = {tokenizer.token_to_id(t): idf[t] for t in tokens if idf.get(t, 0) > 0 and t != "[UNK]"}
    assert {"termination", "of", "notice"} <= {t for t in tokens if tokenizer.token_to_id(t) in expected}
    assert "##q" not in idf and "lease" in tokens
    assert dict(zip(query.indices.tolist(), query.values.tolist(), strict=True)) == pytest.approx(expected)
    assert lease.nnz == 0 and empty.nnz == 0
    # Passages still come from the same graph as splade-tiny's.
    encoder._session = splade._session
    same_graph = as_dense(encoder.encode_passages([RENT]))
    np.testing.assert_allclose(same_graph, as_dense(splade.encode_passages([RENT])), atol=1e-6)


def test_idf_file_named_in_model_json(tmp_path: Path) -> None:
    folder = model_copy(tmp_path, {"symmetric": None, "idf": "weights/idf_v3.json"})
    with pytest.raises(ModelNotFoundError, match="idf_v3.json") as info:
        SparseEncoder(load_model_spec(folder))
    assert info.value.__cause__ is not None
    (folder / "weights").mkdir()
    (folder / "weights" / "idf_v3.json").write_text(json.dumps({"lease": 2.5}))
    encoder = SparseEncoder(load_model_spec(folder))
    assert encoder.query_mode == "idf" and encoder.encode_queries(["lease"])[0].values.tolist() == [2.5]


@pytest.mark.parametrize(
    ("meta", "idf_text", "match"),
    [
        ({"symmetric": None}, None, "symmetric"),  # inference-free model without its IDF table
        ({}, "{not json", "IDF table"),
        ({}, json.dumps({"lease": "high"}), "not a number"),
        ({"vocab_size": 1000}, None, "shape"),
        ({"vocab_size": "big"}, None, "vocab_size"),
    ],
)
def test_broken_model_folder(tmp_path: Path, meta: dict[str, Any], idf_text: str | None, match: str) -> None:
    folder = model_copy(tmp_path, meta)
    if idf_text is not None:
        (folder / "idf.json").write_text(idf_text)
    with pytest.raises(ModelNotFoundError, match=match) as info:
        SparseEncoder(load_model_spec(folder))
    assert info.value.hint and "casetrack models import DIR" in info.value.hint


@pytest.mark.parametrize("damaged", ["model.onnx", "tokenizer.json"])
def test_damaged_files(tmp_path: Path, damaged: str) -> None:
    folder = model_copy(tmp_path)
    (folder / damaged).unlink()
    (folder / damaged).write_bytes(b"\x00not a model file" * 10)
    with pytest.raises(ModelNotFoundError) as info:
        SparseEncoder(load_model_spec(folder))
    assert info.value.__cause__ is not None
    assert info.value.hint and "casetrack models import DIR" in info.value.hint


def test_output_name_falls_back_to_the_only_output(tmp_path: Path, splade: SparseEncoder) -> None:
    encoder = SparseEncoder(load_model_spec(model_copy(tmp_path, {"output": "logits"})))
    same_graph = as_dense(encoder.encode_passages([RENT]))
    np.testing.assert_allclose(same_graph, as_dense(splade.encode_passages([RENT])), atol=1e-6)


def test_rejects_non_sparse_spec() -> None:
    with pytest.raises(ValueError):
        SparseEncoder(load_model_spec(MODELS_DIR / "all-MiniLM-L6-v2"))


def test_splade_pool_matches_reference() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(3, 5, 7)).astype(np.float32)
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]], dtype=np.int64)
    logits[0, 3:, :] = 50.0  # padding positions with large logits must not count
    pooled = splade_pool(logits, mask)
    assert pooled.shape == (3, 7) and pooled.dtype == np.float32
    expected = np.log1p(np.maximum(logits[0, :3], 0)).max(axis=0)
    np.testing.assert_allclose(pooled[0], expected, rtol=1e-6)
    np.testing.assert_allclose(pooled[1], np.log1p(np.maximum(logits[1], 0)).max(axis=0), rtol=1e-6)
    assert np.all(pooled[2] == 0)  # a row without tokens weighs nothing
    assert np.all(pooled >= 0)
    hand = splade_pool(np.array([[[-1.0, 2.0], [np.e - 1, -3.0]]]), np.array([[1, 1]]))
    np.testing.assert_allclose(hand, [[1.0, np.log(3.0)]], rtol=1e-6)
    twice = splade_pool(np.array([[[-1.0, 2.0], [np.e - 1, -3.0]]]), np.array([[1, 1]]), double_log=True)
    np.testing.assert_allclose(twice, [[np.log(2.0), np.log1p(np.log(3.0))]], rtol=1e-6)
    with pytest.raises(ValueError):
        splade_pool(logits[0], mask[0])


class TokenLevelSession:
    """Stands in for an un-pooled SPLADE export: real logits [batch, seq, vocab] computed from the
    ids (3 on each token's own id, -1 elsewhere), so encode_passages must pool them itself."""

    def get_inputs(self) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=n, type="tensor(int64)") for n in ("input_ids", "attention_mask")]

    def __init__(self, outputs: Sequence[str] = ("logits",)) -> None:
        self.outputs = outputs

    def get_outputs(self) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=n, shape=["batch", "seq", VOCAB]) for n in self.outputs]

    def run(self, names: list[str], feeds: dict[str, npt.NDArray[np.int64]]) -> list[npt.NDArray[np.float32]]:
        ids = feeds["input_ids"]
        logits = np.full((*ids.shape, VOCAB), -1.0, dtype=np.float32)
        np.put_along_axis(logits, ids[:, :, None], 3.0, axis=2)
        return [logits]


def test_token_level_output_is_pooled(
    tmp_path: Path, tokenizer: Tokenizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sparse_module, "create_session", lambda *a, **k: TokenLevelSession())
    encoder = SparseEncoder(load_model_spec(model_copy(tmp_path, {"output": "logits"})))
    short, long = encoder.encode_passages(["lease rent", "the tenant pays the rent"], batch_size=2)
    check_vectors([short, long])
    assert short.indices.tolist() == sorted(tokenizer.encode("lease rent", add_special_tokens=False).ids)
    np.testing.assert_allclose(short.values, np.log1p(3.0), rtol=1e-6)
    assert long.nnz == len(set(tokenizer.encode("the tenant pays the rent", add_special_tokens=False).ids))


def test_sparse_vector_dot_and_validation() -> None:
    a = SparseVector(np.array([1, 5, 9], dtype=np.int32), np.array([1.0, 2.0, 3.0], dtype=np.float32))
    b = SparseVector(np.array([5, 9, 12], dtype=np.int32), np.array([0.5, 2.0, 4.0], dtype=np.float32))
    empty = SparseVector(np.array([], dtype=np.int32), np.array([], dtype=np.float32))
    assert a.dot(b) == pytest.approx(2.0 * 0.5 + 3.0 * 2.0) and b.dot(a) == pytest.approx(a.dot(b))
    assert a.dot(empty) == 0.0 and empty.nnz == 0 and a.nnz == 3
    with pytest.raises(ValueError):
        SparseVector(np.array([1, 2], dtype=np.int32), np.array([1.0], dtype=np.float32))


def test_missing_output_among_several(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = TokenLevelSession(outputs=("hidden", "pooled"))
    monkeypatch.setattr(sparse_module, "create_session", lambda *a, **k: session)
    with pytest.raises(ModelNotFoundError, match="no output 'logits'") as info:
        SparseEncoder(load_model_spec(model_copy(tmp_path, {"output": "logits"})))
    assert info.value.hint and "casetrack models import DIR" in info.value.hint


def test_arena_option_keeps_calls_to_one_chunk(splade: SparseEncoder) -> None:
    assert not splade._session.get_session_options().enable_cpu_mem_arena
    fast = SparseEncoder(load_model_spec(MODELS_DIR / SPLADE), arena=True)
    assert fast._session.get_session_options().enable_cpu_mem_arena
    texts = [MIXED_LENGTHS[2], MIXED_LENGTHS[5]]  # ~150 and ~550 tokens: never padded together
    alone = as_dense(splade.encode_passages(texts))
    np.testing.assert_allclose(as_dense(fast.encode_passages(texts, batch_size=8)), alone, atol=1e-6)
