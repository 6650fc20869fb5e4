"""Alembic migrations of the audit store, shipped in the package and run on first use."""
