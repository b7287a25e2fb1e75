"""RTF (Word, WordPad, court systems): its paragraphs, tables, list numbers and footnotes as one
unpaged Page."""
