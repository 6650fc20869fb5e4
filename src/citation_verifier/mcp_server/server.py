"""The MCP server: tools ``verify_claim`` (the API's ``/verify``) and ``check_answer`` (its
``/check-answer``), answered by one verifier built for the server's lifetime, under the HTTP
API's limits. Build it with :func:`create_server`; :func:`http_app` is its streamable HTTP
transport behind the API's key check."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, ValidationError
from starlette.types import ASGIApp

from citation_verifier import __version__
from citation_verifier.answers.check import check_statements
from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.answers.parse import parse_answer
from citation_verifier.deadline import request_deadline
from citation_verifier.errors import ConfigurationError, validation_message
from citation_verifier.models import (
    CITED_AT_DESCRIPTION,
    COMPARE_ARCHIVE_DESCRIPTION,
    VerifyRequest,
    VerifyResult,
)
from citation_verifier.retrieve import Embedder
from citation_verifier.service.admission import Admission, Overloaded
from citation_verifier.service.limits import (
    Problem,
    answer_length_problem,
    answer_urls_problem,
    claim_problem,
)
from citation_verifier.service.metrics import ServiceMetrics
from citation_verifier.service.middleware import RequestLimits
from citation_verifier.service.state import ServiceState
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier

MCP_PATH = "/mcp"
"""Where the streamable HTTP transport answers."""

INSTRUCTIONS = (
    "Checks whether the web pages an LLM cited actually say what it claimed. verify_claim: one "
    "claim and the URLs cited for it. check_answer: a whole answer with [n] markers or inline "
    "links (and its citations array). Labels: supported, contradicted, not_found, unreachable. "
    "A page we could not read (a bot challenge, a consent or login wall, a paywall, an age "
    "gate, a geo block, a rate limit) is unreachable, never not_found: its could_not_read says "
    "what stood in front of it, in words."
)

_T = TypeVar("_T")


@dataclass
class ServerState:
    """What the server holds while it runs: the service's state (one verifier with its page
    and verdict caches, or the configuration error that prevented building it) and the
    service's admission gate, so MCP calls get the same back-pressure as API requests."""

    service: ServiceState
    admission: Admission


CitedAt = Annotated[str | None, Field(description=CITED_AT_DESCRIPTION)]
CompareArchive = Annotated[bool, Field(description=COMPARE_ARCHIVE_DESCRIPTION)]

ToolContext = Context[ServerState, Any]
"""What a tool is handed: the request (progress token) and the :class:`ServerState`."""


def _refuse(problem: Problem) -> None:
    """A request over a service limit is a tool error worded like the API's 422."""
    if problem is not None:
        field, message = problem
        raise ToolError(f"invalid arguments: {field}: {message}")


def _invalid(error: ValidationError) -> ToolError:
    return ToolError(f"invalid arguments: {validation_message(error, 'arguments')}")


class _Tool(Tool):
    """A tool whose arguments, when the SDK refuses them against the signature (one missing,
    ``urls`` given as a string), are worded as our own checks word theirs: the SDK would
    answer with pydantic's dump, its documentation URL included."""

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        """Run the tool as the SDK does; a refusal of its arguments in our words."""
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as error:
            # The SDK's own mark of a refusal: a deliberate ToolError caused by validation.
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            # The cause stays: the SDK logs a refusal by field names, never the values.
            raise ToolError(f"Error executing tool {self.name}: {_invalid(cause)}") from cause


async def _run(ctx: ToolContext, work: Callable[[Verifier], Awaitable[_T]]) -> _T:
    """``work`` with the server's verifier, in an admission slot; every failure that is not a
    result (not configured, too busy) becomes a tool error that says what to do."""
    state = ctx.request_context.lifespan_context
    verifier = state.service.verifier
    if verifier is None:  # the state kept a configuration error: name it, and stay up
        raise ToolError(f"server not ready: {state.service.error}")
    try:
        async with state.admission.slot():
            return await work(verifier)
    except Overloaded as busy:
        raise ToolError(f"{busy}; retry in {busy.retry_after_s} s") from None
    except ConfigurationError as error:
        raise ToolError(f"server misconfigured: {error}") from None


async def verify_claim(
    claim: Annotated[
        str, Field(description="The statement to check, as the LLM (or a person) wrote it.")
    ],
    urls: Annotated[
        list[str],
        Field(description="The http(s) URLs cited for the claim; each is fetched and judged."),
    ],
    ctx: ToolContext,
    cited_at: CitedAt = None,
    compare_archive: CompareArchive = False,
) -> VerifyResult:
    """Verify ``claim`` against each of ``urls``: one verdict per URL, in order, and the
    overall label (the API's ``/verify``), reporting progress as pages load and are judged."""
    settings = ctx.request_context.lifespan_context.service.settings
    deadline = request_deadline(settings)
    try:
        request = VerifyRequest(
            claim=claim, urls=urls, cited_at=cited_at, compare_archive=compare_archive
        )
    except ValidationError as error:
        raise _invalid(error) from None
    _refuse(claim_problem(request, settings))

    async def progress(done: int, total: int, message: str) -> None:
        await ctx.report_progress(done, total, message)

    async def verify(verifier: Verifier) -> VerifyResult:
        return await verifier.verify(request, progress=progress, deadline=deadline)

    return await _run(ctx, verify)


async def check_answer(
    answer: Annotated[
        str,
        Field(
            description="The LLM answer (Markdown or plain text) with its citation markers "
            "([1], [2], ...) or inline links."
        ),
    ],
    citations: Annotated[
        list[str] | None,
        Field(
            description="The sources the [n] markers refer to, in order: [1] is the first URL. "
            "Omit when the answer carries its links inline or in a Sources list."
        ),
    ] = None,
    cited_at: CitedAt = None,
    compare_archive: CompareArchive = False,
    *,
    ctx: ToolContext,
) -> AnswerResult:
    """Check every citation of ``answer`` (the API's ``/check-answer``), reporting progress as
    pages load and statement/URL pairs are judged."""
    settings = ctx.request_context.lifespan_context.service.settings
    deadline = request_deadline(settings)
    _refuse(answer_length_problem(answer, settings))
    try:
        request = AnswerRequest(
            answer=answer,
            citations=None if citations is None else list(citations),
            cited_at=cited_at,
            compare_archive=compare_archive,
        )
    except ValidationError as error:
        raise _invalid(error) from None

    async def progress(done: int, total: int, message: str) -> None:
        await ctx.report_progress(done, total, message)

    async def check(verifier: Verifier) -> AnswerResult:
        # Parsed in a slot and off the event loop, as the HTTP service does.
        language = await asyncio.to_thread(verifier.languages.best, request.answer)
        statements = await asyncio.to_thread(
            parse_answer, request.answer, request.citation_urls(), language
        )
        _refuse(answer_urls_problem(statements, settings))
        return await check_statements(
            verifier,
            statements,
            progress=progress,
            cited_at=request.cited_at,
            compare_archive=request.compare_archive,
            deadline=deadline,
            language=language,
        )

    return await _run(ctx, check)


def _tool(fn: Callable[..., Any], description: str, output: type[BaseModel]) -> Tool:
    tool = _Tool.from_function(
        fn,
        description=description,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
        structured_output=True,
    )
    # The serialisation schema, as the API's OpenAPI document has it: it lists the computed
    # judge totals that the structured result carries (the SDK derives the input-side one).
    tool.fn_metadata.output_schema = output.model_json_schema(mode="serialization")
    return tool


def create_server(
    settings: Settings, *, embedder: Embedder | None = None
) -> MCPServer[ServerState]:
    """The MCP server for ``settings``. Its lifespan builds one verifier (as the HTTP service
    does: page and verdict caches, the embedding model loaded up front) and closes it at the
    end; a configuration error is kept, so the server runs and every tool call names it."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[ServerState]) -> AsyncIterator[ServerState]:
        # ServiceState wants metrics for its timed stages; nothing here serves them.
        service = ServiceState(settings, ServiceMetrics(), embedder)
        admission = Admission(
            settings.service_max_in_flight,
            settings.service_max_waiting,
            settings.service_wait_timeout_s,
            settings.service_retry_after_s,
        )
        await service.start()
        try:
            yield ServerState(service, admission)
        finally:
            await service.stop()

    urls, claim_chars = settings.service_max_urls, settings.max_claim_chars
    tools = [
        _tool(
            verify_claim,
            "Check whether the pages cited for a claim actually say it. Each URL (http or "
            "https) is fetched, the passages most relevant to the claim are found and judged: "
            "every citation gets a label (supported, contradicted, not_found, unreachable) with "
            "an evidence quote from the page and a reason when it could not be read "
            "(`could_not_read` names the wall in words: bot challenge, consent or login wall, "
            f"paywall, ...); `overall` combines them. At most {urls} URLs and {claim_chars} "
            "characters of claim.",
            VerifyResult,
        ),
        _tool(
            check_answer,
            "Check every citation in an LLM answer. The answer is split into statements; [n] "
            "markers are resolved against `citations` ([1] is its first URL) or the answer's "
            "own Sources list, and inline links are taken as written; each statement is "
            "verified against each page it cites (every page is fetched once). Returns one row "
            "per statement with its label and verdicts, the counts per label and "
            "citation_precision (supported citations / verified citations). A statement no "
            "citation states alone is read fact by fact (`facts`: supported when its citations "
            "together state it, partial when only some facts) and on the answer's other "
            "sources (`misattributed`: [k] states it instead); citation_recall and "
            "citation_precision_liu are Liu et al.'s figures. At most "
            f"{settings.max_answer_chars} characters of answer, citing at most {urls} "
            "distinct URLs.",
            AnswerResult,
        ),
    ]
    return MCPServer(
        "citation-verifier",
        version=__version__,
        instructions=INSTRUCTIONS,
        tools=tools,
        lifespan=lifespan,
    )


def http_app(server: MCPServer[ServerState], settings: Settings, host: str) -> ASGIApp:
    """The streamable HTTP transport at :data:`MCP_PATH`, behind the HTTP API's own request
    limits: the body cap, and ``Authorization: Bearer <SERVICE_API_KEY>`` when the key is set.
    ``host`` is where it listens: on loopback the SDK also refuses other ``Host`` headers."""
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=host,
        max_request_body_size=settings.service_max_body_bytes,
    )
    return RequestLimits(
        app,
        max_body_bytes=settings.service_max_body_bytes,
        api_key=settings.service_api_key,
        protected_paths=[MCP_PATH, MCP_PATH + "/"],
    )
