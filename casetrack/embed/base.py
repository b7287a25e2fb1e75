"""What every encoder role exposes about the model behind it."""

from __future__ import annotations

from casetrack.embed.catalog import ModelSpec


class EncoderBase:
    """The model an encoder runs: its spec, input limit and fingerprint (stored with vectors)."""

    def __init__(self, spec: ModelSpec) -> None:
        self._spec = spec

    @property
    def spec(self) -> ModelSpec:
        return self._spec

    @property
    def max_tokens(self) -> int:
        """Model input limit in tokens, special tokens, prefixes and markers included."""
        return self._spec.max_tokens

    @property
    def fingerprint(self) -> str:
        """`name@<12 hex of the ONNX sha256>`: which weights made a vector."""
        return self._spec.fingerprint
