"""Quotes are the page's text: Markdown from trafilatura or a crawling API becomes text with no
heading, list, quote or table markers, no link brackets or HTML tags, and every heading a
paragraph of its own, so no quote candidate glues a heading to the paragraph under it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from batch_helpers import score
from citation_verifier.batch.engine import LocalRunner
from citation_verifier.batch.html_report import html_report
from citation_verifier.demo.loopback import LoopbackSite, Page, Route
from citation_verifier.extract import html_to_markdown, page_text
from citation_verifier.fetch.policy import Document
from citation_verifier.judge.checker import candidate_quotes
from citation_verifier.models import Label
from citation_verifier.pipeline import verify
from citation_verifier.retrieve import MiniLMEmbedder
from citation_verifier.settings import Settings
from citation_verifier.verifier import Verifier
from fake_crawlbase import Canned, FakeCrawlbase, cb_settings, origin_site

Serve = Callable[[Mapping[str, Route]], LoopbackSite]


def test_a_heading_loses_its_markers_and_is_a_paragraph_of_its_own() -> None:
    assert page_text("## Results ##\nThe team measured 8,849 m.\n### Method\nA GPS survey.") == (
        "Results\n\nThe team measured 8,849 m.\n\nMethod\n\nA GPS survey."
    )


def test_a_heading_inside_a_list_item_or_a_quote_is_still_a_heading() -> None:
    assert page_text("Intro.\n\n- ## WebIDE Develop apps\n> ### Quoted title\nText.") == (
        "Intro.\n\nWebIDE Develop apps\n\nQuoted title\n\nText."
    )


def test_list_bullets_are_dropped_and_list_numbers_kept() -> None:
    assert page_text("- first\n* second\n+ third\n1. fourth\n2) fifth") == (
        "first\nsecond\nthird\n1. fourth\n2) fifth"
    )


def test_a_table_row_is_one_line_of_its_cells_and_the_separator_row_goes() -> None:
    table = (
        "| Mountain | Height |\n|:---|---:|\n| Everest | 8,849 m |\n| K2 \\| Chogori | 8,611 m |"
    )
    assert page_text(table) == "Mountain Height\nEverest 8,849 m\nK2 | Chogori 8,611 m"


def test_blockquote_markers_and_rules_are_dropped() -> None:
    assert page_text("> Quoted line\n> > nested\n\n---\n\nAfter.") == (
        "Quoted line\nnested\n\nAfter."
    )


def test_a_link_keeps_its_text_and_an_image_goes() -> None:
    markdown = 'See [the *survey* report](https://example.com/a_(b) "t") ![map](m.png)now.'
    assert page_text(markdown) == "See the survey report now."


def test_html_tags_and_comments_are_dropped_and_an_autolink_keeps_its_address() -> None:
    markdown = "An <u>underlined</u> word<br/> and <!-- note --> <https://example.com/x>."
    assert page_text(markdown) == "An underlined word and  https://example.com/x."


def test_escaped_markers_stay_literal_text() -> None:
    markdown = "\\# hashtag\n\n1\\. not a list\n\n\\- dash\n\nA \\| pipe, a \\[1\\] and a\\<b."
    assert page_text(markdown) == "# hashtag\n\n1. not a list\n\n- dash\n\nA | pipe, a [1] and a<b."


def test_no_quote_candidate_crosses_a_line_break() -> None:
    text = "Mount Everest\nEverest is 8,849 m tall. It is in Nepal.\nK2 is second."
    candidates = candidate_quotes(text)
    assert "Everest is 8,849 m tall. It is in Nepal." in candidates
    assert all("\n" not in candidate for candidate in candidates)


HTML = """<html><head><title>Mountains</title></head><body><article>
<h2>Highest mountains</h2>
<p>Mount Everest is the highest mountain above sea level, at 8,849 metres, on the border of
Nepal and China. Its height was measured again by a joint survey in 2020.</p>
<h3>Ranking</h3>
<ul><li>Everest, in the Himalaya, is the first of the fourteen eight-thousanders.</li>
<li>K2, in the Karakoram, is the second highest mountain on Earth.</li></ul>
<table><tr><th>Mountain</th><th>Height</th></tr><tr><td>Everest</td><td>8,849 m</td></tr>
<tr><td>K2</td><td>8,611 m</td></tr></table>
<blockquote><p>Because it's there, said George Mallory when asked why he climbed.</p></blockquote>
<p>Climbers need <u>supplementary oxygen</u> above 8,000 metres, in the <a href="/zone">death zone</a>, where the air holds a third of the oxygen at sea level.</p>
</article></body></html>"""


def test_html_with_headings_lists_tables_and_tags_extracts_without_markup() -> None:
    text = html_to_markdown(HTML)
    for marker in ("#", "|", "---", "<u>", "</u>", "](", "\n- ", "\n* ", "\n> "):
        assert marker not in text, marker
    assert "Highest mountains\n\nMount Everest is the highest mountain" in text
    assert "supplementary oxygen above 8,000 metres, in the death zone" in text
    assert "Everest 8,849 m" in text


async def test_a_quote_from_a_page_with_headings_is_the_page_text(
    serve: Serve, settings: Settings
) -> None:
    site = serve({"/mountains": Page(HTML)})
    settings = settings.model_copy(update={"judge_provider": "checker"})
    claim = "Mount Everest is the highest mountain above sea level, at 8,849 metres."
    citation = (await verify(claim, [site.url("/mountains")], settings)).citations[0]
    assert citation.label == Label.SUPPORTED
    assert citation.evidence_quote is not None and citation.evidence_context is not None
    assert citation.evidence_quote.startswith("Mount Everest is the highest mountain")
    for text in (citation.evidence_quote, citation.evidence_context.passage):
        assert "#" not in text and "|" not in text and "Highest mountains Mount" not in text


CRAWLBASE_MARKDOWN = """# Mount Everest
Mount Everest is the highest mountain above sea level, at 8,849 metres, on the border of Nepal \
and China. A joint survey measured it again in 2020.

## Neighbours
| Mountain | Height |
|---|---|
| K2 | 8,611 m |

- **Lhotse** stands next to it, linked by the [South Col](https://example.com/col).
> <u>Climbers</u> need supplementary oxygen above 8,000 metres.
"""


async def test_a_crawling_api_markdown_page_is_read_as_its_text(embedder: MiniLMEmbedder) -> None:
    # The backend's format=md body is scripted as Crawlbase sends it (raw Markdown).
    with origin_site() as origin, FakeCrawlbase() as fake:
        url = origin.url("/articles/boiling")
        headers = {
            "Content-Type": "text/markdown; charset=utf-8",
            "original_status": "200",
            "cb_status": "200",
            "url": url,
        }
        fake.script("/articles/boiling", Canned(200, headers, CRAWLBASE_MARKDOWN.encode()))
        settings = cb_settings(fake, allow_private_urls=True)
        async with Verifier(settings, embedder=embedder) as verifier:
            loaded = await verifier.load(url)
    assert isinstance(loaded, Document)
    assert loaded.text.startswith("Mount Everest\n\nMount Everest is the highest mountain")
    assert "Neighbours\n\nMountain Height\nK2 8,611 m" in loaded.text
    assert "Lhotse stands next to it, linked by the South Col." in loaded.text
    assert "\nClimbers need supplementary oxygen above 8,000 metres." in loaded.text
    for marker in ("#", "|", "**", "](", "<u>", "\n- ", "\n> "):
        assert marker not in loaded.text, marker


async def test_the_html_batch_report_shows_the_evidence_as_page_text(
    serve: Serve, settings: Settings, embedder: MiniLMEmbedder, tmp_path: Path
) -> None:
    site = serve({"/mountains": Page(HTML)})
    claim = "Mount Everest is the highest mountain above sea level, at 8,849 metres."
    inputs = tmp_path / "in.jsonl"
    inputs.write_text(
        json.dumps({"id": "e", "claim": claim, "urls": [site.url("/mountains")]}) + "\n", "utf-8"
    )
    checker = settings.model_copy(update={"judge_provider": "checker"})
    outcome = await score(inputs, tmp_path / "cp.jsonl", LocalRunner(checker, embedder=embedder))
    evidence = re.findall(
        r"<blockquote>(.*?)</blockquote>", html_report(outcome.rows, outcome.summary), re.S
    )
    assert len(evidence) == 1 and evidence[0].startswith("Mount Everest is the highest mountain")
    assert "#" not in evidence[0] and "|" not in evidence[0] and "Highest" not in evidence[0]
