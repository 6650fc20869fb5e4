"""``citation-verifier demo``: a small site on 127.0.0.1 that exercises every rule, verified by
the real pipeline. Nothing here is precomputed: the labels printed are the pipeline's."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from citation_verifier.answers.check import check_answer
from citation_verifier.answers.models import AnswerRequest, AnswerResult
from citation_verifier.demo.archive import FakeArchive
from citation_verifier.demo.loopback import LoopbackSite, Page, redirect
from citation_verifier.demo.walls import CLOUDFLARE_CHALLENGE
from citation_verifier.models import SPEC_VERDICT_FIELDS, VerifyRequest, VerifyResult
from citation_verifier.pipeline import build_verifier
from citation_verifier.settings import Settings

_NAV = (
    '<nav><a href="/">Home</a> | <a href="/articles">Articles</a> | '
    '<a href="/about">About</a></nav>'
)
_FOOTER = "<footer><p>© 2026 Example Science Weekly. All rights reserved.</p></footer>"

BOILING_HTML = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The boiling point of water</title></head>
<body>{_NAV}
<main><article>
<h1>The boiling point of water</h1>
<p>Water boils at 100 degrees Celsius at sea level. This is the standard boiling point, measured
at a pressure of one standard atmosphere (101.325 kilopascals).</p>
<p>At higher altitudes the air pressure is lower, so water boils at a lower temperature. In Denver,
about 1,600 metres above sea level, water boils at roughly 95 degrees Celsius, which is why pasta
takes longer to cook there.</p>
<p>Dissolving salt in water raises its boiling point slightly, but the amount of salt used in
cooking changes it by less than one degree.</p>
</article></main>
{_FOOTER}</body></html>"""

HOME_HTML = f"""<!doctype html><html><head><title>Example Science Weekly</title></head><body>{_NAV}
<main><h1>Example Science Weekly</h1><p>Welcome. Browse our latest articles on physics,
chemistry and everyday science. New stories every week from our editors and contributors.</p>
<p>Subscribe to the newsletter to get the week's best articles in your inbox.</p></main>
{_FOOTER}</body></html>"""

SOFT_404_HTML = f"""<!doctype html><html><head><title>Page not found</title></head><body>{_NAV}
<main><h1>Sorry, this page no longer exists</h1><p>The page you are looking for may have been
moved or deleted.</p></main>{_FOOTER}</body></html>"""

THIN_HTML = f"""<!doctype html><html><head><title>Ocean facts</title></head><body>{_NAV}
<aside class="fact-box"><p>Quick fact: the Pacific Ocean is the largest and deepest ocean on Earth,
covering about 165 million square kilometres.</p></aside>{_FOOTER}</body></html>"""

# A single-page app: the article exists only after its script fetches it, so only the headless
# browser (Debian's Chromium, set up by `make demo`) can read it.
MOON_APP_HTML = """<!doctype html><html><head><title>Moon facts</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script>fetch('/api/moon').then(function (r) { return r.json(); }).then(function (data) {
  var article = document.createElement('article');
  article.innerHTML = '<h1>' + data.title + '</h1>' +
    data.paragraphs.map(function (p) { return '<p>' + p + '</p>'; }).join('');
  document.getElementById('root').appendChild(article);
});</script></body></html>"""
MOON_API_JSON = json.dumps(
    {
        "title": "Facts about the Moon",
        "paragraphs": [
            "The Moon is about 384,400 kilometres from Earth on average.",
            "Its diameter is about 3,474 kilometres, a little over a quarter of Earth's.",
            "The same side of the Moon always faces Earth because of tidal locking.",
        ],
    }
)

PDF_LINES = (
    "Annual Report on Glaciers",
    "",
    "Mount Everest is 8,849 metres tall according to the 2020 survey.",
    "The survey was carried out jointly by China and Nepal.",
)


EIFFEL_PDF_LINES = (
    "The Eiffel Tower",
    "",
    "The Eiffel Tower in Paris is about 330 metres tall.",
    "It was completed in 1889 for the World's Fair.",
)


def make_pdf(lines: tuple[str, ...] | list[str]) -> bytes:
    """A one-page PDF with ``lines`` in Helvetica (ASCII text): enough for text extraction."""
    stream_lines = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
    for line in lines:
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream_lines.append(f"({escaped}) Tj T*")
    stream_lines.append("ET")
    content = "\n".join(stream_lines).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


WALLED_PATH = "/science/members-only-story"


def demo_routes() -> dict[str, Page]:
    """The demo site's pages."""
    return {
        "/": Page(HOME_HTML),
        "/articles/water-boiling-point": Page(BOILING_HTML),
        "/old-report": Page("<html><body><h1>404 Not Found</h1></body></html>", status=404),
        "/2019/10/deep-link-to-moved-story": redirect("/"),
        "/news/lost-story": Page(SOFT_404_HTML),
        "/reports/everest": Page(make_pdf(PDF_LINES), content_type="application/pdf"),
        "/reports/eiffel-tower": Page(make_pdf(EIFFEL_PDF_LINES), content_type="application/pdf"),
        "/facts/oceans": Page(THIN_HTML),
        "/apps/moon": Page(MOON_APP_HTML),
        "/api/moon": Page(MOON_API_JSON, content_type="application/json"),
        # A page behind a bot challenge: we could not read it, and say so (never not_found).
        WALLED_PATH: CLOUDFLARE_CHALLENGE,
    }


def _article(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body>{_NAV}<main><article><h1>{title}</h1>{body}</article></main>{_FOOTER}</body></html>"
    )


BRIDGE_HTML = _article(
    "The Orlen Bridge opens",
    "<p>The Orlen Bridge crosses the Vell estuary between Arden and Casby. The crossing is 4.2 "
    "kilometres long and carries four lanes of traffic.</p><p>It opened to traffic in May 2024 "
    "after six years of construction.</p>",
)
BRIDGE_DESIGN_HTML = _article(
    "Who designed the Orlen Bridge",
    "<p>Engineers from the firm Halvorsen &amp; Brook designed the Orlen Bridge.</p><p>The firm, "
    "founded in Oslo in 1961, has designed eleven bridges in Northern Europe.</p>",
)


def answer_routes() -> dict[str, Page]:
    """Two pages an answer's statements need together (:func:`attributed_answer`)."""
    return {
        "/articles/orlen-bridge": Page(BRIDGE_HTML),
        "/articles/orlen-bridge-design": Page(BRIDGE_DESIGN_HTML),
    }


def attributed_answer(base_url: str) -> str:
    """An LLM answer citing :func:`answer_routes` at ``base_url``: its first statement's two facts
    are in [1] and [2], its second cites [2] for what only [1] states, its third is [2]'s."""
    return (
        "The Orlen Bridge is 4.2 kilometres long and was designed by Halvorsen & Brook [1][2]. "
        "The Orlen Bridge opened to traffic in May 2024 [2]. Halvorsen & Brook was founded in "
        "Oslo in 1961 [2].\n\n"
        "Sources:\n"
        f"[1] {base_url}/articles/orlen-bridge\n"
        f"[2] {base_url}/articles/orlen-bridge-design\n"
    )


@dataclass(frozen=True)
class DemoCase:
    """A claim and the demo paths cited for it."""

    claim: str
    paths: tuple[str, ...]


ARTICLE_CASES = (
    DemoCase(
        "Water boils at 100 degrees Celsius at sea level.",
        ("/articles/water-boiling-point", "/old-report"),
    ),
    DemoCase("Water boils at 50 degrees Celsius at sea level.", ("/articles/water-boiling-point",)),
)
OTHER_CASES = (
    DemoCase("The 2019 story explains how glaciers form.", ("/2019/10/deep-link-to-moved-story",)),
    DemoCase("The lost story reported record rainfall.", ("/news/lost-story",)),
    DemoCase("Mount Everest is 8,849 metres tall.", ("/reports/everest",)),
    DemoCase("The Pacific Ocean is the largest ocean on Earth.", ("/facts/oceans",)),
    DemoCase("The Moon is about 384,400 kilometres from Earth.", ("/apps/moon",)),
    DemoCase(
        "Swiss glaciers lost 2 percent of their ice volume in 2019.", ("/reports/glaciers-2019",)
    ),
    DemoCase("Water boils at 100 degrees Celsius at sea level.", (WALLED_PATH,)),
)
GLACIER_PATH = "/reports/glaciers-2019"
"""A dead link (404 today) that the demo's archive holds a capture of."""
GLACIER_CAPTURED = "20200115093000"
GLACIER_HTML = (
    "<html><head><title>Glacier report 2019</title></head><body><article>"
    "<h1>Glacier report 2019</h1><p>Swiss glaciers lost 2 percent of their ice volume in 2019, "
    "the monitoring network reported. The loss was the fifth largest since measurements "
    "began.</p><p>A snowy winter had delayed the melt, but two heatwaves in June and July "
    "removed the new snow quickly and left the ice exposed for the rest of the summer. Small "
    "glaciers were hit hardest; several of them have all but disappeared.</p>"
    "</article></body></html>"
)


def example_answer(base_url: str) -> str:
    """An LLM answer citing the demo site at ``base_url``: [1] the 100 °C page, [2] a PDF about
    the Eiffel Tower, [3] a dead link; one statement cites nothing."""
    return (
        "Water boils at 100 degrees Celsius at sea level [1]. The Eiffel Tower is about 330 "
        "metres tall [2]. Sourdough is a bread. Water boils at 50 degrees Celsius at sea "
        "level [1][3].\n\n"
        "Sources:\n"
        f"[1] {base_url}/articles/water-boiling-point\n"
        f"[2] {base_url}/reports/eiffel-tower\n"
        f"[3] {base_url}/old-report\n"
    )


def demo_settings() -> Settings:
    """The demo's settings: the embedded defaults whatever keys the environment holds. Its site
    is on 127.0.0.1, which a crawling API cannot reach, and it must cost nothing and need no
    network."""
    return Settings(
        allow_private_urls=True,
        fetcher="direct",
        judge_provider="checker",
        # Nor for a wall: the Crawling API recovery is off without a token.
        crawlbase_token=None,
        crawlbase_js_token=None,
    )


async def run_demo(
    settings: Settings | None = None,
) -> tuple[list[VerifyResult], list[VerifyResult], list[AnswerResult]]:
    """Serve the demo site, verify every demo case against it through the real pipeline, and
    check :func:`example_answer` and :func:`attributed_answer` as ``check-answer`` does."""
    settings = settings or demo_settings()
    with LoopbackSite({**demo_routes(), **answer_routes()}) as site, FakeArchive() as archive:
        # Its own Wayback Machine on loopback, holding a capture of one page that died since.
        archive.add(site.url(GLACIER_PATH), GLACIER_CAPTURED, GLACIER_HTML)
        settings = settings.model_copy(
            update={
                "archive_url": archive.base_url,
                "archive_fallback": "dead",
                # the demo's own loopback archive: its loopback links never leave the machine
                "archive_private_urls": True,
            }
        )
        async with build_verifier(settings) as verifier:

            async def run(case: DemoCase) -> VerifyResult:
                urls = [site.url(path) for path in case.paths]
                return await verifier.verify(VerifyRequest(claim=case.claim, urls=urls))

            articles = [await run(case) for case in ARTICLE_CASES]
            others = [await run(case) for case in OTHER_CASES]
            answers = [
                await check_answer(verifier, AnswerRequest(answer=text(site.base_url)))
                for text in (example_answer, attributed_answer)
            ]
    return articles, others, answers


def spec_view(result: VerifyResult) -> dict[str, object]:
    """``result`` with only the core verdict fields (the API and --json add more)."""
    return {
        "claim": result.claim,
        "overall": result.overall.value,
        "citations": [
            c.model_dump(mode="json", include=set(SPEC_VERDICT_FIELDS)) for c in result.citations
        ],
    }


def main() -> None:
    """Run the demo and print the article's examples as JSON, one line per other page."""
    articles, others, answers = asyncio.run(run_demo())
    for result in articles:
        print(json.dumps(spec_view(result), indent=2))
    for result in others:
        verdict = result.citations[0]
        # JSON string: one line per page even when the quote spans a heading and a sentence.
        quoted = json.dumps(verdict.evidence_quote, ensure_ascii=False)
        quote = f"  quote={quoted}" if verdict.evidence_quote else ""
        rendered = "  rendered=yes" if verdict.rendered else ""
        if verdict.archive_url:  # a dead link judged on its archived copy
            rendered += f"  live={verdict.live_reason}  archived={verdict.archive_url}"
        if verdict.could_not_read:  # a wall: what stood in front of the page, what was tried
            tried = ",".join(f"{r.step}->{r.outcome}" for r in verdict.recoveries)
            rendered += f'  "{verdict.could_not_read}"' + (f"  tried={tried}" if tried else "")
        print(
            f"{verdict.url}  label={verdict.label.value}  reason={verdict.reason or '-'}"
            f"  status={verdict.original_status}{rendered}{quote}"
        )
    titles = (
        "check-answer on an answer citing the demo site ([1] 100 °C, [2] a PDF, [3] a dead link):",
        "check-answer on an answer whose facts are in two sources, one cited for the other's:",
    )
    for title, answer in zip(titles, answers, strict=True):
        print(title)
        for number, statement in enumerate(answer.statements, start=1):
            labels = ", ".join(c.label.value for c in statement.citations) or "-"
            label = statement.overall.value
            print(f"  {number}. {label:<12} {statement.claim}  (citations: {labels})")
            for fact in statement.facts:
                print(f"       fact {fact.label.value}: {fact.text}")
            for other in statement.misattributed:
                print(f"       misattributed: {other.source} states it")
        print(
            f"  citation_precision={answer.citation_precision} "
            f"({answer.supported_citations}/{answer.citations})  "
            f"citation_recall={answer.citation_recall} "
            f"({answer.supported}/{answer.recall_statements})  "
            f"citation_precision_liu={answer.citation_precision_liu} "
            f"({answer.supporting_citations}/{answer.judged_citations})"
        )
