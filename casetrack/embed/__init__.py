"""Components layer: the ONNX encoders (dense, sparse, late interaction), the embedder pool and memory tiers, and model catalog, download, import and verify."""
