"""Fetch stage: backends that load a URL, and the SPEC §3 policy chain they all run through."""
