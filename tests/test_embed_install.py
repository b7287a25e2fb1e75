"""Offline install: importing the pack and hub-style files, verify, and the slot listing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from casetrack.embed.catalog import discover_models, file_sha256, load_model_spec
from casetrack.embed.importing import import_models
from casetrack.embed.install import TMP_DIR, InstallError, list_models, verify
from casetrack.embed.production import load_catalog, slot_of
from casetrack.embed.tiers import Tier
from tests.conftest import MODELS

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")

MINILM = MODELS / "all-MiniLM-L6-v2"
SPLADE = MODELS / "splade-tiny"
FAKE_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def leftovers(models_dir: Path) -> list[str]:
    tmp = models_dir / TMP_DIR
    return sorted(p.name for p in tmp.iterdir()) if tmp.is_dir() else []


def hub_style(
    root: Path, model: Path, onnx: str = "onnx/model.onnx", extra: dict[str, bytes] | None = None
) -> Path:
    """A folder laid out like a hub snapshot, holding a pack model's files."""
    (root / onnx).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(model / "model.onnx", root / onnx)
    shutil.copyfile(model / "tokenizer.json", root / "tokenizer.json")
    for name, data in (extra or {}).items():
        (root / name).write_bytes(data)
    return root


def test_import_the_offline_pack(tmp_path: Path) -> None:
    models_dir = tmp_path / "models"
    results = import_models(MODELS, models_dir)
    assert sorted(r.name for r in results) == sorted(p.name for p in MODELS.iterdir() if p.is_dir())
    assert {r.slot for r in results} == {"E1", "E6", "E7", "E12"}
    specs = discover_models(models_dir)
    assert len(specs) == 4 and leftovers(models_dir) == []
    for spec in specs:
        files = spec.extra["files"]
        for name in (spec.onnx_file, spec.tokenizer_file):
            assert files[name]["sha256"] == file_sha256(MODELS / spec.name / name)
            assert files[name]["size"] == (MODELS / spec.name / name).stat().st_size
        assert not spec.onnx_path.is_symlink()
    assert all(r.ok for r in verify(models_dir))


def test_import_one_folder_copies_symlinked_files_and_replaces_an_older_copy(tmp_path: Path) -> None:
    linked = tmp_path / "src" / "all-MiniLM-L6-v2"
    linked.mkdir(parents=True)
    for name in ("model.json", "model.onnx", "tokenizer.json"):
        (linked / name).symlink_to(MINILM / name)
    models_dir = tmp_path / "models"
    first = import_models(linked, models_dir)
    assert [(r.name, r.slot, r.replaced) for r in first] == [("all-MiniLM-L6-v2", "E7", False)]
    installed = models_dir / "all-MiniLM-L6-v2" / "model.onnx"
    assert installed.is_file() and not installed.is_symlink()
    second = import_models(linked, models_dir)
    assert second[0].replaced and len(discover_models(models_dir)) == 1 and leftovers(models_dir) == []


def test_a_model_that_does_not_load_is_refused_and_nothing_is_installed(tmp_path: Path) -> None:
    src = tmp_path / "pack"
    shutil.copytree(MINILM, src / "all-MiniLM-L6-v2")
    shutil.copytree(SPLADE, src / "splade-tiny")
    (src / "splade-tiny" / "model.onnx").chmod(0o644)
    (src / "splade-tiny" / "model.onnx").write_bytes(b"not an onnx graph")
    models_dir = tmp_path / "models"
    with pytest.raises(InstallError, match="splade-tiny") as caught:
        import_models(src, models_dir)
    assert caught.value.hint and "Nothing was installed" in caught.value.hint
    # All or nothing: the good MiniLM folder was not installed either.
    assert discover_models(models_dir) == [] and leftovers(models_dir) == []


def test_a_broken_tokenizer_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "splade-tiny"
    shutil.copytree(SPLADE, src)
    (src / "tokenizer.json").chmod(0o644)
    (src / "tokenizer.json").write_text("{}")
    with pytest.raises(InstallError, match="tokenizer"):
        import_models(src, tmp_path / "models")
    assert not (tmp_path / "models" / "splade-tiny").exists()


def test_hub_style_files_named_with_as(tmp_path: Path) -> None:
    src = hub_style(tmp_path / "snapshot", MINILM)
    models_dir = tmp_path / "models"
    (result,) = import_models(src, models_dir, model_id="all-MiniLM-L6-v2")
    # The pack's ONNX is an INT8 rebuild, not the pinned fp32 file: installed, with a warning.
    assert result.slot == "E7" and result.catalog_id == "all-MiniLM-L6-v2" and result.revision is None
    assert len(result.warnings) == 1 and "model.onnx" in result.warnings[0]
    spec = load_model_spec(models_dir / "all-MiniLM-L6-v2")
    assert (spec.onnx_file, spec.output, spec.pooling, spec.max_tokens) == (
        "onnx/model.onnx",
        "last_hidden_state",
        "mean",
        256,
    )
    assert "token_type_ids" in spec.inputs and slot_of(spec) == "E7"
    files = spec.extra["files"]
    assert files["tokenizer.json"]["sha256_source"] == "catalog"  # byte-identical to the pinned file
    assert files["onnx/model.onnx"]["sha256_source"] == "computed"
    assert all(r.ok for r in verify(models_dir))


def test_hub_style_files_recognised_by_sha256(tmp_path: Path) -> None:
    """A catalog that knows the ONNX sha256 needs no --as, and records the pinned revision."""
    data: dict[str, Any] = json.loads(Path(load_catalog().path or "").read_text())
    sparse = next(m for m in data["models"] if m["slot"] == "E6")
    sparse["revision"] = FAKE_COMMIT
    sparse["files"][0]["sha256"] = file_sha256(SPLADE / "model.onnx")
    sparse["files"][1]["sha256"] = file_sha256(SPLADE / "tokenizer.json")
    catalog_file = tmp_path / "catalog.json"
    catalog_file.write_text(json.dumps(data))
    src = hub_style(tmp_path / "flat", SPLADE, onnx="model.onnx", extra={"idf.json": b'{"court": 3.2}'})
    (result,) = import_models(src, tmp_path / "models", catalog=load_catalog(catalog_file))
    assert (result.catalog_id, result.revision, result.warnings) == (sparse["id"], FAKE_COMMIT, ())
    spec = load_model_spec(tmp_path / "models" / sparse["folder"])
    assert spec.role == "sparse" and spec.output == "sparse_embedding"  # read from the graph
    assert spec.extra["idf"] == "idf.json" and (spec.path / "idf.json").is_file()


def test_unrecognised_hub_files_ask_for_as(tmp_path: Path) -> None:
    src = hub_style(tmp_path / "snap", SPLADE, onnx="model.onnx")
    with pytest.raises(InstallError, match="Could not tell which model") as caught:
        import_models(src, tmp_path / "models")
    assert caught.value.hint and "--as" in caught.value.hint and "all-MiniLM-L6-v2" in caught.value.hint
    with pytest.raises(InstallError, match="not a CaseTrack model"):
        import_models(src, tmp_path / "models", model_id="bert-base")
    with pytest.raises(InstallError, match="idf.json"):  # E6 needs its IDF table
        import_models(src, tmp_path / "models", model_id="opensearch-neural-sparse-doc-v3-gte")
    assert discover_models(tmp_path / "models") == [] and leftovers(tmp_path / "models") == []


def test_import_refuses_non_model_folders(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InstallError, match="No model in"):
        import_models(tmp_path / "empty", tmp_path / "models")
    with pytest.raises(InstallError, match="not a folder"):
        import_models(tmp_path / "nowhere", tmp_path / "models")
    with pytest.raises(InstallError, match="--as only names hub files"):
        import_models(MODELS, tmp_path / "models", model_id="all-MiniLM-L6-v2")


def test_verify_detects_a_flipped_byte_and_a_missing_file(tmp_path: Path) -> None:
    models_dir = tmp_path / "models"
    import_models(MINILM, models_dir)
    import_models(SPLADE, models_dir)
    assert [r.ok for r in verify(models_dir)] == [True, True]
    onnx = models_dir / "all-MiniLM-L6-v2" / "model.onnx"
    data = bytearray(onnx.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx.write_bytes(bytes(data))
    (models_dir / "splade-tiny" / "tokenizer.json").unlink()
    by_name = {r.name: r for r in verify(models_dir)}
    minilm = by_name["all-MiniLM-L6-v2"]
    assert not minilm.ok and len(minilm.problems) == 1
    assert minilm.problems[0].startswith("model.onnx: sha256 differs from the one recorded at install")
    assert {c.path: c.status for c in minilm.files} == {"model.onnx": "mismatch", "tokenizer.json": "ok"}
    sparse = by_name["splade-tiny"]
    assert not sparse.ok and "tokenizer" in sparse.problems[0]


def test_verify_reports_hashes_a_model_json_does_not_record(tmp_path: Path) -> None:
    folder = tmp_path / "models" / "all-MiniLM-L6-v2"
    shutil.copytree(MINILM, folder)  # a hand-made folder: model.json without file records
    (result,) = verify(tmp_path / "models")
    assert result.ok and {c.status for c in result.files} == {"unrecorded"}
    assert {c.path: c.sha256 for c in result.files}["model.onnx"] == file_sha256(MINILM / "model.onnx")


def test_list_models_shows_each_slot_with_its_residency(tmp_path: Path) -> None:
    empty = list_models(tmp_path / "none", Tier.STANDARD)
    assert [(r.slot, r.present, r.residency) for r in empty] == [
        ("E1", False, "resident"),
        ("E6", False, "resident"),
        ("E7", False, "resident"),
        ("E12", False, "lazy"),
    ]
    rows = {r.slot: r for r in list_models(MODELS, Tier.CONSTRAINED)}
    assert {s: r.residency for s, r in rows.items()} == {
        "E1": "resident",
        "E6": "transient",
        "E7": "transient",
        "E12": "transient",
    }
    e1 = rows["E1"]
    assert e1.present and e1.name == "multilingual-e5-small-enpt"
    assert e1.production_model == "multilingual-e5-small"
    assert e1.fingerprint and e1.fingerprint.startswith("multilingual-e5-small-enpt@")
    assert e1.size_bytes == sum(p.stat().st_size for p in (MODELS / "multilingual-e5-small-enpt").iterdir())


def test_a_copied_install_is_checked_against_its_recorded_hashes(tmp_path: Path) -> None:
    """Moving models between machines: a model.json with file records must match the bytes."""
    first = tmp_path / "machine-a"
    import_models(SPLADE, first)
    moved = tmp_path / "usb" / "splade-tiny"
    shutil.copytree(first / "splade-tiny", moved)
    (result,) = import_models(moved, tmp_path / "machine-b")
    files = load_model_spec(Path(result.folder)).extra["files"]
    assert {r["sha256_source"] for r in files.values()} == {"recorded"}
    tokenizer = moved / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text().replace('"[UNK]"', '"[UNKNOWN]"', 1))
    with pytest.raises(InstallError, match="does not match the sha256 its model.json records"):
        import_models(moved, tmp_path / "machine-c")
    assert not (tmp_path / "machine-c" / "splade-tiny").exists()
