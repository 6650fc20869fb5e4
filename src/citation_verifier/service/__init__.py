"""Parts of the HTTP service (``citation_verifier.api``): admission control, stage timing,
metrics, request logs and the uvicorn runner."""
