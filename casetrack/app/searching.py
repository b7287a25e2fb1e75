"""A search as the app runs it: the case's usable query encoders loaded, then the pipeline."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, cast

from casetrack.app.models_check import mismatches, missing_for_search, missing_warnings, search_skips
from casetrack.domain import SearchResponse
from casetrack.domain.slots import SLOT_ORDER, SLOTS
from casetrack.embed.protocols import EmbedderPool
from casetrack.errors import ModelNotFoundError
from casetrack.search.ranking.encoders import QueryEncoders
from casetrack.search.ranking.request import SearchRequest
from casetrack.search.ranking.runtime import SearchRuntime
from casetrack.store.case_store import CaseStore
from casetrack.store.lance_repair import partial_warnings


def run_search(
    store: CaseStore, pool: EmbedderPool, runtime: SearchRuntime, request: SearchRequest
) -> SearchResponse:
    """Load the query encoders the case can use (naming the ones it cannot), then search."""
    from casetrack.embed.protocols import DenseQueryEncoder, LateQueryEncoder, SparseQueryEncoder
    from casetrack.search.ranking.pipeline import search

    language = store.record.language
    stored = store.models()
    skipped = search_skips(store, pool, mismatches(store, pool))
    cfg = request.config
    lists = cfg.lists_for(language)
    # Every fused list's slot, in load order, and E12 when the rerank stage is on.
    wanted = {slot: slot == "E1" or SLOTS[slot].list_name in lists for slot in SLOT_ORDER if slot != "E12"}
    wanted["E12"] = cfg.rerank.on
    with ExitStack() as stack:
        loaded: dict[str, Any] = {}
        for slot, want in wanted.items():
            if want and slot not in skipped:
                try:
                    loaded[slot] = stack.enter_context(pool.use(slot, language))
                except ModelNotFoundError as e:
                    skipped[slot] = str(e)
        encoders = QueryEncoders(
            dense=cast(DenseQueryEncoder | None, loaded.get("E1")),
            sparse=cast(SparseQueryEncoder | None, loaded.get("E6")),
            e7=cast(DenseQueryEncoder | None, loaded.get("E7")),
            late=cast(LateQueryEncoder | None, loaded.get("E12")),
            late_codec=stored.get("E12", {}).get("codec"),
            skipped=skipped,
        )
        response = search(store, encoders, request, runtime)
    response.models_missing = missing_for_search(pool, language)
    response.warnings += partial_warnings(store)  # a document lost, rows LanceDB cannot read
    response.warnings += missing_warnings(response.models_missing)
    if "E1" in skipped and "E1" not in response.models_missing:
        response.warnings.append(f"dense search (E1) skipped: {skipped['E1']}")
    return response
