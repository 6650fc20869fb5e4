"""Tests of the audit trail (audit/ package)."""
