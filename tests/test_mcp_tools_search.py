"""The reading tools (search_case, get_chunk, find_entity, list_authorities) through the SDK's
in-memory client over a real Service (tests/mcp_tools.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client
from mcp.types import CallToolResult

from casetrack.search.ranking.relevance import GOOD
from tests.mcp_tools import (
    CASE,
    HOSTING,
    LEASE,
    MEMO,
    READ,
    TERMINATION,
    Host,
    data,
    error,
    hints,
    open_host,
)
from tests.mcp_tools import parameters as params
from tests.mcp_tools import text as body

HOSTING_FEE = "Managed hosting fees are $175 per month"


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    with open_host(tmp_path_factory, "search") as opened:
        yield opened


def test_the_reading_tools_keep_their_parameters_and_are_read_only(host: Host) -> None:
    tools = host.tools()
    legal = {"doc_type", "tribunal", "process", "date_from", "date_to", "tag", "field", "language"}
    assert params(tools["search_case"]) == {
        "query",
        "top_k",
        "document_filter",
        "case_name",
        "offset",
        "context",
        "by_document",
        "bates",
        "keywords",
        "likely_wording",
        "syntax",
        "rerank",
        "near_duplicates",
        *legal,
    }
    assert params(tools["get_chunk"]) == {"chunk_id", "neighbours", "case_name", "query"}
    assert params(tools["find_entity"]) == {"entity", "entity_type", "top_k", "case_name", *legal}
    assert params(tools["list_authorities"]) == {"top_k", "kind", "case_name"}
    for name in ("search_case", "get_chunk", "find_entity", "list_authorities"):
        assert hints(tools[name]) == READ, name
        assert tools[name].output_schema is not None, name
    assert tools["search_case"].input_schema["required"] == ["query"]
    assert tools["get_chunk"].input_schema["required"] == ["chunk_id"]


def test_search_cites_the_lines_that_answer_in_data_and_text(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        args = {"case_name": CASE, "top_k": 2}
        found = await client.call_tool(
            "search_case", {**args, "query": "how much notice to terminate the lease"}
        )
        paged = await client.call_tool("search_case", {**args, "query": "notice to terminate", "offset": 1})
        only = await client.call_tool(
            "search_case", {**args, "query": "monthly fee", "document_filter": "hosting", "context": True}
        )
        ranked = await client.call_tool("search_case", {**args, "query": "monthly fee", "by_document": True})
        nothing = await client.call_tool("search_case", {**args, "query": "recipe for chocolate cake"})
        return found, paged, only, ranked, nothing

    found, paged, only, ranked, nothing = host.run(script)
    out = data(found)
    top = out["results"][0]
    assert out["case"] == CASE and out["no_good_match"] is False and len(out["results"]) == 2
    assert top["citation"] == f"{LEASE}, para. 4, ll. 8-9" and TERMINATION in top["snippet"]
    assert top["chunk_citation"] == f"{LEASE}, paras. 1-6, ll. 1-15" and top["relevance"] >= GOOD
    assert {"bm25", "dense", "rrf"} <= set(out["stages_used"]) and out["timings_ms"]["total"] > 0
    assert f'Search: "{out["query"]}"' in body(found) and top["citation"] in body(found)
    shown = f"relevance: {top['relevance']:.2f} {top['match']}"
    assert top["chunk_id"] in body(found) and shown in body(found) and top["match"] in ("strong", "good")
    assert top["chunk_id"] not in [r["chunk_id"] for r in data(paged)["results"]]  # the next page

    hits = data(only)["results"]
    assert {r["source"]["document"] for r in hits} == {HOSTING.name} and HOSTING_FEE in hits[0]["snippet"]
    assert hits[0]["citation"].startswith(f"{HOSTING.name}, p. 1, ")
    assert "Terms of Agreement" in hits[0]["context"]["before"] and hits[0]["context"]["after"]
    assert [d["document"] for d in data(ranked)["documents"]][0] == HOSTING.name
    assert "Best documents:" in body(ranked)
    assert data(nothing)["no_good_match"] is True and "No good match" in body(nothing)


def test_search_takes_the_callers_words_and_echoes_them(host: Host) -> None:
    """keywords and likely_wording: used for the answer's words, echoed, never shown as a finding;
    too many words are a tool error that says how to ask."""
    guess = "The Licensee shall pay a fee of one hundred dollars each week for the hosting."

    async def script(client: Client) -> tuple[CallToolResult, ...]:
        args = {"case_name": CASE, "top_k": 3}
        words = await client.call_tool(
            "search_case",
            {
                **args,
                "query": "what does the service cost",
                "keywords": ["fees", "per month"],
                "likely_wording": guess,
            },
        )
        plain = await client.call_tool("search_case", {**args, "query": "what does the service cost"})
        many = await client.call_tool(
            "search_case", {**args, "query": "cost", "keywords": [f"k{i}" for i in range(9)]}
        )
        return words, plain, many

    words, plain, many = host.run(script)
    out = data(words)
    assert out["keywords"] == ["fees", "per month"] and out["likely_wording"] == guess
    assert HOSTING_FEE in out["results"][0]["snippet"] and "one hundred dollars" not in body(words)
    assert data(plain)["keywords"] == [] and data(plain)["likely_wording"] is None
    assert many.is_error and "keywords" in error(many)


def test_the_research_prompt_walks_through_a_thorough_search(host: Host) -> None:
    async def script(client: Client) -> tuple[list[str], str]:
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        got = await client.get_prompt(
            "research_question", {"question": "Who pays for hosting?", "case_name": CASE}
        )
        content = got.messages[0].content
        return prompts, getattr(content, "text", "")

    prompts, text = host.run(script)
    assert prompts == ["research_question"]
    assert "Who pays for hosting?" in text and f'case_name="{CASE}"' in text
    assert all(step in text for step in ("keywords", "likely_wording", "get_chunk", "verify_citation"))


def test_search_errors_say_what_to_call_next(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        no_case = await client.call_tool("search_case", {"query": "rent"})
        unknown = await client.call_tool("search_case", {"query": "rent", "case_name": "Leese Dispute"})
        no_doc = await client.call_tool(
            "search_case", {"query": "rent", "case_name": CASE, "document_filter": "leese"}
        )
        too_many = await client.call_tool("search_case", {"query": "rent", "case_name": CASE, "top_k": 51})
        return no_case, unknown, no_doc, too_many

    no_case, unknown, no_doc, too_many = host.run(script)
    assert "No active case" in error(no_case) and "switch_case" in error(no_case)
    assert "list_cases" in error(unknown) or "Did you mean" in error(unknown)
    assert "Did you mean 'lease.txt'?" in error(no_doc) and "list_documents" in error(no_doc)
    assert "top_k" in error(too_many)


def test_get_chunk_gives_the_passage_its_neighbours_and_a_pin_for_a_query(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        await client.call_tool("switch_case", {"case_name": CASE})
        hit = data(await client.call_tool("search_case", {"query": HOSTING_FEE, "top_k": 1}))["results"][0]
        whole = await client.call_tool("get_chunk", {"chunk_id": hit["chunk_id"]})
        pinned = await client.call_tool(
            "get_chunk", {"chunk_id": hit["chunk_id"], "neighbours": 0, "query": HOSTING_FEE}
        )
        wrong = await client.call_tool("get_chunk", {"chunk_id": "nope-1-00000"})
        return whole, pinned, wrong

    whole, pinned, wrong = host.run(script)
    chunk = data(whole)
    assert chunk["case"] == CASE and HOSTING_FEE in chunk["text"]
    assert chunk["citation"].startswith(f"{HOSTING.name}, p. 1, paras. 1-")
    assert [n["citation"].split(", ")[1] for n in chunk["after"]] == ["p. 2"] and chunk["before"] == []
    assert chunk["citation"] in body(whole) and chunk["chunk_id"] in body(whole)
    pin = data(pinned)
    assert pin["citation"] == f"{HOSTING.name}, p. 1, para. 15, ll. 24-26" and pin["after"] == []
    assert pin["chunk_citation"] == chunk["citation"] and f"passage: {chunk['citation']}" in body(pinned)
    assert "search_case" in error(wrong)


def test_find_entity_and_the_table_of_authorities(host: Host) -> None:
    async def script(client: Client) -> tuple[CallToolResult, ...]:
        await client.call_tool("switch_case", {"case_name": CASE})
        judge = await client.call_tool("find_entity", {"entity": "Judge Smith"})
        typo = await client.call_tool("find_entity", {"entity": "Judge Smyth"})
        cited = await client.call_tool("list_authorities", {})
        cases = await client.call_tool("list_authorities", {"kind": "us_case"})
        return judge, typo, cited, cases

    judge, typo, cited, cases = host.run(script)
    found = data(judge)
    assert (found["entity"], found["exact_count"], found["fuzzy_count"]) == ("Judge Smith", 2, 0)
    assert [m["citation"] for m in found["documents"][0]["mentions"]] == [
        f"{MEMO}, para. 2, l. 3",
        f"{MEMO}, para. 3, l. 5",
    ]
    assert "2 exact, 0 close variants" in body(judge) and f"{MEMO}, para. 3, l. 5 [exact]" in body(judge)
    close = data(typo)
    assert close["exact_count"] == 0 and close["fuzzy_count"] == 2
    table = data(cited)
    assert [(a["key"], a["kind"]) for a in table["authorities"]] == [
        ("42 U.S.C. § 3604", "us_statute"),
        ("545 U.S. 469", "us_case"),
    ]
    assert table["authorities"][1]["cited_in"][0]["citation"] == f"{LEASE}, para. 6, l. 15"
    assert table["authorities"][1]["title"] == "Kelo v. City of New London, 545 U.S. 469"
    assert "Kelo v. City of New London, 545 U.S. 469 (us_case" in body(cited)
    assert "Table of authorities, Lease Dispute: 2 cited" in body(cited)
    assert [a["key"] for a in data(cases)["authorities"]] == ["545 U.S. 469"]


def test_find_entity_decodes_a_cnj_number_and_flags_wrong_check_digits(host: Host) -> None:
    """A CNJ number asked for (none in this English case): its tribunal, and a typo flagged."""
    wrong = host.call("find_entity", {"case_name": CASE, "entity": "0604337-81.2018.6.00.0000"})
    out = data(wrong)
    assert out["process_number"]["valid"] is False and out["process_number"]["expected_check_digits"] == "47"
    assert "wrong check digits (81; its other digits give 47)" in body(wrong)
    right = data(host.call("find_entity", {"case_name": CASE, "entity": "0022341-69.2014.8.26.0506"}))
    assert right["process_number"]["tribunal"] == "TJSP" and not any(
        "check digits" in w for w in right["warnings"]
    )
