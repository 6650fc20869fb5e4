"""``python -m citation_verifier.batch INPUT.jsonl --out citation_report.csv``."""

from citation_verifier.batch.command import main

main()
