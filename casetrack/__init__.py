"""CaseTrack: local legal-document search with exact citations."""

__version__ = "0.1.0"
