"""Plain text and Markdown: one unpaged Page whose line numbers are the file's own."""
