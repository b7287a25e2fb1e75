"""PDF: one Page per PDF page, lines and paragraphs as laid out on it (columns, rotated text,
condensed transcript sheets); scanned pages OCR'd; bad redactions flagged."""
