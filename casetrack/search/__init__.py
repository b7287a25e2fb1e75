"""Services layer: the four-stage search (recall, fusion, boost, rerank), its settings and runtime, exact-match signals, snippets, filters and find_entity."""
