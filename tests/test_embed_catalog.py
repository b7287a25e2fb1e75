"""Model folders: model.json parsing, discovery, model choice and fingerprints."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from pathlib import Path
from typing import Any

import pytest

from casetrack.embed.catalog import (
    MODELS_HINT,
    ModelSpec,
    discover_models,
    file_sha256,
    find_model,
    load_model_spec,
)
from casetrack.errors import ModelNotFoundError
from tests.conftest import MODELS

MODELS_DIR = MODELS
E5 = "multilingual-e5-small-enpt"
MINILM = "all-MiniLM-L6-v2"
SPLADE = "splade-tiny"
COLBERT = "colbert-standin-minilm"

pytestmark = pytest.mark.skipif(not MODELS_DIR.is_dir(), reason=f"model pack not found at {MODELS_DIR}")


def link_model(model: str, root: Path, folder: str | None = None, **overrides: Any) -> Path:
    """A model folder under `root` that symlinks the pack's files and patches its model.json."""
    src = MODELS_DIR / model
    dst = root / (folder or model)
    dst.mkdir(parents=True)
    meta = json.loads((src / "model.json").read_text())
    for file in (meta["onnx"], meta["tokenizer"]):
        (dst / file).symlink_to(src / file)
    for key, value in overrides.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value
    (dst / "model.json").write_text(json.dumps(meta))
    return dst


@pytest.mark.parametrize(
    ("name", "role", "dim", "max_tokens", "languages"),
    [
        (E5, "dense", 384, 512, ("en", "pt")),
        (MINILM, "dense", 384, 256, ("en",)),
        (SPLADE, "sparse", None, 512, ("en",)),
        (COLBERT, "late_interaction", 384, 512, ("en",)),
    ],
)
def test_load_every_pack_model(
    name: str, role: str, dim: int | None, max_tokens: int, languages: tuple[str, ...]
) -> None:
    spec = load_model_spec(MODELS_DIR / name)
    assert spec.name == name
    assert spec.role == role
    assert spec.dim == dim
    assert spec.max_tokens == max_tokens
    assert spec.languages == languages
    assert spec.path == (MODELS_DIR / name).resolve()
    assert spec.onnx_path.is_file() and spec.tokenizer_path.is_file()
    assert spec.hub_repo_for_users
    assert spec.license
    assert spec.quantization == "int8-dynamic-per-channel"


def test_spec_details() -> None:
    e5 = load_model_spec(MODELS_DIR / E5)
    assert (e5.query_prefix, e5.passage_prefix) == ("query: ", "passage: ")
    assert e5.output == "sentence_embedding" and e5.pooling == "mean" and e5.normalize
    assert e5.inputs == ("input_ids", "attention_mask", "token_type_ids")
    assert e5.extra == {"also_output": "last_hidden_state"}
    minilm = load_model_spec(MODELS_DIR / MINILM)
    assert (minilm.query_prefix, minilm.passage_prefix) == ("", "")
    # Role-specific settings stay reachable for the later sparse and late-interaction encoders.
    assert load_model_spec(MODELS_DIR / SPLADE).extra["vocab_size"] == 30522
    assert load_model_spec(MODELS_DIR / COLBERT).inputs == ("input_ids", "attention_mask")


def test_spec_is_hashable_and_comparable() -> None:
    a = load_model_spec(MODELS_DIR / E5)
    b = load_model_spec(MODELS_DIR / E5)
    assert a == b
    assert len({a, b}) == 1


def test_discover_models_lists_the_pack_sorted() -> None:
    names = [s.name for s in discover_models(MODELS_DIR)]
    assert names == sorted([E5, MINILM, SPLADE, COLBERT])


def test_discover_skips_broken_folders_and_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    link_model(E5, tmp_path)
    link_model(MINILM, tmp_path, folder="bad-role", role="reranker")
    bad_json = tmp_path / "bad-json"
    bad_json.mkdir()
    (bad_json / "model.json").write_text("{not json")
    (tmp_path / "no-model-json").mkdir()  # not a model folder: silently ignored
    (tmp_path / "stray.txt").write_text("x")
    with caplog.at_level(logging.WARNING, logger="casetrack.embed.catalog"):
        specs = discover_models(tmp_path)
    assert [s.name for s in specs] == [E5]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "bad-role" in logged and "bad-json" in logged
    assert "no-model-json" not in logged


def test_discover_missing_dir_is_empty(tmp_path: Path) -> None:
    assert discover_models(tmp_path / "nope") == []


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"role": "reranker"}, "role 'reranker'"),
        ({"onnx": "missing.onnx"}, "missing.onnx"),
        ({"tokenizer": "missing.json"}, "missing.json"),
        ({"name": None}, "'name'"),
        ({"max_tokens": "512"}, "'max_tokens'"),
        ({"dim": None}, "dim"),
        ({"languages": "en"}, "'languages'"),
        ({"normalize": "yes"}, "'normalize'"),
    ],
)
def test_load_rejects_invalid_model_json(tmp_path: Path, overrides: dict[str, Any], message: str) -> None:
    folder = link_model(E5, tmp_path, **overrides)
    with pytest.raises(ModelNotFoundError) as info:
        load_model_spec(folder)
    assert message in info.value.message
    assert info.value.hint and "re-import" in info.value.hint


def test_load_without_model_json(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError) as info:
        load_model_spec(tmp_path)
    assert str(tmp_path.resolve()) in info.value.message
    assert info.value.hint == MODELS_HINT


def test_find_model_picks_e5_for_both_languages() -> None:
    assert find_model(MODELS_DIR, "dense", "pt").name == E5
    assert find_model(MODELS_DIR, "dense", "pt-BR").name == E5
    # MiniLM also covers English but would truncate 500-token chunks at 256.
    assert find_model(MODELS_DIR, "dense", "en").name == E5
    assert find_model(MODELS_DIR, "dense").name == E5


def test_find_model_other_roles_and_by_name() -> None:
    assert find_model(MODELS_DIR, "sparse").name == SPLADE
    assert find_model(MODELS_DIR, "late_interaction").name == COLBERT
    assert find_model(MODELS_DIR, "dense", name=MINILM).name == MINILM


def test_find_model_unknown_name(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError) as info:
        find_model(MODELS_DIR, "dense", name="bge-small-en")
    assert "bge-small-en" in info.value.message and MINILM in info.value.message


def test_find_model_portuguese_needs_a_portuguese_model(tmp_path: Path) -> None:
    link_model(MINILM, tmp_path)
    assert find_model(tmp_path, "dense", "en").name == MINILM
    with pytest.raises(ModelNotFoundError) as info:
        find_model(tmp_path, "dense", "pt")
    assert "'pt'" in info.value.message and str(tmp_path) in info.value.message
    assert MINILM in info.value.message  # says what was there instead


def test_find_model_empty_dir_says_where_and_how(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError) as info:
        find_model(tmp_path, "dense", "en")
    err = info.value
    assert str(tmp_path) in err.message
    assert err.hint == MODELS_HINT
    assert "CASETRACK_MODELS_DIR" in str(err) and "casetrack models import DIR" in str(err)


def test_find_model_missing_dir(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        find_model(tmp_path / "absent", "dense")


def test_find_model_unknown_role() -> None:
    with pytest.raises(ValueError):
        find_model(MODELS_DIR, "reranker")


def test_fingerprint_is_name_and_onnx_hash() -> None:
    spec = load_model_spec(MODELS_DIR / E5)
    fingerprint = spec.fingerprint
    assert re.fullmatch(rf"{re.escape(E5)}@[0-9a-f]{{12}}", fingerprint)
    expected = hashlib.sha256(spec.onnx_path.read_bytes()).hexdigest()[:12]
    assert fingerprint.endswith(expected)
    assert spec.fingerprint == fingerprint
    assert load_model_spec(MODELS_DIR / MINILM).fingerprint != fingerprint


def test_file_hash_cache_notices_a_replaced_file(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(b"a" * 100)
    first = file_sha256(path)
    assert first == hashlib.sha256(b"a" * 100).hexdigest()
    path.write_bytes(b"b" * 100)  # same size: only the mtime tells the cache
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert file_sha256(path) == hashlib.sha256(b"b" * 100).hexdigest()


def test_spec_validation_on_direct_construction(tmp_path: Path) -> None:
    base = load_model_spec(MODELS_DIR / E5)
    with pytest.raises(ModelNotFoundError):
        ModelSpec(**{**_fields(base), "path": tmp_path})  # files not there
    with pytest.raises(ModelNotFoundError):
        ModelSpec(**{**_fields(base), "max_tokens": 0})


def _fields(spec: ModelSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.__dataclass_fields__}
