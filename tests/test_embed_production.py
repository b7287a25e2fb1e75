"""The production catalog (models/catalog.json): loading, checks, slot choice, slot_of."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from casetrack.embed.catalog import file_sha256, load_model_spec
from casetrack.embed.production import (
    WHEEL_DATA_PATH,
    CatalogError,
    catalog_path,
    find_by_hub_repo,
    for_slot,
    load_catalog,
    slot_of,
)
from tests.conftest import MODELS, REPO

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")

PACK_SLOTS = {
    "multilingual-e5-small-enpt": "E1",
    "splade-tiny": "E6",
    "all-MiniLM-L6-v2": "E7",
    "colbert-standin-minilm": "E12",
}


def test_shipped_catalog_loads_and_is_pinned_where_known() -> None:
    catalog = load_catalog()
    assert catalog_path() == REPO / "models" / "catalog.json"
    assert [(m.id, m.slot) for m in catalog.models] == [
        ("bge-small-en-v1.5", "E1"),
        ("multilingual-e5-small", "E1"),
        ("opensearch-neural-sparse-doc-v3-gte", "E6"),
        ("all-MiniLM-L6-v2", "E7"),
        ("answerai-colbert-small-v1", "E12"),
    ]
    for model in catalog.models:
        assert model.source, f"{model.id} says nowhere where its values come from"
        assert (MODELS / str(model.pack_folder)).is_dir(), model.pack_folder
        onnx = model.file("onnx")
        assert onnx is not None and model.file("tokenizer") is not None
        if model.id != "opensearch-neural-sparse-doc-v3-gte":  # no public pin found: null, see its source
            assert model.revision is not None and re.fullmatch(r"[0-9a-f]{40}", model.revision)
            assert onnx.sha256 is not None
    colbert = catalog.by_id("answerai-colbert-small-v1")
    assert colbert is not None and colbert.dim == 96 and colbert.output == "contextual"
    assert colbert.settings == {
        "query_marker_id": 1,
        "document_marker_id": 2,
        "query_max_tokens": 32,
        "query_pad_token": "[MASK]",
        "attend_to_mask_tokens": False,
        "skip_punctuation": True,
    }
    bge = catalog.by_id("bge-small-en-v1.5")
    assert bge is not None and bge.pooling == "cls" and bge.query_prefix.startswith("Represent this sentence")
    e5 = catalog.by_id("intfloat/multilingual-e5-small")  # a hub repo works as an id too
    assert e5 is not None
    assert (e5.query_prefix, e5.passage_prefix, e5.pooling) == ("query: ", "passage: ", "mean")


def test_pinned_minilm_tokenizer_is_the_packs_file() -> None:
    """The catalog's sha256 for MiniLM's tokenizer.json (from public pins) matches the pack's copy."""
    minilm = load_catalog().by_id("all-MiniLM-L6-v2")
    assert minilm is not None
    tokenizer = minilm.file("tokenizer")
    assert tokenizer is not None
    assert tokenizer.size == (MODELS / "all-MiniLM-L6-v2/tokenizer.json").stat().st_size
    assert tokenizer.sha256 == file_sha256(MODELS / "all-MiniLM-L6-v2/tokenizer.json")


def test_wheel_ships_the_catalog_where_the_loader_looks() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    folder = str(Path(WHEEL_DATA_PATH).parent)
    assert f'"{folder}" = ["models/catalog.json"]' in pyproject


@pytest.mark.parametrize(
    ("slot", "language", "expected"),
    [
        ("E1", "en", "bge-small-en-v1.5"),
        ("E1", "pt", "multilingual-e5-small"),
        ("E1", "pt-BR", "multilingual-e5-small"),
        ("E1", "mixed", "multilingual-e5-small"),
        ("E1", "es", "multilingual-e5-small"),
        ("E6", "pt", "opensearch-neural-sparse-doc-v3-gte"),
        ("E7", "en", "all-MiniLM-L6-v2"),
        ("E12", "en", "answerai-colbert-small-v1"),
    ],
)
def test_for_slot(slot: str, language: str, expected: str) -> None:
    assert for_slot(slot, language).id == expected


def test_for_unknown_slot() -> None:
    with pytest.raises(ValueError, match="E99"):
        for_slot("E99")


def test_find_by_hub_repo_knows_download_upstream_and_alias_names() -> None:
    def found(repo: str | None) -> str | None:
        model = find_by_hub_repo(repo)
        return model.id if model else None

    sparse = "opensearch-neural-sparse-doc-v3-gte"
    assert found("BAAI/bge-small-en-v1.5") == "bge-small-en-v1.5"
    assert found("Qdrant/opensearch-neural-sparse-encoding-doc-v3-gte") == sparse
    assert found("opensearch-project/opensearch-neural-sparse-encoding-doc-v3-gte") == sparse
    assert found("opensearch-project/opensearch-neural-sparse-encoding-doc-v3-distill") == sparse
    assert found("SENTENCE-TRANSFORMERS/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert found("someone/else") is None
    assert found(None) is None


@pytest.mark.parametrize(("folder", "slot"), sorted(PACK_SLOTS.items()))
def test_slot_of_every_pack_model(folder: str, slot: str) -> None:
    assert slot_of(load_model_spec(MODELS / folder)) == slot


def _pack_copy(tmp_path: Path, folder: str, **changes: Any) -> Path:
    dst = tmp_path / folder
    dst.mkdir()
    meta = json.loads((MODELS / folder / "model.json").read_text())
    for name in (meta["onnx"], meta["tokenizer"]):
        (dst / name).symlink_to(MODELS / folder / name)
    meta.update(changes)
    (dst / "model.json").write_text(json.dumps(meta))
    return dst


def test_slot_of_prefers_model_json_slot_then_falls_back_to_role(tmp_path: Path) -> None:
    as_e7 = load_model_spec(_pack_copy(tmp_path, "multilingual-e5-small-enpt", slot="E7"))
    assert slot_of(as_e7) == "E7"
    (tmp_path / "x").mkdir()
    wrong_role = load_model_spec(_pack_copy(tmp_path / "x", "multilingual-e5-small-enpt", slot="E6"))
    assert slot_of(wrong_role) == "E1"  # a dense model cannot serve the sparse slot
    (tmp_path / "y").mkdir()
    unknown = load_model_spec(_pack_copy(tmp_path / "y", "colbert-standin-minilm", hub_repo_for_users="a/b"))
    assert slot_of(unknown) == "E12"


def _raw_catalog() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPO / "models" / "catalog.json").read_text())
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"revision": "main"}, "40-hex"),
        ({"slot": "E12"}, "role"),
        ({"slot": "E9"}, "slot"),
        ({"files": [{"kind": "onnx", "path": "../m.onnx"}, {"kind": "tokenizer", "path": "t"}]}, "inside"),
        (
            {
                "files": [
                    {"kind": "onnx", "path": "m.onnx", "sha256": "ABC"},
                    {"kind": "tokenizer", "path": "t"},
                ]
            },
            "sha256",
        ),
        ({"files": [{"kind": "onnx", "path": "m.onnx"}]}, "exactly one"),
        ({"dim": None}, "dim"),
        ({"normalize": "yes"}, "normalize"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_invalid_catalog_entries_are_refused(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    data = _raw_catalog()
    data["models"][0].update(change)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CatalogError, match=message) as caught:
        load_catalog(path)
    assert caught.value.hint and "reinstall" in caught.value.hint.lower()


def test_duplicate_ids_and_unreadable_catalogs_are_refused(tmp_path: Path) -> None:
    data = _raw_catalog()
    data["models"].append(data["models"][0])
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CatalogError, match="unique"):
        load_catalog(path)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(CatalogError, match="Could not read"):
        load_catalog(broken)


def test_model_json_from_a_catalog_entry_matches_the_pack_format() -> None:
    colbert = load_catalog().by_id("answerai-colbert-small-v1")
    assert colbert is not None
    files = {"vespa_colbert.onnx": {"sha256": "a" * 64, "size": 1, "sha256_source": "catalog"}}
    meta = colbert.model_json(files, ["input_ids", "attention_mask"], "contextual", colbert.revision)
    pack = json.loads((MODELS / "colbert-standin-minilm" / "model.json").read_text())
    assert {"name", "role", "hub_repo_for_users", "onnx", "tokenizer", "inputs", "output"} <= set(meta)
    assert set(pack) - set(meta) <= {"note"}
    assert meta["dim_per_token"] == 96 and meta["slot"] == "E12" and meta["query_marker_id"] == 1
    assert meta["files"] == files and meta["revision"] == colbert.revision
