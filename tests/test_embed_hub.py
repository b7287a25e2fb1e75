"""Downloads through huggingface-hub against a local fake hub (tests/fake_hub.py): no network."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from huggingface_hub import constants

from casetrack.embed.catalog import discover_models, file_sha256, load_model_spec
from casetrack.embed.hub import ChecksumError, HubUnavailableError, download
from casetrack.embed.install import TMP_DIR, verify
from casetrack.embed.production import CatalogFile, ProductionModel, slot_of
from casetrack.errors import CaseTrackError
from tests.conftest import MODELS
from tests.fake_hub import FakeHub

pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"model pack not found at {MODELS}")

COMMIT = "1111111111111111111111111111111111111111"
SPLADE = MODELS / "splade-tiny"
MINILM = MODELS / "all-MiniLM-L6-v2"


def sparse_entry(revision: str | None = COMMIT, onnx_sha: str | None = "pack") -> ProductionModel:
    """splade-tiny's files as a sparse catalog entry (onnx_sha "pack": the catalog knows its hash)."""
    sha = file_sha256(SPLADE / "model.onnx") if onnx_sha == "pack" else onnx_sha
    files = (CatalogFile("onnx", "onnx/model.onnx", None, sha), CatalogFile("tokenizer", "tokenizer.json"))
    return ProductionModel(
        id="tiny-sparse",
        slot="E6",
        role="sparse",
        family="splade",
        hub_repo="test-org/tiny-sparse",
        upstream_repo="test-org/tiny-sparse",
        revision=revision,
        folder="tiny-sparse",
        files=files,
        output=None,
        pooling="max",
        normalize=False,
        dim=None,
        max_tokens=512,
        languages=("en",),
        pack_folder="splade-tiny",
    )


def minilm_entry() -> ProductionModel:
    return ProductionModel(
        id="tiny-dense",
        slot="E7",
        role="dense",
        family="minilm",
        hub_repo="test-org/tiny-dense",
        upstream_repo="test-org/tiny-dense",
        revision=COMMIT,
        folder="tiny-dense",
        files=(CatalogFile("onnx", "model.onnx"), CatalogFile("tokenizer", "tokenizer.json")),
        output="sentence_embedding",
        pooling="mean",
        normalize=True,
        dim=384,
        max_tokens=256,
        languages=("en",),
    )


def publish(hub: FakeHub, entry: ProductionModel, folder: Path, commit: str = COMMIT) -> None:
    hub.add_folder(entry.hub_repo, commit, folder, {f.path: Path(f.path).name for f in entry.files})


def staged(models_dir: Path) -> list[str]:
    tmp = models_dir / TMP_DIR
    return sorted(p.name for p in tmp.iterdir()) if tmp.is_dir() else []


def test_download_installs_a_checked_loadable_model(tmp_path: Path) -> None:
    entry, models_dir = sparse_entry(), tmp_path / "models"
    seen: dict[str, list[tuple[int, int | None]]] = {}
    with FakeHub() as hub:
        publish(hub, entry, SPLADE)
        result = download(
            entry,
            models_dir,
            endpoint=hub.url,
            progress=lambda label, done, total: seen.setdefault(label, []).append((done, total)),
        )
        again = download(entry, models_dir, endpoint=hub.url, offline=True)  # installed: no hub needed
        assert hub.gets("onnx/model.onnx") == [None]
    assert (result.name, result.slot, result.revision) == ("tiny-sparse", "E6", COMMIT)
    assert not result.already_installed
    assert again.already_installed and staged(models_dir) == []
    spec = load_model_spec(models_dir / "tiny-sparse")
    assert spec.role == "sparse" and spec.output == "sparse_embedding" and slot_of(spec) == "E6"
    meta = json.loads((spec.path / "model.json").read_text())
    assert (meta["slot"], meta["revision"], meta["catalog_id"], meta["hub_repo"]) == (
        "E6",
        COMMIT,
        "tiny-sparse",
        "test-org/tiny-sparse",
    )
    onnx_size = (SPLADE / "model.onnx").stat().st_size
    assert meta["files"]["onnx/model.onnx"] == {
        "sha256": file_sha256(SPLADE / "model.onnx"),
        "size": onnx_size,
        "sha256_source": "catalog",
    }
    # tokenizer.json is a plain git file on the hub: its ETag is the git blob sha1, checked too.
    assert meta["files"]["tokenizer.json"]["sha256_source"] == "hub-git-sha1"
    assert seen["onnx/model.onnx"][-1] == (onnx_size, onnx_size)
    assert not (spec.path / ".cache").exists()
    assert [s.name for s in discover_models(models_dir)] == ["tiny-sparse"]
    assert all(r.ok for r in verify(models_dir))


def test_without_a_catalog_hash_the_hubs_lfs_sha256_is_checked(tmp_path: Path) -> None:
    entry = sparse_entry(onnx_sha=None)
    with FakeHub() as hub:
        publish(hub, entry, SPLADE)
        download(entry, tmp_path / "models", endpoint=hub.url)
    meta = json.loads((tmp_path / "models" / "tiny-sparse" / "model.json").read_text())
    assert meta["files"]["onnx/model.onnx"]["sha256_source"] == "hub"


def test_a_corrupted_transfer_is_refused_and_nothing_is_installed(tmp_path: Path) -> None:
    entry, models_dir = sparse_entry(), tmp_path / "models"
    data = bytearray((SPLADE / "model.onnx").read_bytes())
    data[1000] ^= 0xFF
    with FakeHub() as hub:
        publish(hub, entry, SPLADE)
        real = (SPLADE / "model.onnx").read_bytes()  # advertised (ETag) while other bytes are sent
        hub.add(entry.hub_repo, COMMIT, "onnx/model.onnx", real, served=bytes(data))
        with pytest.raises(ChecksumError, match="does not match the catalog hash") as caught:
            download(entry, models_dir, endpoint=hub.url)
    assert "Nothing was installed" in caught.value.message
    assert not (models_dir / "tiny-sparse").exists() and staged(models_dir) == []
    assert discover_models(models_dir) == []


def test_a_hub_file_other_than_the_pinned_one_is_refused_before_downloading(tmp_path: Path) -> None:
    entry = sparse_entry(onnx_sha="0" * 64)
    with FakeHub() as hub:
        publish(hub, entry, SPLADE)
        with pytest.raises(ChecksumError, match="another file than the pinned"):
            download(entry, tmp_path / "models", endpoint=hub.url)
        assert hub.gets("onnx/model.onnx") == []  # refused on the metadata, no bytes fetched
    assert not (tmp_path / "models" / "tiny-sparse").exists()


def test_a_broken_connection_resumes_with_a_range_request(tmp_path: Path) -> None:
    entry = minilm_entry()
    cut = 3_000_001  # an odd offset: the resume asks for exactly the bytes that did not arrive
    with FakeHub() as hub:
        publish(hub, entry, MINILM)
        hub.drop_after["model.onnx"] = cut  # the first GET breaks mid-file, as a flaky network does
        result = download(entry, tmp_path / "models", endpoint=hub.url)
        assert hub.gets("model.onnx") == [None, f"bytes={cut}-"]
    installed = Path(result.folder) / "model.onnx"
    assert file_sha256(installed) == file_sha256(MINILM / "model.onnx")
    meta = json.loads((Path(result.folder) / "model.json").read_text())
    assert meta["files"]["model.onnx"]["sha256_source"] == "hub"


class Stop(BaseException):
    """What a cancelled job raises from its progress report (like daemon.jobs.JobCancelled)."""


def test_an_interrupted_run_continues_where_it_stopped_on_the_next_run(tmp_path: Path) -> None:
    """A run stopped mid-file (job cancelled, daemon stopped, machine asleep) keeps the bytes it
    received; the next run asks only for the rest, and the result is the exact file."""
    entry, models_dir = minilm_entry(), tmp_path / "models"
    size = (MINILM / "model.onnx").stat().st_size

    def stop_halfway(label: str, done: int, total: int | None) -> None:
        if label == "model.onnx" and done >= size // 2:
            raise Stop

    with FakeHub() as hub:
        publish(hub, entry, MINILM)
        with pytest.raises(Stop):
            download(entry, models_dir, endpoint=hub.url, progress=stop_halfway)
        assert not (models_dir / "tiny-dense").exists()  # nothing installed from a partial run
        part = next((models_dir / TMP_DIR).rglob("model.onnx.part"))
        kept = part.stat().st_size
        assert size // 2 <= kept < size
        result = download(entry, models_dir, endpoint=hub.url)
        assert hub.gets("model.onnx") == [None, f"bytes={kept}-"]
        assert hub.gets("tokenizer.json") == [None]  # finished before the stop: not fetched again
    assert file_sha256(Path(result.folder) / "model.onnx") == file_sha256(MINILM / "model.onnx")
    assert staged(models_dir) == [] and all(r.ok for r in verify(models_dir))


def test_a_server_that_ignores_range_gets_the_whole_file_again(tmp_path: Path) -> None:
    """A mirror or proxy that answers a Range request with 200 sends the whole file: it replaces
    the partial one instead of being appended to it."""
    entry, models_dir = minilm_entry(), tmp_path / "models"
    staging = models_dir / TMP_DIR / f"download-tiny-dense-{COMMIT[:12]}"
    staging.mkdir(parents=True)
    (staging / "model.onnx.part").write_bytes(b"x" * 1000)  # left by an earlier run
    with FakeHub() as hub:
        publish(hub, entry, MINILM)
        hub.ignore_range = True
        result = download(entry, models_dir, endpoint=hub.url)
        assert hub.gets("model.onnx") == ["bytes=1000-"]
    assert file_sha256(Path(result.folder) / "model.onnx") == file_sha256(MINILM / "model.onnx")


def test_offline_mode_names_the_import_command_and_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # what HF_HUB_OFFLINE=1 sets at import
    entry, models_dir = sparse_entry(), tmp_path / "models"
    with pytest.raises(HubUnavailableError, match="offline mode") as caught:
        download(entry, models_dir)
    hint = caught.value.hint or ""
    assert "casetrack models import DIR --as tiny-sparse" in hint
    assert str(models_dir.resolve() / "tiny-sparse") in hint and COMMIT in hint
    assert "casetrack models import PACK/splade-tiny" in hint
    assert not models_dir.exists()


def test_an_unreachable_hub_gives_the_same_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(HubUnavailableError, match="cannot reach the hub") as caught:
        download(sparse_entry(), tmp_path / "models", endpoint=f"http://127.0.0.1:{port}", offline=False)
    assert "casetrack models import DIR" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("repo", "revision", "reason"),
    [
        ("test-org/tiny-sparse", "2" * 40, "is not on the hub"),
        ("test-org/elsewhere", COMMIT, "not found or not accessible"),
    ],
)
def test_unknown_revision_or_repository(tmp_path: Path, repo: str, revision: str, reason: str) -> None:
    entry = sparse_entry(revision=revision)
    with FakeHub() as hub:
        publish(hub, sparse_entry(), SPLADE)
        moved = ProductionModel(**{**entry.__dict__, "hub_repo": repo})
        with pytest.raises(HubUnavailableError, match=reason) as caught:
            download(moved, tmp_path / "models", endpoint=hub.url)
    assert "casetrack models import DIR" in (caught.value.hint or "")


def test_an_unpinned_model_needs_consent_and_records_the_commit_it_got(tmp_path: Path) -> None:
    entry = sparse_entry(revision=None, onnx_sha=None)
    with FakeHub() as hub:
        publish(hub, entry, SPLADE, commit="3" * 40)
        with pytest.raises(CaseTrackError, match="pins no revision") as caught:
            download(entry, tmp_path / "models", endpoint=hub.url)
        assert "--allow-unpinned" in (caught.value.hint or "") and hub.requests == []
        result = download(entry, tmp_path / "models", endpoint=hub.url, allow_unpinned=True)
    assert result.revision == "3" * 40
    assert json.loads((Path(result.folder) / "model.json").read_text())["revision"] == "3" * 40
