"""The HTTP service: the FastAPI app (``app``), what it holds while it runs (``state``),
admission control, stage timing, metrics, request logs, the uvicorn runner and ``serve``."""
