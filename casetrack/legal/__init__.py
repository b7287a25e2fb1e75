"""Deterministic legal metadata: CNJ numbers, tribunals, legislation, case law, US citations, document
type and date, statute structure. Pure functions over text: no store, no models."""
