"""Components layer: one case on disk: the registry, LanceDB tables, the tantivy index, the journal and commit protocol, the writer lock, documents and chunks by id."""
