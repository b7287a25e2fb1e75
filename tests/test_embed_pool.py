"""Memory tiers and the embedder pool on the real model pack."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from casetrack.embed.pool import EncoderPool
from casetrack.embed.tiers import GIB, Residency, Tier, choose_tier, residency
from casetrack.errors import ModelNotFoundError
from tests.conftest import MODELS

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")


def pack_subset(tmp_path: Path, *names: str) -> Path:
    """A models folder holding only some of the pack's models (symlinked, nothing copied)."""
    root = tmp_path / "models"
    root.mkdir()
    for name in names:
        (root / name).symlink_to(MODELS / name, target_is_directory=True)
    return root


@pytest.mark.parametrize(
    ("total_gb", "available_gb", "tier"),
    [
        (32, 20, Tier.FULL),
        (16, 6, Tier.FULL),
        (16, 3, Tier.STANDARD),  # enough RAM, but most of it already in use
        (12, 6, Tier.STANDARD),
        (8, 2.5, Tier.STANDARD),
        (8, 1, Tier.CONSTRAINED),
        (6, 4, Tier.CONSTRAINED),
        (4, 3, Tier.CONSTRAINED),
    ],
)
def test_choose_tier(total_gb: float, available_gb: float, tier: Tier) -> None:
    chosen, reason = choose_tier(int(total_gb * GIB), int(available_gb * GIB))
    assert chosen == tier
    assert "GiB total" in reason


def test_residency_table() -> None:
    assert {residency(Tier.FULL, s) for s in ("E1", "E6", "E7", "E12")} == {Residency.RESIDENT}
    assert residency(Tier.STANDARD, "E12") == Residency.LAZY
    assert residency(Tier.STANDARD, "E6") == Residency.RESIDENT
    assert residency(Tier.CONSTRAINED, "E1") == Residency.RESIDENT
    assert residency(Tier.CONSTRAINED, "E7") == Residency.TRANSIENT


def test_slots_resolve_to_the_pack_models() -> None:
    pool = EncoderPool(MODELS, "standard")
    names = {slot: pool.resolve(slot, "en") for slot in ("E1", "E6", "E7", "E12")}
    assert {k: v.name for k, v in names.items() if v} == {
        "E1": "multilingual-e5-small-enpt",
        "E6": "splade-tiny",
        "E7": "all-MiniLM-L6-v2",
        "E12": "colbert-standin-minilm",
    }
    # Portuguese: E1 must cover the language; the English-only MiniLM is never E1.
    e1_pt = pool.resolve("E1", "pt")
    assert e1_pt is not None and e1_pt.name == "multilingual-e5-small-enpt"


def test_missing_slot_is_reported_with_the_fix(tmp_path: Path) -> None:
    pool = EncoderPool(pack_subset(tmp_path, "all-MiniLM-L6-v2"), "standard")
    assert pool.resolve("E1", "en") is None  # MiniLM is E7, not a stand-in for E1
    with pytest.raises(ModelNotFoundError) as err:
        pool.get("E1", "en")
    assert "casetrack models download --slot E1" in str(err.value)
    skips = pool.search_slots("en")
    assert skips["E7"] is None
    assert skips["E6"] is not None and "--slot E6" in skips["E6"]


def test_constrained_tier_unloads_transient_models_after_use() -> None:
    pool = EncoderPool(MODELS, "constrained")
    assert pool.preload("en") == ["E1"]
    with pool.use("E7", "en") as enc:
        assert enc.encode_passages(["notice of termination"]).shape == (1, 384)
        assert "all-MiniLM-L6-v2" in pool.loaded_models()
    assert pool.loaded_models() == ["multilingual-e5-small-enpt"]
    skips = pool.search_slots("en")
    assert skips["E1"] is None
    assert all("constrained" in (skips[s] or "") for s in ("E6", "E7", "E12"))


def test_standard_tier_keeps_models_and_loads_each_once() -> None:
    pool = EncoderPool(MODELS, "standard")
    assert pool.preload("en") == ["E1", "E7", "E6"]  # E12 is lazy
    assert pool.load_count == 3
    with pool.use("E12", "en"):
        pass
    with pool.use("E12", "en"):
        pass
    assert pool.load_count == 4 and "colbert-standin-minilm" in pool.loaded_models()


def test_concurrent_first_use_loads_a_model_once() -> None:
    pool = EncoderPool(MODELS, "full")
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(pool.get("E7", "en"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert pool.load_count == 1 and len({id(g) for g in got}) == 1


def test_memory_pressure_unloads_least_recently_used_but_keeps_e1_longest() -> None:
    free = {"bytes": 8 * GIB}

    def memory() -> SimpleNamespace:
        return SimpleNamespace(total=16 * GIB, available=free["bytes"])

    pool = EncoderPool(MODELS, "full", memory=memory, reserve_bytes=GIB)
    pool.get("E1", "en")
    pool.get("E7", "en")
    pool.get("E6", "en")
    free["bytes"] = GIB // 2  # another program took the memory
    # Each unload is checked against the (still low) reading, so every idle model but E1 goes
    # before E1 itself; E1 goes last.
    unloaded: list[str] = []
    original = pool._unload

    def spy(path: Path, why: str) -> None:
        unloaded.append(path.name)
        original(path, why)

    pool._unload = spy  # type: ignore[method-assign]
    pool.get("E12", "en")
    assert unloaded == ["all-MiniLM-L6-v2", "splade-tiny", "multilingual-e5-small-enpt"]
    assert pool.loaded_models() == ["colbert-standin-minilm"]


def test_status_rows() -> None:
    pool = EncoderPool(MODELS, "constrained")
    rows = {r.slot: r for r in pool.status("pt")}
    assert rows["E1"].used_in_search and rows["E1"].model == "multilingual-e5-small-enpt"
    assert not rows["E12"].used_in_search and rows["E12"].residency == Residency.TRANSIENT
    assert rows["E6"].to_json()["problem"] == "skipped in constrained memory mode"


def test_e1_prefers_the_catalog_choice_for_the_case_language(tmp_path: Path) -> None:
    """An English case gets the English specialist when installed, a Portuguese one the multilingual."""
    root = pack_subset(tmp_path, "multilingual-e5-small-enpt")
    bge = root / "bge-standin"
    bge.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (bge / name).symlink_to(MODELS / "multilingual-e5-small-enpt" / name)
    meta = json.loads((MODELS / "multilingual-e5-small-enpt" / "model.json").read_text())
    meta.update(name="bge-standin", hub_repo_for_users="BAAI/bge-small-en-v1.5", languages=["en"])
    (bge / "model.json").write_text(json.dumps(meta))
    pool = EncoderPool(root, "standard")
    assert pool.require("E1", "en").name == "bge-standin"
    assert pool.require("E1", "pt").name == "multilingual-e5-small-enpt"
