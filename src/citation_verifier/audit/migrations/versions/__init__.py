"""Alembic revisions of the audit store, oldest first."""
