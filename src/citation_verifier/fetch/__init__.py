"""Fetch stage: backends that load a URL, and the fetch policy chain they all run through."""
