"""Components layer: a parsed page into ~500-token chunks with exact provenance, sentence splitting (EN + PT legal abbreviations) and passage windows."""
