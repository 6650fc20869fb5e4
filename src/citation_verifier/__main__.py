"""``python -m citation_verifier`` runs the CLI."""

from citation_verifier.cli import main

main()
