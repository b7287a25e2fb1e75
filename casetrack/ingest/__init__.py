"""Services layer: files into a case: validate, parse, chunk, embed and commit each file (one per-file result each), and re-embedding with newer models."""
