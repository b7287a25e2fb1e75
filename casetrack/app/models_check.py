"""Which of a case's model slots search and ingest may use, and why not when they may not; which
models the memory mode would use that are not installed, and how to install them."""

from __future__ import annotations

from collections.abc import Sequence

from casetrack.domain.slots import SLOT_ORDER, SLOTS
from casetrack.domain.views import MissingModelJson, ModelsFixJson
from casetrack.embed.production import Catalog, ProductionModel
from casetrack.embed.protocols import EmbedderPool
from casetrack.embed.tiers import SKIPPED_IN_SEARCH
from casetrack.store.case_store import CaseStore

# The case languages E1 must cover; one multilingual model covers both.
E1_LANGUAGES = ("en", "pt")


def mismatches(store: CaseStore, pool: EmbedderPool) -> dict[str, str]:
    """slot -> why the installed model differs from the one the case was embedded with."""
    from casetrack.ingest.embedding import model_mismatches

    return model_mismatches(store.models(), pool, store.record.language, store.record.name)


def search_skips(store: CaseStore, pool: EmbedderPool, mismatched: dict[str, str]) -> dict[str, str]:
    """slot -> why search cannot use it for this case: the memory tier, a missing model,
    vectors from other weights, or no vectors of that slot in the case yet."""
    skipped = {slot: why for slot, why in pool.search_slots(store.record.language).items() if why}
    skipped.update(mismatched)
    stored = store.models()
    for slot in ("E6", "E7", "E12"):
        if slot not in stored and slot not in skipped:
            skipped[slot] = (
                f'this case has no {slot} vectors yet: casetrack reembed --case "{store.record.name}"'
            )
    return skipped


def missing_for_search(pool: EmbedderPool, language: str) -> list[str]:
    """The slots a search of a `language` case runs without because their model is not installed
    (not those the memory mode leaves out on purpose)."""
    return [
        s for s in SLOT_ORDER if s not in SKIPPED_IN_SEARCH[pool.tier] and pool.resolve(s, language) is None
    ]


def missing_warnings(slots: Sequence[str]) -> list[str]:
    """One line per missing model for a search's `warnings` (each surface adds its own fix)."""
    return [
        f"No {SLOTS[s].purpose} model ({s}) is installed: this search ran without {SLOTS[s].stage}, so "
        "results may be weaker."
        for s in slots
    ]


def missing_models(
    pool: EmbedderPool, catalog: Catalog, language: str | None = None
) -> list[MissingModelJson]:
    """What the memory mode would use and is not installed, with the catalog model that fills
    each gap. E1 is looked for per case language: one multilingual model when both English and
    Portuguese lack one (or `language` is "mixed"), the language's own model otherwise."""
    out: list[MissingModelJson] = []
    for slot in SLOT_ORDER:
        if slot in SKIPPED_IN_SEARCH[pool.tier]:
            continue
        if slot == "E1":
            wanted = ("en", "pt") if language in (None, "mixed") else (language,)
            lacking = [lang for lang in wanted if pool.resolve("E1", lang) is None]
            if lacking:
                out.append(
                    _missing(catalog.for_slot("E1", "mixed" if len(lacking) > 1 else lacking[0]), lacking)
                )
        elif pool.resolve(slot, "en") is None:
            out.append(_missing(catalog.for_slot(slot), list(E1_LANGUAGES)))
    return out


def _missing(entry: ProductionModel, languages: list[str]) -> MissingModelJson:
    sizes = [f.size for f in entry.files]
    slot = SLOTS[entry.slot]
    return {
        "slot": entry.slot,
        "purpose": slot.purpose,
        "stage": slot.stage,
        "model": entry.id,
        "languages": languages,
        "size_bytes": sum(s for s in sizes if s) if all(sizes) else None,
        "pinned": entry.revision is not None,
    }


def models_fix(missing: Sequence[MissingModelJson]) -> ModelsFixJson | None:
    """The commands and tool calls that install `missing` (None when nothing is missing)."""
    if not missing:
        return None
    unpinned = [m["model"] for m in missing if not m["pinned"]]
    cli, tool = [], []
    if len(unpinned) < len(missing):  # `--missing` / the tool's default take the pinned ones
        cli.append("casetrack models download --missing")
        tool.append("download_models()")
    if unpinned:  # no pinned hashes: only on request, with the hub's current files
        cli.append("casetrack models download --allow-unpinned " + " ".join(f"--model {m}" for m in unpinned))
        tool.append(
            "download_models(models=[" + ", ".join(f'"{m}"' for m in unpinned) + "], allow_unpinned=true)"
        )
    return {
        "cli": ", then ".join(cli),
        "tool": ", then ".join(tool),
        "offline_cli": "casetrack models import DIR",
        "offline_tool": 'import_models(folder_path="...")',
    }


def pick_models(catalog: Catalog, names: Sequence[str], language: str = "mixed") -> list[ProductionModel]:
    """Catalog models by id, hub repo or slot ("E6"; E1 by `language`). Raises ValueError naming
    what is not known."""
    picked: list[ProductionModel] = []
    for name in names:
        slot = name.strip().upper()
        entry = catalog.for_slot(slot, language) if slot in SLOTS else catalog.by_id(name.strip())
        if entry is None:
            known = ", ".join([*SLOTS, *(m.id for m in catalog.models)])
            raise ValueError(f"{name!r} is not a CaseTrack model or slot (one of: {known})")
        if entry not in picked:
            picked.append(entry)
    return picked
