"""Deposition and hearing transcripts (PDF, OCR'd and .txt pages): pages whose lines carry printed
margin numbers, read as the transcript prints them and cited by page:line."""
