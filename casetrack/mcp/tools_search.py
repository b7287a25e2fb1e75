"""Reading tools: search, a passage in full, every mention of an entity."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from casetrack.domain.cases import EntityType
from casetrack.domain.views import ChunkView, SearchJson
from casetrack.mcp import render
from casetrack.mcp.context import READ, CaseNameArg, ToolSet, call, client_of, result, tool_context
from casetrack.mcp.filter_args import (
    DateFromArg,
    DateToArg,
    DocTypeArg,
    FieldArg,
    LanguageArg,
    NearDuplicatesArg,
    ProcessArg,
    TagArg,
    TribunalArg,
    legal_args,
)
from casetrack.mcp.schemas import AuthoritiesOut, ChunkOut, EntityOut, SearchOut

tools = ToolSet()


@tools.tool(
    "Search case",
    READ,
    "Search all documents of a case with keyword and semantic search. For a question in plain words, also "
    "give keywords and likely_wording (your guess of the documents' own terms and wording): they find "
    "clauses worded unlike the question. Every result carries a pin-cite to the "
    "lines that match (document, page, paragraph, lines; the whole passage's range is chunk_citation), a "
    "relevance from 0 to 1 with a label (exact/strong/good/weak/poor) and a chunk_id for get_chunk. "
    "no_good_match=true means nothing in the case clearly answers: say so rather than cite the results. "
    "Pasting a sentence finds where it came from; verify_citation checks a quote against a cite. Text read by "
    "OCR says so with its confidence (source.ocr_confidence, 0-100); a page's Bates stamp ends its citation, "
    "and bates='ABC0001200-ABC0001300' searches only those pages. doc_type, tribunal, process, date_from/date_to "
    "(the document's own date), tag, field (KEY=VALUE) and language keep the search inside those documents. "
    'Terms and connectors (exact matches, pin-cited): & or % ! * "phrase" /s /p w/n pre/n ( ), e.g. '
    "'terminat! w/10 notice'.",
)
async def search_case(
    ctx: Context,
    query: Annotated[
        str,
        Field(
            description="Question or keywords, e.g. 'What are the termination provisions?'",
            min_length=1,
            max_length=2000,
        ),
    ],
    keywords: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=120)]] | None,
        Field(
            description="3-5 short alternative searches in the documents' own terms (terms of art, synonyms, "
            "the clause's usual heading, the other language's term). Not needed for a pasted quote or a citation.",
            max_length=8,
        ),
    ] = None,
    likely_wording: Annotated[
        str | None,
        Field(
            description="1-3 sentences as the document would probably word the answer (a clause, a holding); "
            "invented details are fine, it is never shown as a finding.",
            max_length=1500,
        ),
    ] = None,
    top_k: Annotated[int, Field(ge=1, le=50, description="Number of results to return")] = 10,
    document_filter: Annotated[
        str | None, Field(description="Only search this document (name or ID)")
    ] = None,
    case_name: CaseNameArg = None,
    offset: Annotated[int, Field(ge=0, le=500, description="Skip this many results (next page)")] = 0,
    context: Annotated[
        bool, Field(description="Add the end of the previous and start of the next passage")
    ] = False,
    by_document: Annotated[
        bool, Field(description="Also rank whole documents (which document says X?)")
    ] = False,
    bates: Annotated[
        str | None,
        Field(
            description="Only pages whose Bates (production) stamp is in this range, e.g. 'ABC0001200-ABC0001300', "
            "or is this one number",
            max_length=100,
        ),
    ] = None,
    doc_type: DocTypeArg = None,
    tribunal: TribunalArg = None,
    process: ProcessArg = None,
    date_from: DateFromArg = None,
    date_to: DateToArg = None,
    tag: TagArg = None,
    field: FieldArg = None,
    language: LanguageArg = None,
    syntax: Annotated[
        Literal["connectors", "plain"] | None,
        Field(
            description="Force the reading of query: connectors (Westlaw/Lexis terms and connectors) or plain. "
            "Default: connectors when the query carries their syntax."
        ),
    ] = None,
    rerank: Annotated[
        bool, Field(description="Rerank the best results with the late-interaction model, if installed")
    ] = False,
    near_duplicates: NearDuplicatesArg = "show",
) -> Annotated[CallToolResult, SearchOut]:
    tc = tool_context(ctx)

    def run() -> tuple[SearchJson, str]:
        from casetrack.search.filters import SearchFilters
        from casetrack.search.ranking.output import response_json

        legal = legal_args(doc_type, tribunal, process, date_from, date_to, tag, field, language)
        response = tc.host.app.search(
            tc.case_id(case_name),
            query,
            top_k=top_k,
            documents=[document_filter] if document_filter else None,
            offset=offset,
            context_chars=300 if context else 0,
            per_document=by_document,
            filters=SearchFilters(bates=bates, legal=legal, near_duplicates=near_duplicates),
            keywords=keywords,
            likely_wording=likely_wording,
            syntax=syntax,
            rerank=True if rerank else None,
            client=client_of(ctx),
        )
        # The case's size comes with the response (read once by the search, not a second pass).
        stats = f"{response.case_documents} documents, {response.case_chunks:,} chunks searched"
        return response_json(response), stats

    out, stats = await call(run)
    return result(render.search(out, stats), SearchOut.model_validate(out))


@tools.tool(
    "Get passage",
    READ,
    "A passage (chunk) in full by its chunk_id from search_case, with its citation and the neighbouring "
    "passages before and after it.",
)
async def get_chunk(
    ctx: Context,
    chunk_id: Annotated[str, Field(description="chunk_id from a search result", min_length=1)],
    neighbours: Annotated[int, Field(ge=0, le=5, description="Passages to include before and after")] = 1,
    case_name: CaseNameArg = None,
    query: Annotated[
        str | None,
        Field(
            description="The question or words searched for: citation and source then pin the lines of the passage "
            "that answer it (chunk_citation is the whole passage)",
            max_length=2000,
        ),
    ] = None,
) -> Annotated[CallToolResult, ChunkOut]:
    tc = tool_context(ctx)

    def run() -> dict[str, Any]:
        case = tc.case(case_name)
        chunk: ChunkView = tc.host.app.get_chunk(
            case.id, chunk_id, neighbours, query=query, client=client_of(ctx)
        )
        return {"case": case.name, **chunk}

    c = await call(run)
    return result(render.chunk(c), ChunkOut(**c))


@tools.tool(
    "Find entity",
    READ,
    "Find every mention of a name, court, statute or case citation across a case's documents: exact "
    "matches and close variants (OCR errors, spelling, accents). The legal filters of search_case "
    "(doc_type, tribunal, process, date_from/date_to, tag, field, language) keep it inside those documents.",
)
async def find_entity(
    ctx: Context,
    entity: Annotated[
        str,
        Field(
            description="e.g. 'Judge Smith', '42 USC 1983', 'Miranda v. Arizona'",
            min_length=1,
            max_length=300,
        ),
    ],
    entity_type: Annotated[EntityType, Field(description="Type of entity")] = "any",
    top_k: Annotated[int, Field(ge=1, le=100, description="Most mentions to return")] = 20,
    case_name: CaseNameArg = None,
    doc_type: DocTypeArg = None,
    tribunal: TribunalArg = None,
    process: ProcessArg = None,
    date_from: DateFromArg = None,
    date_to: DateToArg = None,
    tag: TagArg = None,
    field: FieldArg = None,
    language: LanguageArg = None,
) -> Annotated[CallToolResult, EntityOut]:
    tc = tool_context(ctx)

    def run() -> dict[str, Any]:
        from casetrack.search.filters import SearchFilters

        case = tc.case(case_name)
        legal = legal_args(doc_type, tribunal, process, date_from, date_to, tag, field, language)
        found = tc.host.app.find_entity(
            case.id, entity, entity_type, top_k, client=client_of(ctx), filters=SearchFilters(legal=legal)
        )
        return {"case": case.name, **found.to_json()}

    out = await call(run)
    return result(render.entities(out), EntityOut(**out))


@tools.tool(
    "List authorities",
    READ,
    "The case's table of authorities: every case, statute, súmula or tema its documents cite (short forms "
    "and id. resolved to their full citation), most cited first, each with the documents and pin-cites "
    "that cite it.",
)
async def list_authorities(
    ctx: Context,
    top_k: Annotated[int, Field(ge=1, le=200, description="How many authorities (most cited first)")] = 50,
    kind: Annotated[
        Literal["legislation", "jurisprudence", "us_case", "us_statute", "us_rule"] | None,
        Field(
            description="Only this kind: legislation (statutes, codes), jurisprudence (súmulas, temas, precedents), "
            "us_case (with its case name), us_statute, us_rule (Fed. R. Civ. P., Fed. R. Evid., local rules)"
        ),
    ] = None,
    case_name: CaseNameArg = None,
) -> Annotated[CallToolResult, AuthoritiesOut]:
    tc = tool_context(ctx)

    def run() -> dict[str, Any]:
        return tc.host.app.authorities(tc.case_id(case_name), top_k, kind, client=client_of(ctx))

    out = await call(run)
    return result(render.authorities(out), AuthoritiesOut(**out))
