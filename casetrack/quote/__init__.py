"""Quotes against text: fold both to the characters that matter, align them, diff the words."""
