"""Storage codecs for per-token document vectors (late interaction, E12), and token pruning.

A 480-token chunk keeps ~400 token vectors; as float32 that is ~620 KB per chunk at 384 dims,
so the vectors are compressed before they go into LanceDB:

* ``f16``: IEEE half floats, ``2 * dim`` bytes per token; relative error <= 2**-11.
* ``i8``: int8 codes with one float16 scale per token (symmetric, max-abs), ``dim + 2`` bytes
  per token; error <= scale / 2 per component.
* ``b1``: one sign bit per dimension (``np.packbits``), ``ceil(dim / 8)`` bytes per token,
  decoded to +-1/sqrt(dim) (a unit vector). MaxSim of a float32 query against these is an
  asymmetric approximation of the float32 score.

`DEFAULT_CODEC` was chosen with ``bench/late_storage.py`` on CUAD contracts (480-token
windows, 50 queries x 50-chunk pools, ColBERT stand-in, 384 dims) against a budget of 20 KB
per chunk: only ``b1`` fits without cutting a chunk to a few dozen tokens (i8 fits 51 tokens
of 384 dims, f16 26). b1 with the default pruning (see `casetrack.embed.late.default_pruning`)
kept Kendall tau 0.91 and top-10 overlap 0.95 against float32 at 19,344 B mean (p95 19,968);
i8 capped to 51 tokens fell to tau 0.67. At the production model's 96 dims b1 costs 12
bytes per token (~5.6 KB per chunk) and i8 98 (~45 KB uncapped).
On a 96-dim random projection of the stand-in's vectors (a proxy only), i8 capped to 204
tokens stayed closer to float32 (tau 0.91) than b1 (0.85): re-run the bench with the
production model (``--model``) before keeping b1 for it.

Blob layout (little-endian, no header: the token count and dim live in their own columns):
f16: ``n x dim`` float16; i8: ``n`` float16 scales, then ``n x dim`` int8 codes;
b1: ``n x ceil(dim / 8)`` bytes, rows packed with numpy's default big bit order.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

CODECS: tuple[str, ...] = ("f16", "i8", "b1")
DEFAULT_CODEC = "b1"
# Bytes of token vectors per stored chunk that the default pruning caps a chunk to.
CHUNK_BYTE_BUDGET = 20_000

_F16 = np.dtype("<f2")
_I8_MAX = 127


def bytes_per_token(dim: int, codec: str) -> int:
    """Stored size of one token vector of `dim` dimensions under `codec`."""
    _check_codec(codec)
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}")
    if codec == "f16":
        return 2 * dim
    if codec == "i8":
        return dim + 2
    return (dim + 7) // 8


def bytes_per_chunk(n_tokens: int, dim: int, codec: str) -> int:
    """Exact length of `encode_tokens` for `n_tokens` vectors of `dim` dimensions."""
    if n_tokens < 0:
        raise ValueError(f"n_tokens must be >= 0, got {n_tokens}")
    return n_tokens * bytes_per_token(dim, codec)


def tokens_within_budget(dim: int, codec: str = DEFAULT_CODEC, budget: int = CHUNK_BYTE_BUDGET) -> int:
    """Most token vectors of `dim` dimensions that fit `budget` bytes under `codec`.

    384 dims: b1 416, i8 51, f16 26. 96 dims: b1 1666, i8 204, f16 104.
    """
    return budget // bytes_per_token(dim, codec)


def encode_tokens(vectors: npt.NDArray[np.float32], codec: str) -> bytes:
    """Serialise token vectors [n_tokens, dim] with `codec` (see the module docstring)."""
    _check_codec(codec)
    if vectors.ndim != 2 or vectors.shape[1] < 1:
        raise ValueError(f"expected token vectors [n_tokens, dim], got shape {vectors.shape}")
    x = np.asarray(vectors, dtype=np.float32)
    if not np.all(np.isfinite(x)):
        raise ValueError("token vectors contain NaN or infinity")
    if codec == "f16":
        return x.astype(_F16).tobytes()
    if codec == "i8":
        scales = _i8_scales(x)
        codes = np.clip(np.rint(x / scales.astype(np.float32)[:, None]), -_I8_MAX, _I8_MAX).astype(np.int8)
        return bytes(scales.tobytes() + codes.tobytes())
    # b1: a zero component gets bit 0 (decodes negative); contextual vectors have no exact zeros.
    return np.packbits(x > 0, axis=1).tobytes()


def decode_tokens(blob: bytes, n_tokens: int, dim: int, codec: str) -> npt.NDArray[np.float32]:
    """Token vectors [n_tokens, dim] (float32) from a blob written by `encode_tokens`.

    Raises ValueError if the blob's length does not match `n_tokens`, `dim` and `codec`.
    """
    expected = bytes_per_chunk(n_tokens, dim, codec)
    if len(blob) != expected:
        raise ValueError(
            f"token blob has {len(blob)} bytes; {n_tokens} x {dim} under {codec!r} needs {expected}"
        )
    if codec == "f16":
        return np.frombuffer(blob, dtype=_F16).reshape(n_tokens, dim).astype(np.float32)
    if codec == "i8":
        scales = np.frombuffer(blob, dtype=_F16, count=n_tokens).astype(np.float32)
        codes = np.frombuffer(blob, dtype=np.int8, offset=2 * n_tokens).reshape(n_tokens, dim)
        return (codes.astype(np.float32) * scales[:, None]).astype(np.float32, copy=False)
    packed = np.frombuffer(blob, dtype=np.uint8).reshape(n_tokens, (dim + 7) // 8)
    # +-1/sqrt(dim) is the unit vector nearest the signs; it keeps MaxSim on the float scale.
    # bit * 2m - m is exact and ~10x faster than np.where (0.1 ms for 400 x 384).
    magnitude = np.float32(1.0 / np.sqrt(dim))
    out = np.unpackbits(packed, axis=1, count=dim).astype(np.float32)
    out *= 2 * magnitude
    out -= magnitude
    return out


# -- which token vectors are stored -------------------------------------------------------


@dataclass(frozen=True)
class TokenPruning:
    """Which document token vectors are kept (the default keeps them all).

    `max_kept` caps the count; over it, later occurrences of a repeated token id are dropped
    first (a chunk's 20th "the" or "," adds little to MaxSim), later positions before earlier
    ones. On CUAD at 384 dims, capping 480-token chunks to 416 this way left the ranking as
    it was (b1 Kendall tau 0.911 vs 0.910 uncapped), and at a 204-token cap it kept tau 0.91
    where keeping the first 204 tokens fell to 0.78.
    """

    drop_special: bool = False
    drop_punctuation: bool = False
    max_kept: int | None = None


def prune_positions(
    ids: Sequence[int], special_mask: Sequence[int], pruning: TokenPruning, punctuation: npt.NDArray[np.int64]
) -> npt.NDArray[np.intp]:
    """Positions of a tokenized document whose vectors `pruning` keeps, in document order.

    `special_mask` is the tokenizer's (1 for [CLS], markers, [SEP]); `punctuation` comes from
    `punctuation_ids`.
    """
    token_ids = np.asarray(ids, dtype=np.int64)
    keep = np.ones(len(token_ids), dtype=bool)
    if pruning.drop_special:
        keep &= np.asarray(special_mask, dtype=bool) == 0
    if pruning.drop_punctuation:
        keep &= ~np.isin(token_ids, punctuation)
    positions = np.flatnonzero(keep)
    cap = pruning.max_kept
    if cap is None or len(positions) <= cap:
        return positions
    # Drop the highest occurrence numbers of a token id first, then the latest positions.
    occurrence = np.zeros(len(positions), dtype=np.int64)
    seen: dict[int, int] = {}
    for j, token in enumerate(token_ids[positions].tolist()):
        occurrence[j] = seen.get(token, 0)
        seen[token] = int(occurrence[j]) + 1
    order = np.lexsort((np.arange(len(positions)), occurrence))
    return np.sort(positions[order[:cap]])


def punctuation_ids(tokenizer: Tokenizer) -> npt.NDArray[np.int64]:
    """Ids of ASCII punctuation symbols: ColBERT's document skiplist, which its models were
    trained with (unicode marks such as section signs and curly quotes are kept)."""
    ids: set[int] = set()
    for symbol in string.punctuation:
        direct = tokenizer.token_to_id(symbol)
        if direct is not None:
            ids.add(direct)
        encoded = tokenizer.encode(symbol, add_special_tokens=False).ids
        if len(encoded) == 1:
            ids.add(encoded[0])
    return np.array(sorted(ids), dtype=np.int64)


def _i8_scales(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float16]:
    """One float16 scale per row, rounded up so that max|x| / scale never exceeds 127."""
    exact = np.abs(x).max(axis=1, initial=0.0) / _I8_MAX
    scales: npt.NDArray[np.float16] = exact.astype(_F16)
    low = scales.astype(np.float32) < exact
    scales[low] = np.nextafter(scales[low], np.asarray(np.inf, dtype=_F16))
    # An all-zero row would divide by zero; any positive scale decodes it back to zeros.
    scales[scales == 0] = np.asarray(1.0, dtype=_F16)
    if not np.all(np.isfinite(scales)):
        raise ValueError("token vectors too large for a float16 scale (|x| > 8.3e6)")
    return scales


def _check_codec(codec: str) -> None:
    if codec not in CODECS:
        raise ValueError(f"unknown token codec {codec!r}; expected one of {CODECS}")
