"""citation-verifier: check whether the pages an LLM cited say what it claimed.

Pipeline: fetch → extract → passages → retrieve → judge → guard → aggregate.
Importing the package loads no model and opens no connection, and imports nothing until a
name is used: ``Checker`` (the library's object for scripts and notebooks, ``checker_api.py``)
and the result types (``models.py``) are imported on first use, so a process that needs only a
submodule (promptfoo's assertion, one process per test) pays for that alone.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citation_verifier.checker_api import Checker
    from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest, VerifyResult

__version__ = "0.1.0"

__all__ = [
    "Checker",
    "Label",
    "Reason",
    "UrlVerdict",
    "VerifyRequest",
    "VerifyResult",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # The pipeline's imports (HTTP, HTML, ONNX Runtime bindings) only for those who use them.
    if name == "Checker":
        from citation_verifier.checker_api import Checker

        return Checker
    if name in {"Label", "Reason", "UrlVerdict", "VerifyRequest", "VerifyResult"}:
        from citation_verifier import models

        return getattr(models, name)
    raise AttributeError(f"module 'citation_verifier' has no attribute {name!r}")
