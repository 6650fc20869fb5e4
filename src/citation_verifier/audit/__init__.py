"""Audit trail: one record per verdict, content-addressed page snapshots, replay and re-judge.

Modules: ``records`` (the record types), ``snapshots`` (zstd files keyed by SHA-256),
``schema`` + ``migrations`` (the SQL table, Alembic), ``database`` (engines, SQLite WAL),
``store`` (the Store protocol and its SQLAlchemy Core implementation), ``recorder`` (what the
Verifier calls), ``quotes`` (quote offsets), ``replay``, ``rejudge``, ``prune``, ``export`` and
``cli`` (``citation-verifier audit ...``). Importing this package opens nothing.
"""
