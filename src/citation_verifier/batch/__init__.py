"""Batch scoring: JSONL of claims and cited URLs → per-citation report and precision.

Modules: ``records`` (input and line errors), ``engine`` (dedup by URL, bounded concurrency,
per-host politeness, checkpointing), ``checkpoint``, ``embed_cache``, ``summary``, ``reports``
(CSV/JSON), ``html_report``, ``ray_engine`` (``--engine ray``), ``command`` (the CLI).
Importing this package loads no model and starts nothing.
"""
