"""The query, read once: its terms, the question inside it, each term's role, its exact-match signals."""

from casetrack.search.query.analysis import Analyzer, Query, analyse

__all__ = ["Analyzer", "Query", "analyse"]
