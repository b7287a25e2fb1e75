"""A search as the app runs it: the case's usable query encoders loaded, then the pipeline."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from casetrack.app.models_check import mismatches, search_skips
from casetrack.domain import SearchResponse
from casetrack.domain.slots import SLOTS
from casetrack.embed.protocols import EmbedderPool
from casetrack.errors import ModelNotFoundError
from casetrack.search.request import SearchRequest
from casetrack.search.runtime import SearchRuntime
from casetrack.search.stages import QueryModels
from casetrack.store.case_store import CaseStore


def run_search(store: CaseStore, pool: EmbedderPool, runtime: SearchRuntime, request: SearchRequest) -> SearchResponse:
    """Load the query encoders the case can use (naming the ones it cannot), then search."""
    from casetrack.search.pipeline import search

    language = store.record.language
    stored = store.models()
    skipped = search_skips(store, pool, mismatches(store, pool))
    cfg = request.config
    lists = cfg.lists_for(language)
    wanted = {"E1": True, **{s: SLOTS[s].list_name in lists for s in ("E7", "E6")}, "E12": cfg.rerank}
    with ExitStack() as stack:
        loaded: dict[str, Any] = {}
        for slot, want in wanted.items():
            if want and slot not in skipped:
                try:
                    loaded[slot] = stack.enter_context(pool.use(slot, language))
                except ModelNotFoundError as e:
                    skipped[slot] = str(e)
        models = QueryModels(
            dense=loaded.get("E1"),
            e7=loaded.get("E7"),
            sparse=loaded.get("E6"),
            late=loaded.get("E12"),
            late_codec=stored.get("E12", {}).get("codec"),
            skipped=skipped,
        )
        response = search(store, models, request, runtime)
    if "E1" in skipped:
        response.warnings.append(f"dense search (E1) skipped: {skipped['E1']}")
    return response
