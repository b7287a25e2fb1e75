"""Components layer: the ONNX encoders (dense, sparse, late interaction), the embedder pool and memory tiers, and model catalog, download, import and verify."""

import os

from casetrack.privacy import telemetry_off

# Before any embed module imports onnxruntime (dense.py and tokens.py do at the top): its
# telemetry starts at import and only the environment set beforehand stops it (privacy.py).
telemetry_off(os.environ)
