"""A search as the app runs it: the case's usable query encoders loaded, then the pipeline."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, cast

from casetrack.app.models_check import mismatches, missing_for_search, missing_warnings, search_skips
from casetrack.domain import SearchHit, SearchResponse
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
    """Load the query encoders the case can use (naming the ones it cannot), then search; a
    terms-and-connectors query (search/connectors/) needs no encoder and runs on its own path."""
    from casetrack.embed.protocols import DenseQueryEncoder, LateQueryEncoder, SparseQueryEncoder
    from casetrack.search.connectors.syntax import resolve
    from casetrack.search.ranking.pipeline import search

    if resolve(request.syntax, request.query) == "connectors":
        from casetrack.search.connectors.search import search_connectors

        response = search_connectors(store, request)
        if request.rerank_asked:
            response.warnings.append(
                "rerank does not apply to a terms-and-connectors search: its results are exact matches, "
                "ranked by the words matched and how close together they are."
            )
        return response

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
    if cfg.rerank.on and "rerank" not in response.stages_used:
        response.warnings.append(rerank_note(store, pool, skipped.get("E12")))
    return response


def rerank_note(store: CaseStore, pool: EmbedderPool, why: str | None) -> str:
    """Why a search asked to rerank ran without it, and what to do."""
    from casetrack.embed.production import for_slot

    model = for_slot("E12").id
    name = store.record.name
    if pool.resolve("E12", store.record.language) is None:
        return (
            f"rerank was asked for, but no late-interaction model (E12, e.g. {model}) is installed: this search "
            f"ran without it. Install it with `casetrack models download --model {model}` (MCP: download_models), "
            f'then add its vectors with `casetrack reembed --case "{name}"`.'
        )
    if why:
        return f"rerank was asked for but did not run: {why}."
    return "rerank was asked for but had no candidates to rerank."


def group_near_duplicates(store: CaseStore, response: SearchResponse) -> SearchResponse:
    """One result per near-duplicate family (an original and the documents that nearly copy it):
    the best one stays, naming the family's other documents whose results it stands for."""
    from dataclasses import replace

    from casetrack.search.filters import near_duplicate_families

    entries = store.documents()
    family = near_duplicate_families(entries)
    names = {e.doc_id: e.name for e in entries}
    kept: list[SearchHit] = []
    first: dict[str, int] = {}
    for hit in response.hits:
        doc_id = hit.provenance.document_id
        root = family.get(doc_id, doc_id)
        if root not in first:
            first[root] = len(kept)
            kept.append(hit)
            continue
        best = kept[first[root]]
        name = names.get(doc_id, hit.provenance.document)
        if name != best.provenance.document and name not in best.near_duplicates:
            kept[first[root]] = replace(best, near_duplicates=(*best.near_duplicates, name))
    return replace(response, hits=kept)
