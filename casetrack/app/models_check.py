"""Which of a case's model slots search and ingest may use, and why not when they may not."""

from __future__ import annotations

from casetrack.embed.protocols import EmbedderPool
from casetrack.store.case_store import CaseStore


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
            skipped[slot] = f'this case has no {slot} vectors yet: casetrack reembed --case "{store.record.name}"'
    return skipped
