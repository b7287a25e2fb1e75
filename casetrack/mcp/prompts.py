"""MCP prompts: ready-made instructions a user can pick in the host to start a piece of work."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.prompts.base import Prompt
from pydantic import Field


def research_question(
    question: Annotated[str, Field(description="The legal question to research in the case's documents")],
    case_name: Annotated[
        str | None, Field(description="The case to search (default: the active case)")
    ] = None,
) -> str:
    """A thorough search of one case for one question, ending in checked, cited quotes."""
    case = f'the case "{case_name}" (pass case_name="{case_name}")' if case_name else "the active case"
    return (
        f"Research this question in {case} with the CaseTrack tools, and answer only from its documents:\n\n"
        f"{question}\n\n"
        "1. Call search_case with the question as query, plus keywords (3-5 alternative searches in the "
        "documents' own terms: terms of art, the clause's usual heading, synonyms, the other language's term) "
        "and likely_wording (one to three sentences as the document would probably word the answer).\n"
        "2. Search again with other words where the first results are weak or only partly answer: another "
        "angle of the question, another clause, the other language; use document_filter when one document "
        "clearly holds the answer.\n"
        "3. Read the best passages in full with get_chunk (query = the question), neighbours included.\n"
        "4. Before quoting any passage, check it with verify_citation(quote, citation).\n"
        "5. Answer with the citations CaseTrack gives. If no_good_match is true or nothing answers, say the "
        "case does not appear to address it, and say what was searched."
    )


PROMPTS: tuple[Prompt, ...] = (
    Prompt.from_function(research_question, title="Research a question in a case"),
)
