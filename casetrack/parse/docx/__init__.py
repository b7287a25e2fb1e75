"""DOCX (WordprocessingML through docx2python): paragraphs, headings, Word's list numbers, table
rows, notes and rendered pages; struck-through (revoked) runs left out or marked."""
