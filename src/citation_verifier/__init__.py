"""citation-verifier: check whether the pages an LLM cited say what it claimed.

Pipeline: fetch → extract → passages → retrieve → judge → guard → aggregate.
Importing the package loads no model and opens no connection.
"""

from citation_verifier.models import Label, Reason, UrlVerdict, VerifyRequest, VerifyResult

__version__ = "0.1.0"

__all__ = ["Label", "Reason", "UrlVerdict", "VerifyRequest", "VerifyResult", "__version__"]
