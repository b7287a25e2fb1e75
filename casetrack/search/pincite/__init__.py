"""Pin-cites: the lines of a chunk that answer a query, with their own page, paragraph and line provenance."""
