"""DenseEncoder on the real INT8 models of the pack, and onnxruntime session creation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import pytest

from casetrack.embed.catalog import load_model_spec
from casetrack.embed.dense import DenseEncoder
from casetrack.embed.session import create_session
from casetrack.embed.tokens import length_batches
from casetrack.errors import ModelNotFoundError
from tests.conftest import MODELS

MODELS_DIR = MODELS
E5 = "multilingual-e5-small-enpt"
MINILM = "all-MiniLM-L6-v2"

pytestmark = pytest.mark.skipif(not MODELS_DIR.is_dir(), reason=f"model pack not found at {MODELS_DIR}")

MIXED_LENGTHS = [
    "Appeal dismissed.",
    "The defendant shall pay the costs of the proceedings, to be assessed if not agreed.",
    "O réu tem quinze dias para apresentar contestação.",
    " ".join(["The court considered the evidence of the expert witness at length."] * 12),
    "Lease.",
    " ".join(["A sentença transitou em julgado e o exequente requereu o cumprimento."] * 5),
    "",
]


@pytest.fixture(scope="module")
def e5() -> DenseEncoder:
    return DenseEncoder(load_model_spec(MODELS_DIR / E5))


@pytest.fixture(scope="module")
def minilm() -> DenseEncoder:
    return DenseEncoder(load_model_spec(MODELS_DIR / MINILM))


@pytest.fixture(params=[E5, MINILM])
def encoder(request: pytest.FixtureRequest, e5: DenseEncoder, minilm: DenseEncoder) -> DenseEncoder:
    return e5 if request.param == E5 else minilm


def cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_properties(e5: DenseEncoder, minilm: DenseEncoder) -> None:
    assert (e5.dim, e5.max_tokens) == (384, 512)
    assert (minilm.dim, minilm.max_tokens) == (384, 256)
    assert e5.fingerprint == e5.spec.fingerprint and e5.fingerprint.startswith(E5 + "@")
    assert e5.spec.name == E5
    # 512 minus <s>, </s> and the three tokens of "passage: ".
    assert e5.passage_token_budget == 512 - 2 - e5.count_tokens(["passage: "])[0]
    assert minilm.passage_token_budget == 256 - 2


def test_shape_dtype_and_unit_norm(encoder: DenseEncoder) -> None:
    passages = encoder.encode_passages(MIXED_LENGTHS)
    queries = encoder.encode_queries(["prazo para contestação", "notice of appeal deadline"])
    assert passages.shape == (len(MIXED_LENGTHS), 384) and passages.dtype == np.float32
    assert queries.shape == (2, 384) and queries.dtype == np.float32
    assert np.all(np.isfinite(passages))
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)


def test_empty_input(encoder: DenseEncoder) -> None:
    assert encoder.encode_passages([]).shape == (0, 384)
    assert encoder.encode_queries([]).shape == (0, 384)
    assert encoder.count_tokens([]) == []


def test_single_string_is_rejected(encoder: DenseEncoder) -> None:
    with pytest.raises(TypeError):
        encoder.encode_passages("a single text")
    with pytest.raises(TypeError):
        encoder.count_tokens("a single text")


def test_query_prefix_changes_the_vector(e5: DenseEncoder, minilm: DenseEncoder) -> None:
    text = "prazo para contestação"
    assert cosine(e5.encode_queries([text])[0], e5.encode_passages([text])[0]) < 0.999
    # MiniLM has no prefixes, so both sides are the same vector.
    np.testing.assert_allclose(minilm.encode_queries([text])[0], minilm.encode_passages([text])[0], atol=1e-6)


def test_default_batching_equals_one_by_one(encoder: DenseEncoder) -> None:
    alone = np.stack([encoder.encode_passages([t])[0] for t in MIXED_LENGTHS])
    np.testing.assert_allclose(encoder.encode_passages(MIXED_LENGTHS), alone, atol=1e-4)
    queries = ["prazo", "notice of appeal deadline for the respondent"]
    np.testing.assert_allclose(
        encoder.encode_queries(queries),
        np.stack([encoder.encode_queries([q])[0] for q in queries]),
        atol=1e-4,
    )


def test_batch_size_one_equals_one_by_one(encoder: DenseEncoder) -> None:
    alone = np.stack([encoder.encode_passages([t])[0] for t in MIXED_LENGTHS])
    np.testing.assert_allclose(encoder.encode_passages(MIXED_LENGTHS, batch_size=1), alone, atol=1e-4)


# Lowest cosine measured between a text's vector in a batch and alone (the empty and
# very short texts move most: padding dominates their activation ranges).
BATCH_COSINE_FLOOR = {E5: 0.985, MINILM: 0.95}


def test_batched_is_close_to_one_by_one(encoder: DenseEncoder) -> None:
    """Not within 1e-4: the INT8 graphs quantize activations with one scale per input tensor,
    so padding and batch neighbours move each vector (measured: e5 cosine >= 0.989, max
    component difference 0.023; MiniLM cosine >= 0.963). Different texts of this list sit at
    <= 0.85 (e5) and <= 0.43 (MiniLM), so a row-order mistake would still fail here."""
    floor = BATCH_COSINE_FLOOR[encoder.spec.name]
    alone = np.stack([encoder.encode_passages([t])[0] for t in MIXED_LENGTHS])
    for batch_size in (2, 3, 16):
        batched = encoder.encode_passages(MIXED_LENGTHS, batch_size=batch_size)
        for i in range(len(MIXED_LENGTHS)):
            assert cosine(batched[i], alone[i]) > floor, (batch_size, i)


def test_bucketing_restores_input_order(encoder: DenseEncoder) -> None:
    # Token lengths are all distinct, so any input order forms the same length-sorted batches
    # and must give the same vector for each text.
    texts = MIXED_LENGTHS
    assert len(set(encoder.count_tokens(texts))) == len(texts)
    forward = encoder.encode_passages(texts, batch_size=3)
    perm = [3, 0, 6, 2, 5, 1, 4]
    permuted = encoder.encode_passages([texts[i] for i in perm], batch_size=3)
    np.testing.assert_allclose(permuted, forward[perm], atol=1e-5)


def test_relevant_english_passage_ranks_first(encoder: DenseEncoder) -> None:
    query = encoder.encode_queries(["deadline to file a notice of appeal"])[0]
    passages = encoder.encode_passages(
        [
            "The notice of appeal must be filed within thirty days after entry of the judgment.",
            "The tenant shall keep the premises in good repair and pay the rent monthly.",
        ]
    )
    scores = passages @ query
    assert scores[0] > scores[1]


def test_relevant_portuguese_passage_ranks_first(e5: DenseEncoder) -> None:
    query = e5.encode_queries(["prazo para contestação"])[0]
    passages = e5.encode_passages(
        [
            "O réu tem quinze dias para apresentar contestação, contados da citação.",
            "O contrato de locação foi assinado pelas partes em São Paulo, com aluguel mensal.",
            "A receita leva dois ovos, farinha e açúcar.",
        ]
    )
    scores = passages @ query
    assert scores[0] > scores[1] and scores[0] > scores[2]


def test_count_tokens(e5: DenseEncoder) -> None:
    counts = e5.count_tokens(["", "O réu", "O réu tem quinze dias para apresentar contestação."])
    assert counts[0] == 0
    assert 0 < counts[1] < counts[2] < 20
    # No prefix and no special tokens: counting a prefixed text costs exactly the prefix more.
    prefix = e5.count_tokens(["passage:"])[0]
    assert e5.count_tokens(["passage: O réu"])[0] == prefix + counts[1]


def test_count_tokens_is_not_truncated(encoder: DenseEncoder) -> None:
    long_text = " ".join(["contestação"] * 1000)
    assert encoder.count_tokens([long_text])[0] >= 1000 > encoder.max_tokens


def test_long_input_is_truncated_at_max_tokens(encoder: DenseEncoder) -> None:
    words = [f"word{i % 97}" for i in range(5000)]
    text = " ".join(words)
    assert encoder.count_tokens([text])[0] > encoder.max_tokens
    vec = encoder.encode_passages([text])
    assert vec.shape == (1, 384) and np.all(np.isfinite(vec))
    # Whatever follows the first max_tokens tokens is cut, so a different tail changes nothing.
    other_tail = encoder.encode_passages([" ".join(words[:2500] + ["appeal"] * 2500)])
    np.testing.assert_allclose(vec, other_tail, atol=1e-6)


def test_truncation_uses_model_json_not_tokenizer_json(minilm: DenseEncoder) -> None:
    # MiniLM's tokenizer.json ships truncation (and padding) at 128; model.json says 256.
    head = " ".join(f"w{i}" for i in range(80))  # over 128 tokens, under 256
    assert 128 < minilm.count_tokens([head])[0] < 240
    a, b = (
        minilm.encode_passages([head + " the appeal was dismissed"]),
        minilm.encode_passages([head + " the tenant paid the rent"]),
    )
    assert cosine(a[0], b[0]) < 0.9999


def test_falls_back_to_pooling_last_hidden_state(tmp_path: Path, e5: DenseEncoder) -> None:
    src = MODELS_DIR / E5
    folder = tmp_path / E5
    folder.mkdir()
    meta = json.loads((src / "model.json").read_text())
    meta["output"] = "pooled_output"  # not in the graph
    (folder / "model.json").write_text(json.dumps(meta))
    for file in ("model.onnx", "tokenizer.json"):
        (folder / file).symlink_to(src / file)
    pooled = DenseEncoder(load_model_spec(folder))
    texts = ["O réu tem quinze dias.", "Appeal dismissed with costs."]
    for text in texts:
        np.testing.assert_allclose(pooled.encode_passages([text]), e5.encode_passages([text]), atol=1e-5)


def test_rejects_non_dense_spec() -> None:
    with pytest.raises(ValueError):
        DenseEncoder(load_model_spec(MODELS_DIR / "splade-tiny"))


def test_batches_respect_rows_and_token_budget() -> None:
    lengths = np.array([10, 10, 10, 10, 500, 500, 500, 900], dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    sizes = [len(b) for b in length_batches(order, lengths, batch_size=3, max_batch_tokens=1024)]
    assert sizes == [3, 2, 2, 1]
    flat = np.concatenate(list(length_batches(order, lengths, batch_size=16, max_batch_tokens=1)))
    assert flat.tolist() == order.tolist()


def test_session_options() -> None:
    session = create_session(MODELS_DIR / MINILM / "model.onnx", threads=1, arena=False)
    options = session.get_session_options()
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1
    assert not options.enable_cpu_mem_arena
    assert session.get_providers() == ["CPUExecutionProvider"]


def test_damaged_model_file(tmp_path: Path) -> None:
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"\x00not an onnx graph" * 10)
    with pytest.raises(ModelNotFoundError) as info:
        create_session(bad)
    assert ort.__version__ in info.value.message and str(bad) in info.value.message
    assert info.value.hint and "re-import" in info.value.hint
    assert info.value.__cause__ is not None


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="missing"):
        create_session(tmp_path / "model.onnx")
