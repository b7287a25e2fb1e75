"""The CLI's read commands as JSON requests: run by the daemon (models already loaded) or, when
none runs, in the CLI's own process. Either way the answer is exactly what the command's
`--json` prints, built by the same functions (`search/output.py`, the records' `to_json`), so
the output cannot depend on where it was computed.

Nothing heavy is imported here at module level: the CLI imports this module only to run a read
in-process, and the daemon has the app loaded already.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from casetrack.errors import CaseTrackError

if TYPE_CHECKING:
    from casetrack.app import CaseTrack
    from casetrack.search.legal_filters import LegalFilters

Args = Mapping[str, Any]
CLIENT = "cli"  # the audit log's client name: the CLI asked, whichever process answered


def _strs(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in (value or ()))


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _legal(a: Args) -> LegalFilters:
    """The legal-metadata filters as the CLI options give them (`cli/search_cmds.legal_filter_options`)."""
    from casetrack.search.legal_filters import legal_filters

    legal: Mapping[str, Any] = a.get("legal") or {}
    return legal_filters(
        doc_types=_strs(legal.get("doc_types")),
        tribunals=_strs(legal.get("tribunals")),
        processes=_strs(legal.get("processes")),
        date_from=legal.get("date_from"),
        date_to=legal.get("date_to"),
        tags=_strs(legal.get("tags")),
        fields=_strs(legal.get("fields")),
        languages=_strs(legal.get("languages")),
    )


def _search(app: CaseTrack, a: Args) -> Any:
    from casetrack.search.filters import SearchFilters
    from casetrack.search.ranking.output import response_json

    filters = SearchFilters(
        documents=_strs(a.get("documents")),
        file_types=_strs(a.get("file_types")),
        ingested_after=a.get("ingested_after"),
        ingested_before=a.get("ingested_before"),
        bates=a.get("bates"),
        legal=_legal(a),
        near_duplicates=str(a.get("near_duplicates") or "show"),
    )
    response = app.search(
        str(a["case"]),
        str(a["query"]),
        top_k=int(a.get("top_k", 10)),
        offset=int(a.get("offset", 0)),
        filters=filters,
        context_chars=int(a.get("context_chars", 0)),
        per_document=bool(a.get("per_document")),
        keywords=_strs(a.get("keywords")),
        likely_wording=a.get("likely_wording"),
        syntax=a.get("syntax"),
        rerank=a.get("rerank"),
        client=CLIENT,
    )
    return response_json(response)


def _chunk(app: CaseTrack, a: Args) -> Any:
    view = app.get_chunk(
        str(a["case"]), str(a["chunk_id"]), int(a.get("neighbours", 1)), query=a.get("query"), client=CLIENT
    )
    return {"case": app.registry.get(str(a["case"])).name, **view}  # as the get_chunk tool gives it


def _entity(app: CaseTrack, a: Args) -> Any:
    from casetrack.search.filters import SearchFilters

    filters = SearchFilters(legal=_legal(a))
    found = app.find_entity(
        str(a["case"]),
        str(a["entity"]),
        str(a.get("entity_type", "any")),
        int(a.get("top_k", 20)),
        client=CLIENT,
        filters=filters,
    )
    return found.to_json()


def _authorities(app: CaseTrack, a: Args) -> Any:
    return app.authorities(str(a["case"]), int(a.get("top_k", 50)), a.get("kind"), client=CLIENT)


def _verify(app: CaseTrack, a: Args) -> Any:
    return app.verify_citation(
        str(a["case"]),
        str(a["quote"]),
        a.get("citation"),
        a.get("document"),
        _opt_int(a.get("page")),
        _opt_int(a.get("paragraph")),
        _opt_int(a.get("line_start")),
        _opt_int(a.get("line_end")),
        client=CLIENT,
    )


def _chronology(app: CaseTrack, a: Args) -> Any:
    return app.chronology(
        str(a["case"]),
        a.get("date_from"),
        a.get("date_to"),
        _strs(a.get("documents")),
        a.get("query"),
        client=CLIENT,
    )


def _documents(app: CaseTrack, a: Args) -> Any:
    return app.list_documents(str(a["case"]), a.get("sort_by", "date"), a.get("near_duplicates", "show"))


def _document(app: CaseTrack, a: Args) -> Any:
    """`documents info`: what the get_document tool gives (the case's name, then the details)."""
    details = app.document_details(str(a["case"]), str(a["document"]))
    return {"case": app.registry.get(str(a["case"])).name, **details}


def _status(app: CaseTrack, a: Args) -> Any:
    case = a.get("case")
    return app.status(str(case) if case is not None else None)


def _case_info(app: CaseTrack, a: Args) -> Any:
    return app.case_summary(str(a["case"]))


def _case_list(app: CaseTrack, a: Args) -> Any:
    return [r.to_json() for r in app.registry.list(include_archived=bool(a.get("include_archived")))]


READS: dict[str, Callable[[CaseTrack, Args], Any]] = {
    "search": _search,
    "get_chunk": _chunk,
    "find_entity": _entity,
    "authorities": _authorities,
    "verify_citation": _verify,
    "chronology": _chronology,
    "list_documents": _documents,
    "document_details": _document,
    "app_status": _status,
    "case_info": _case_info,
    "case_list": _case_list,
}


def run_read(app: CaseTrack, op: str, args: Args) -> Any:
    """The JSON answer of read `op` (one of READS) computed with `app`."""
    fn = READS.get(op)
    if fn is None:
        raise CaseTrackError(f"Unknown read request {op!r}.", "Upgrade the CLI and the daemon together.")
    return fn(app, args)
