"""Whole LLM answers: parse an answer into statements with the URLs each cites (``parse``),
verify every statement through the pipeline (``check``), and the ``check-answer`` command."""
