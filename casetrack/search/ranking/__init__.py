"""search_case: recall, ranked lists, fusion, the ranking steps in order and the page of hits (pipeline.py reads top to bottom)."""
