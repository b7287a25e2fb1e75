"""E-mail: .eml messages (header lines, then the readable body; attachments listed) and .mbox
mailboxes, split into messages by ingest."""
