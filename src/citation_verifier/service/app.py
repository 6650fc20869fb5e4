"""The HTTP service: ``GET /health``, ``GET /ready``, ``POST /verify``, ``POST
/check-answer``, ``POST /promptfoo`` (promptfoo's webhook assertion), ``GET /metrics`` and the
web page at ``/``. Build it with :func:`create_app`; ``citation-verifier serve`` runs it under
uvicorn.

Status codes of ``/verify``, ``/check-answer`` and ``/promptfoo``: 200 with the verdicts; 401
without the service's API key (when ``SERVICE_API_KEY`` is set); 413 body too large; 415 a body
not sent with ``Content-Type: application/json``; 422 invalid request (with a readable message; a
body that is not JSON is named with the line and column where it breaks); 429 too busy (with
``Retry-After``); 503 a configured backend is missing its key (the message names the variable,
never its value).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Body, Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from citation_verifier import __version__
from citation_verifier.answers.check import check_statements
from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.answers.parse import parse_answer
from citation_verifier.deadline import request_deadline
from citation_verifier.errors import ConfigurationError, plain_message
from citation_verifier.integrations.promptfoo import grading_result
from citation_verifier.integrations.text import Figure
from citation_verifier.models import VerifyRequest, VerifyResult
from citation_verifier.retrieve import Embedder
from citation_verifier.service.admission import Admission, Overloaded
from citation_verifier.service.heap import heap_trimmer, trim_when_idle
from citation_verifier.service.hosts import HostCheck, allowed_hosts
from citation_verifier.service.limits import (
    answer_length_problem,
    answer_urls_problem,
    claim_problem,
)
from citation_verifier.service.metrics import ServiceMetrics
from citation_verifier.service.middleware import AccessLog, RequestLimits, bearer_matches
from citation_verifier.service.promptfoo import (
    PromptfooGrade,
    PromptfooWebhook,
    answer_request,
    failing,
    threshold_of,
)
from citation_verifier.service.state import ServiceState
from citation_verifier.settings import Settings
from citation_verifier.utf8 import utf8_problem
from citation_verifier.verifier import Verifier

_T = TypeVar("_T")

WEB_DIR = Path(__file__).parent / "web"
DISCONNECT_POLL_S = 0.5
"""How often a request in flight looks whether its client is still there."""
# What SERVICE_API_KEY protects: the work (it spends CPU, fetches and judge calls) and what
# tells about traffic (metrics). Liveness, the web page and its assets, and the schema stay
# open: probes and browsers load them before anyone can type a key, and they reveal nothing
# about the configuration. /ready answers without the key but keeps its detail for callers
# that send it (the detail names settings and the judge's last failure).
PROTECTED_PATHS = ("/verify", "/check-answer", "/promptfoo", "/metrics")
# The page loads only what the app serves: no CDN, no inline script.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


class ErrorBody(BaseModel):
    """Every error answer: a message for people, and the field errors for 422."""

    detail: str
    errors: list[dict[str, str]] | None = None


class Health(BaseModel):
    """Liveness: the process runs."""

    status: str = "ok"
    version: str = __version__


class Readiness(BaseModel):
    """Readiness: the model is loaded and every configured backend has what it needs."""

    status: str
    detail: str | None = None


WATER_REQUEST = {
    "claim": "Water boils at 100 degrees Celsius at sea level.",
    "urls": [
        "https://example.com/articles/water-boiling-point",
        "https://example.com/old-report",
    ],
}
WATER_RESPONSE: dict[str, Any] = {
    "claim": "Water boils at 100 degrees Celsius at sea level.",
    "overall": "supported",
    "citations": [
        {
            "url": "https://example.com/articles/water-boiling-point",
            "label": "supported",
            "evidence_quote": "Water boils at 100 degrees Celsius at sea level.",
            "confidence": 0.96,
            "final_url": "https://example.com/articles/water-boiling-point",
            "original_status": 200,
            "rid": None,
            "reason": None,
        },
        {
            "url": "https://example.com/old-report",
            "label": "unreachable",
            "evidence_quote": None,
            "confidence": 1.0,
            "final_url": "https://example.com/old-report",
            "original_status": 404,
            "rid": None,
            "reason": "http_404",
        },
    ],
}


ANSWER_REQUEST = {
    "answer": (
        "Water boils at 100 degrees Celsius at sea level [1]. Sourdough is a bread.\n\n"
        "Sources:\n[1] https://example.com/articles/water-boiling-point"
    )
}
ANSWER_WITH_CITATIONS = {
    "answer": "Water boils at 100 degrees Celsius at sea level [1]. Sourdough is a bread.",
    "citations": ["https://example.com/articles/water-boiling-point"],
}
ANSWER_RESPONSE: dict[str, Any] = {
    "statements": [
        {
            "text": "Water boils at 100 degrees Celsius at sea level [1].",
            "claim": "Water boils at 100 degrees Celsius at sea level.",
            "overall": "supported",
            "citations": [WATER_RESPONSE["citations"][0]],
            "markers": [
                {
                    "text": "[1]",
                    "urls": ["https://example.com/articles/water-boiling-point"],
                    "problems": [],
                }
            ],
            "problems": [],
            "facts": [],
            "misattributed": [],
            "supporting_urls": ["https://example.com/articles/water-boiling-point"],
        },
        {
            "text": "Sourdough is a bread.",
            "claim": "Sourdough is a bread.",
            "overall": "uncited",
            "citations": [],
            "markers": [],
            "problems": [],
            "facts": [],
            "misattributed": [],
            "supporting_urls": [],
        },
    ],
    "citation_precision": 1.0,
    "citations": 1,
    "supported_citations": 1,
    "citation_recall": 0.5,
    "recall_statements": 2,
    "citation_precision_liu": 1.0,
    "supporting_citations": 1,
    "judged_citations": 1,
    "supported": 1,
    "partial": 0,
    "contradicted": 0,
    "not_found": 0,
    "unreachable": 0,
    "uncited": 1,
    "unresolved": 0,
    "misattributed": 0,
    "unique_urls": 1,
    "credits": 0.0,
}

PROMPTFOO_REQUEST = {
    "output": ANSWER_REQUEST["answer"],
    "context": {"prompt": "Where does water boil?", "vars": {"threshold": 0.5}},
}
PROMPTFOO_RESPONSE = grading_result(ANSWER_RESPONSE, 0.5, "citation_recall")

# The error answers /verify and /check-answer share (each adds its own 200 and 422).
_SHARED_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "SERVICE_API_KEY is set; bearer missing."},
    413: {"model": ErrorBody, "description": "Body over SERVICE_MAX_BODY_BYTES."},
    415: {"model": ErrorBody, "description": "Body not sent as Content-Type: application/json."},
    429: {"model": ErrorBody, "description": "Too busy; retry after Retry-After s."},
    503: {"model": ErrorBody, "description": "A configured backend lacks its key."},
}


def _error(status: int, detail: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(ErrorBody(detail=detail).model_dump(exclude_none=True), status, headers)


def _invalid(field: str, message: str) -> JSONResponse:
    """422 for a limit the schema cannot express (it depends on settings), shaped like the
    framework's validation errors."""
    body = ErrorBody(
        detail=f"invalid request: {field}: {message}",
        errors=[{"field": field, "message": message}],
    )
    return JSONResponse(body.model_dump(), 422)


def _is_json(content_type: str | None) -> bool:
    """Whether ``content_type`` is one FastAPI reads a body as JSON for: ``application/json``
    or ``application/<anything>+json``, parameters (``charset``) aside."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _json_only(request: Request) -> None:
    """The JSON routes' check of the body's media type: anything but JSON, and no
    ``Content-Type`` at all, is 415 naming the header to send. FastAPI would leave such a
    body unread and answer "Input should be a valid dictionary"; and a missing type is not
    guessed as JSON: a web page can POST a body without one (no CORS preflight) to a service
    on loopback."""
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        sent = f"the body was sent as {content_type[:100]!r}" if content_type else "no Content-Type"
        raise HTTPException(
            415, f"unsupported media type: {sent}; send JSON with Content-Type: application/json"
        )


def _not_json(item: Mapping[str, Any], document: object) -> str:
    """What FastAPI's ``json_invalid`` error says of the body, in words: where it breaks (line
    and column, as the CLI says of an answer file) and the parser's reason. The error's
    location holds the offset, which is no field."""
    position = item.get("loc", ())[-1]
    reason = (item.get("ctx") or {}).get("error", "cannot be parsed")
    if isinstance(document, str) and isinstance(position, int):
        line = document.count("\n", 0, position) + 1
        column = position - document.rfind("\n", 0, position)
        return f"not valid JSON (line {line}, column {column}: {reason})"
    return f"not valid JSON ({reason})"


def _bad_body(problem: str) -> JSONResponse:
    """422 for a body that cannot be read at all (not UTF-8, not JSON): the body is its field."""
    body = ErrorBody(
        detail=f"invalid request: the body is {problem}",
        errors=[{"field": "body", "message": problem}],
    )
    return JSONResponse(body.model_dump(), 422)


def _field_errors(error: RequestValidationError) -> list[dict[str, str]]:
    out = []
    for item in error.errors():
        loc = [str(part) for part in item.get("loc", ()) if part != "body"]
        out.append({"field": ".".join(loc) or "body", "message": plain_message(item)})
    return out


def create_app(
    settings: Settings | None = None,
    *,
    embedder: Embedder | None = None,
    listen_host: str = "127.0.0.1",
    warm_up: bool = False,
) -> FastAPI:
    """The service for ``settings`` (read from the environment when None). ``embedder`` lets
    a caller share an already loaded model; by default the app loads its own at startup.
    ``listen_host`` is where it is served: on loopback it answers loopback ``Host`` names only
    (DNS rebinding), unless SERVICE_ALLOWED_HOSTS says otherwise. ``warm_up``: once ready,
    load the checker's model and the parsers in the background (``serve`` does; a process
    that imports modules meanwhile may hit CPython 3.11.7's non-thread-safe parser)."""
    settings = settings or Settings()
    metrics = ServiceMetrics()
    state = ServiceState(settings, metrics, embedder, warm_up=warm_up)
    admission = Admission(
        settings.service_max_in_flight,
        settings.service_max_waiting,
        settings.service_wait_timeout_s,
        settings.service_retry_after_s,
        on_idle=trim_when_idle(heap_trimmer()),
    )
    metrics.in_flight.set_function(lambda: admission.in_flight)
    metrics.waiting.set_function(lambda: admission.waiting)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await state.start()
        try:
            yield
        finally:
            await state.stop()

    app = FastAPI(
        title="citation-verifier",
        version=__version__,
        summary="Check whether the pages an LLM cited actually say what it claimed.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load from a CDN; the schema is at /openapi.json
        redoc_url=None,
    )
    app.add_middleware(
        RequestLimits,
        max_body_bytes=settings.service_max_body_bytes,
        api_key=settings.service_api_key,
        protected_paths=PROTECTED_PATHS,
    )
    hosts = allowed_hosts(listen_host, settings.service_allowed_hosts)
    if hosts is not None:
        app.add_middleware(HostCheck, allowed=hosts)
    app.add_middleware(AccessLog, metrics=metrics)
    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        if error.status_code == 400:  # FastAPI's "error parsing the body" (e.g. not UTF-8)
            # The same words as the CLI's and a batch line's: which byte, where.
            return _bad_body(utf8_problem(await request.body()) or "not valid JSON")
        return _error(error.status_code, str(error.detail), error.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        unparsed = [item for item in error.errors() if item.get("type") == "json_invalid"]
        if unparsed:  # the body as a whole; bytes that are not UTF-8 named as above
            return _bad_body(
                utf8_problem(await request.body()) or _not_json(unparsed[0], error.body)
            )
        errors = _field_errors(error)
        detail = "invalid request: " + "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        body = ErrorBody(detail=detail, errors=errors)
        return JSONResponse(body.model_dump(), 422)

    async def admitted(stage: str, work: Callable[[Verifier], Awaitable[_T]]) -> _T | JSONResponse:
        """``work`` on the service's verifier in an admission slot, timed as ``stage``; what
        stops it (not ready, too busy, misconfigured) is the matching error answer."""
        verifier = state.verifier
        if verifier is None:
            metrics.rejected.labels(why="not_configured").inc()
            return _error(503, f"service not ready: {state.error}")
        try:
            async with admission.slot():
                started = time.perf_counter()
                result = await work(verifier)
        except Overloaded as busy:
            metrics.rejected.labels(why="overloaded").inc()
            return _error(429, str(busy), {"Retry-After": str(busy.retry_after_s)})
        except ConfigurationError as error:
            metrics.rejected.labels(why="not_configured").inc()
            return _error(503, f"service misconfigured: {error}")
        metrics.observe_stage(stage, time.perf_counter() - started)
        return result

    async def until_disconnected(request: Request, work: Awaitable[_T]) -> _T | Response:
        """``work``'s result; once the client has gone, ``work`` is cancelled (nobody is left
        to read its answer) and a 499 is logged instead."""
        task = asyncio.ensure_future(work)
        try:
            while not (await asyncio.wait({task}, timeout=DISCONNECT_POLL_S))[0]:
                if await request.is_disconnected():
                    task.cancel()
                    metrics.rejected.labels(why="client_gone").inc()
                    return Response(status_code=499)
            return task.result()
        finally:
            task.cancel()  # a no-op once done; the work stops when the handler is cancelled

    async def checked_answer(
        request: Request, body: AnswerRequest
    ) -> AnswerResult | Response | tuple[str, str]:
        """``body``'s answer checked in an admission slot (cancelled when the client goes),
        recorded in the metrics; or the field and problem that keep it from being checked."""
        deadline = request_deadline(settings)  # from the request's arrival
        problem = answer_length_problem(body.answer, settings)
        if problem is not None:
            return problem

        async def check(verifier: Verifier) -> AnswerResult | tuple[str, str]:
            # Parsed in a slot and off the event loop: a flood of long answers waits for
            # admission (or gets 429) instead of stalling /health.
            language = await asyncio.to_thread(verifier.languages.best, body.answer)
            statements = await asyncio.to_thread(
                parse_answer, body.answer, body.citation_urls(), language
            )
            problem = answer_urls_problem(statements, settings)
            if problem is not None:
                return problem
            return await check_statements(
                verifier,
                statements,
                cited_at=body.cited_at,
                compare_archive=body.compare_archive,
                deadline=deadline,
                language=language,
            )

        result = await until_disconnected(request, admitted("check_answer", check))
        if isinstance(result, AnswerResult):
            metrics.record_answer(result)
            request.state.log_extra = {
                "statements": len(result.statements),
                "urls": result.unique_urls,
                "citation_precision": result.citation_precision,
            }
        return result

    @app.get("/health", response_model=Health, tags=["operations"])
    async def health() -> Health:
        """Liveness: 200 while the process runs. Reveals no configuration."""
        return Health()

    @app.get(
        "/ready",
        response_model=Readiness,
        tags=["operations"],
        responses={503: {"model": Readiness, "description": "Not ready; detail says why."}},
    )
    async def ready(request: Request) -> Readiness | JSONResponse:
        """Readiness: the model is loaded, the configured backends have their keys, and the
        judge's last call did not fail (an unreachable provider is not ready). With
        SERVICE_API_KEY set, ``detail`` is given only to callers that send the key."""
        key = settings.service_api_key
        told = key is None or bearer_matches(request.headers.get("authorization"), key)
        if state.verifier is None:
            body = Readiness(status="not_ready", detail=state.error if told else None)
            return JSONResponse(body.model_dump(), 503)
        if state.judge_failure is not None:
            detail = f"judge failing: {state.judge_failure}" if told else None
            return JSONResponse(Readiness(status="not_ready", detail=detail).model_dump(), 503)
        return Readiness(status="ready")

    @app.get("/metrics", tags=["operations"], response_class=Response)
    async def prometheus_metrics() -> Response:
        """Prometheus text format: requests, latency per route and stage, verdicts, failures."""
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(
            WEB_DIR / "index.html",
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": PAGE_CSP, "X-Content-Type-Options": "nosniff"},
        )

    @app.post(
        "/verify",
        response_model=VerifyResult,
        dependencies=[Depends(_json_only)],
        tags=["verification"],
        responses={
            200: {"content": {"application/json": {"example": WATER_RESPONSE}}},
            422: {"model": ErrorBody, "description": "Invalid claim or URLs; detail says what."},
            **_SHARED_RESPONSES,
        },
    )
    async def verify(
        request: Request,
        body: Annotated[
            VerifyRequest,
            Body(
                openapi_examples={"water": {"summary": "The water example", "value": WATER_REQUEST}}
            ),
        ],
    ) -> VerifyResult | Response:
        """Verify one claim against each cited URL: one verdict per URL, in order,
        and the overall label."""
        deadline = request_deadline(settings)  # from the request's arrival
        problem = claim_problem(body, settings)
        if problem is not None:
            return _invalid(*problem)
        result = await until_disconnected(
            request,
            admitted("verify", lambda verifier: verifier.verify(body, deadline=deadline)),
        )
        if isinstance(result, Response):
            return result
        metrics.record_result(result)
        request.state.log_extra = {"urls": len(body.urls), "overall": result.overall.value}
        return result

    @app.post(
        "/check-answer",
        response_model=AnswerResult,
        dependencies=[Depends(_json_only)],
        tags=["verification"],
        responses={
            200: {"content": {"application/json": {"example": ANSWER_RESPONSE}}},
            422: {"model": ErrorBody, "description": "Invalid answer or citations."},
            **_SHARED_RESPONSES,
        },
    )
    async def check_answer_route(
        request: Request,
        body: Annotated[
            AnswerRequest,
            Body(
                openapi_examples={
                    "sources": {
                        "summary": "Markdown with a Sources list",
                        "value": ANSWER_REQUEST,
                    },
                    "citations": {
                        "summary": "Text and a citations array ([1] is its first URL)",
                        "value": ANSWER_WITH_CITATIONS,
                    },
                }
            ),
        ],
    ) -> AnswerResult | Response:
        """Check a whole answer: split it into statements, verify each statement against the
        URLs its markers or links cite (each URL fetched once), and report per statement
        (uncited ones included) and the answer's citation precision."""
        result = await checked_answer(request, body)
        return _invalid(*result) if isinstance(result, tuple) else result

    @app.post(
        "/promptfoo",
        response_model=PromptfooGrade,
        dependencies=[Depends(_json_only)],
        tags=["integrations"],
        responses={
            200: {"content": {"application/json": {"example": PROMPTFOO_RESPONSE}}},
            422: {"model": ErrorBody, "description": "Not the body of promptfoo's webhook."},
            **_SHARED_RESPONSES,
        },
    )
    async def promptfoo_route(
        request: Request,
        body: Annotated[
            PromptfooWebhook,
            Body(
                openapi_examples={
                    "webhook": {"summary": "What promptfoo posts", "value": PROMPTFOO_REQUEST}
                }
            ),
        ],
        threshold: Annotated[float, Query(ge=0.0, le=1.0)] = 0.5,
        figure: Figure = "citation_recall",
    ) -> dict[str, Any] | Response:
        """promptfoo's `webhook` assertion: the output checked as an answer, graded as the
        Python assertion grades it. Passes when `figure` reaches the test's `threshold` var,
        else the `threshold` parameter; an output that cannot be checked fails, saying why."""
        answer = answer_request(body)
        if isinstance(answer, str):
            return failing(answer)
        limit = threshold_of(body, threshold)
        if isinstance(limit, str):
            return failing(limit)
        result = await checked_answer(request, answer)
        if isinstance(result, tuple):
            return failing(": ".join(result))
        if isinstance(result, Response):
            return result
        return grading_result(result.model_dump(mode="json"), limit, figure)

    return app
