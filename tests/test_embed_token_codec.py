"""Token-vector storage codecs (f16, i8, b1) and document token pruning."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from casetrack.embed.token_codec import (
    CHUNK_BYTE_BUDGET,
    CODECS,
    DEFAULT_CODEC,
    TokenPruning,
    bytes_per_chunk,
    decode_tokens,
    encode_tokens,
    prune_positions,
    punctuation_ids,
    tokens_within_budget,
)
from casetrack.embed.tokens import load_tokenizer
from tests.conftest import MODELS

MODELS_DIR = MODELS
COLBERT = MODELS_DIR / "colbert-standin-minilm"


def unit_rows(n: int, dim: int, seed: int = 0) -> npt.NDArray[np.float32]:
    x = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    rows: npt.NDArray[np.float32] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return rows


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize(("n", "dim"), [(0, 384), (1, 96), (37, 384), (5, 20)])
def test_bytes_per_chunk_matches_blob(codec: str, n: int, dim: int) -> None:
    x = unit_rows(n, dim)
    blob = encode_tokens(x, codec)
    assert len(blob) == bytes_per_chunk(n, dim, codec)
    decoded = decode_tokens(blob, n, dim, codec)
    assert decoded.shape == (n, dim) and decoded.dtype == np.float32


def test_sizes_per_token() -> None:
    assert [bytes_per_chunk(1, 384, c) for c in ("f16", "i8", "b1")] == [768, 386, 48]
    assert [bytes_per_chunk(1, 96, c) for c in ("f16", "i8", "b1")] == [192, 98, 12]
    assert bytes_per_chunk(1, 20, "b1") == 3


@pytest.mark.parametrize("dim", [384, 96])
@pytest.mark.parametrize("codec", CODECS)
def test_tokens_within_budget_fills_the_budget(dim: int, codec: str) -> None:
    cap = tokens_within_budget(dim, codec)
    assert bytes_per_chunk(cap, dim, codec) <= CHUNK_BYTE_BUDGET < bytes_per_chunk(cap + 1, dim, codec)


def test_default_codec_fits_a_pruned_chunk() -> None:
    assert DEFAULT_CODEC in CODECS
    # The default cap keeps 416 tokens of 384 dims (a 480-token chunk keeps ~400 anyway).
    assert tokens_within_budget(384) == 416 and tokens_within_budget(96) == 1666


def test_f16_round_trip_error() -> None:
    x = unit_rows(64, 384)
    decoded = decode_tokens(encode_tokens(x, "f16"), 64, 384, "f16")
    # Half precision keeps 11 significant bits; 6e-8 covers values in the subnormal range.
    assert np.all(np.abs(decoded - x) <= np.abs(x) * 2.0**-11 + 6e-8)
    assert np.abs(decoded - x).max() < 3e-4


def test_i8_round_trip_error_bound() -> None:
    x = unit_rows(64, 384, seed=1)
    decoded = decode_tokens(encode_tokens(x, "i8"), 64, 384, "i8")
    # Half a quantization step, with the step rounded up to float16 (<= 2**-10 relative).
    step = np.abs(x).max(axis=1, keepdims=True) / 127 * (1 + 2.0**-10)
    assert np.all(np.abs(decoded - x) <= step / 2 + 1e-7)
    cosines = (decoded * x).sum(axis=1) / np.linalg.norm(decoded, axis=1)
    assert cosines.min() > 0.999


def test_i8_zero_and_tiny_rows() -> None:
    x = np.zeros((2, 8), dtype=np.float32)
    x[1, 3] = 1e-9
    decoded = decode_tokens(encode_tokens(x, "i8"), 2, 8, "i8")
    np.testing.assert_allclose(decoded, x, atol=1e-9)


@pytest.mark.parametrize("dim", [384, 96, 20])
def test_b1_preserves_signs_as_unit_vectors(dim: int) -> None:
    x = unit_rows(32, dim, seed=2)
    decoded = decode_tokens(encode_tokens(x, "b1"), 32, dim, "b1")
    assert np.array_equal(np.sign(decoded), np.sign(x))
    np.testing.assert_allclose(np.abs(decoded), 1 / np.sqrt(dim), rtol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(decoded, axis=1), 1.0, atol=1e-5)


def test_blob_layouts_are_fixed() -> None:
    # Stored blobs outlive this code: little-endian halves, scales before codes, MSB-first bits.
    assert encode_tokens(np.array([[1.0, -2.0]], np.float32), "f16") == b"\x00\x3c\x00\xc0"
    blob = encode_tokens(np.array([[1.0, -0.25], [0.0, 0.25]], np.float32), "i8")
    assert len(blob) == 2 * 2 + 4 and blob[4:] == bytes([127, 256 - 32, 0, 127])
    signs = np.array([[1, -1, 1, -1, 1, -1, 1, -1, 1]], np.float32)
    assert encode_tokens(signs, "b1") == b"\xaa\x80"


def test_empty_chunk() -> None:
    for codec in CODECS:
        assert encode_tokens(np.empty((0, 96), np.float32), codec) == b""
        assert decode_tokens(b"", 0, 96, codec).shape == (0, 96)


def test_invalid_input() -> None:
    x = unit_rows(3, 16)
    with pytest.raises(ValueError, match="unknown token codec"):
        encode_tokens(x, "pq")
    with pytest.raises(ValueError, match="shape"):
        encode_tokens(x[0], "f16")
    with pytest.raises(ValueError, match="NaN"):
        encode_tokens(np.full((1, 4), np.nan, np.float32), "b1")
    with pytest.raises(ValueError, match="needs"):
        decode_tokens(encode_tokens(x, "i8"), 4, 16, "i8")
    with pytest.raises(ValueError):
        bytes_per_chunk(-1, 16, "b1")


def test_prune_positions() -> None:
    ids = [101, 5, 6, 1010, 5, 5, 7, 1012, 102]
    special = [1, 0, 0, 0, 0, 0, 0, 0, 1]
    punct = np.array([1010, 1012], dtype=np.int64)
    assert prune_positions(ids, special, TokenPruning(), punct).tolist() == list(range(9))
    assert prune_positions(ids, special, TokenPruning(drop_special=True), punct).tolist() == list(range(1, 8))
    no_punct = TokenPruning(drop_punctuation=True)
    assert prune_positions(ids, special, no_punct, punct).tolist() == [0, 1, 2, 4, 5, 6, 8]
    # Over the cap the repeats of token 5 go first (the third, then the second), order is kept.
    capped = TokenPruning(drop_special=True, drop_punctuation=True, max_kept=3)
    assert prune_positions(ids, special, capped, punct).tolist() == [1, 2, 6]
    capped = TokenPruning(drop_special=True, drop_punctuation=True, max_kept=4)
    assert prune_positions(ids, special, capped, punct).tolist() == [1, 2, 4, 6]
    assert prune_positions([], [], capped, punct).tolist() == []


@pytest.mark.skipif(not COLBERT.is_dir(), reason=f"model pack not found at {COLBERT}")
def test_punctuation_ids_are_colberts_skiplist() -> None:
    from casetrack.embed.catalog import load_model_spec

    tokenizer = load_tokenizer(load_model_spec(COLBERT))
    ids = set(punctuation_ids(tokenizer).tolist())
    assert {tokenizer.token_to_id(s) for s in ",.;:()\"'!?-"} <= ids
    assert len(ids) == 32  # string.punctuation, one vocabulary entry each in BERT's vocab
    assert tokenizer.token_to_id("§") not in ids and tokenizer.token_to_id("the") not in ids
