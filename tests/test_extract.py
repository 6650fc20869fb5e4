from citation_verifier.demo.site import make_pdf
from citation_verifier.extract import (
    decode_body,
    html_headings,
    html_title,
    html_to_full_text,
    html_to_markdown,
    page_text,
    pdf_to_text,
    separate_headings,
    visible_chars,
    xml_safe,
)

ARTICLE = """<html><head><title>Boiling</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<article><h1>The boiling point</h1>
<p>Water boils at 100 degrees Celsius at sea level, the standard boiling point at one atmosphere.</p>
<p>At altitude the pressure is lower, so water boils at a lower temperature than it does at sea level.</p>
</article><footer>Copyright Example Corp, all rights reserved.</footer></body></html>"""


def test_visible_chars_ignores_all_whitespace() -> None:
    assert visible_chars(" a\tb\n c\u00a0d ") == 4


def test_markdown_keeps_main_content_and_drops_boilerplate() -> None:
    text = html_to_markdown(ARTICLE)
    assert "Water boils at 100 degrees Celsius at sea level" in text
    assert "About us" not in text
    assert "Copyright" not in text


def test_full_text_keeps_every_block_as_a_paragraph() -> None:
    html = "<html><body><aside><p>Side\n fact one.</p></aside><div>Two</div><script>x=1</script></body></html>"
    assert html_to_full_text(html) == "Side fact one.\n\nTwo"


def test_full_text_of_unparseable_html_is_empty() -> None:
    assert html_to_full_text("") == ""


def test_title_is_read_from_head() -> None:
    assert html_title(ARTICLE) == "Boiling"
    assert html_title("<p>none</p>") == ""


def test_decode_uses_http_charset() -> None:
    assert decode_body("café".encode("latin-1"), "iso-8859-1") == "café"


def test_decode_uses_meta_charset_when_header_has_none() -> None:
    body = '<html><head><meta charset="windows-1252"></head><body>naïve “quotes”</body></html>'
    assert "naïve “quotes”" in decode_body(body.encode("cp1252"), None)


def test_decode_honours_bom_and_ignores_unknown_charsets() -> None:
    assert decode_body("\ufeffhello".encode("utf-8"), "no-such-charset") == "hello"
    assert decode_body("ok ü".encode(), "no-such-charset") == "ok ü"


def test_decode_detects_legacy_encoding_without_declaration() -> None:
    text = "Der Bär läuft über die Straße und ißt Äpfel. " * 5
    assert "Bär" in decode_body(text.encode("cp1252"), None)


def test_pdf_text_is_extracted() -> None:
    pdf = make_pdf(["Mount Everest is 8,849 metres tall.", "Second line."])
    text = pdf_to_text(pdf)
    assert "Mount Everest is 8,849 metres tall." in text


def test_pdf_without_text_or_broken_pdf_gives_empty_text() -> None:
    assert pdf_to_text(make_pdf([])) == ""
    assert pdf_to_text(b"%PDF-1.4 garbage") == ""


def test_page_text_undoes_markdown_escapes_and_drops_inline_formatting() -> None:
    markdown = (
        "# Title\n\n"
        "Long \\[citation needed\\]. Use \\*stars\\*, **bold**, *it*, \\_x\\_ and a\\<b.\n\n"
        "\\# not a heading\n\n1\\. not a list\n\n\\- not a bullet\n\n- item\n\n"
        "Code `snake_case *x*` and C:\\path and a literal \\\\\\* backslash-star."
    )
    assert page_text(markdown) == (
        "Title\n\n"
        "Long [citation needed]. Use *stars*, bold, it, _x_ and a<b.\n\n"
        "# not a heading\n\n1. not a list\n\n- not a bullet\n\nitem\n\n"
        "Code snake_case *x* and C:\\path and a literal \\* backslash-star."
    )


def test_html_with_markdown_characters_extracts_to_the_page_text() -> None:
    html = (
        "<html><body><article><h1>Report</h1><p>The wall is 21,196 km long [citation "
        "needed]. Prices rose 2*3% in Q1_2024 &lt;est.&gt; #1 ~approx~ C:\\data.</p>"
        "<p>More text follows here so that the article is long enough to be kept whole by "
        "the extractor, with a second sentence about the methods used.</p></article></body></html>"
    )
    text = html_to_markdown(html)
    assert "long [citation needed]." in text
    assert "Prices rose 2*3% in Q1_2024 <est.> #1 ~approx~ C:\\data." in text
    assert "\\[" not in text and "\\*" not in text


def test_a_heading_run_into_its_paragraph_becomes_a_paragraph_of_its_own() -> None:
    text = (
        "Weekly Edition for March 26, 2015 A trademark battle in the Arduino community "
        "The Arduino has been a success. Results of the vote The board met in May."
    )
    headings = [
        "Weekly Edition for March 26, 2015",
        "A trademark battle in the Arduino community",
        "Results of the vote",
    ]
    assert separate_headings(text, headings).split("\n\n") == [
        "Weekly Edition for March 26, 2015",
        "A trademark battle in the Arduino community",
        "The Arduino has been a success.",
        "Results of the vote",
        "The board met in May.",
    ]


def test_heading_words_inside_a_sentence_are_left_where_they_are() -> None:
    text = "We read the results of the vote with care. Results of the vote were close."
    assert separate_headings(text, ["Results of the vote"]) == text
    assert separate_headings("Results of the vote", ["Results of the vote"]) == (
        "Results of the vote"
    )


def test_html_headings_are_read_in_page_order_and_one_word_headings_skipped() -> None:
    html = "<h1>Weekly  Edition</h1><p>x</p><h2>News</h2><h3>Results of the vote</h3>"
    assert html_headings(html) == ["Weekly Edition", "Results of the vote"]


def test_numeric_character_references_of_text_survive_the_control_character_filter() -> None:
    html = (
        "<html><body><article><h1>Quotes</h1><p>It&#8217;s 20&#160;km from the coast&#1; "
        "&#x2014; the &#x201C;old road&#x201D; is closed to cars and lorries in winter.</p>"
        "</article></body></html>"
    )
    assert xml_safe("it&#8217;s &#x2019; &#x1F600; &#1;&#x1f; &#9; ok") == (
        "it&#8217;s &#x2019; &#x1F600;  &#9; ok"
    )
    text = html_to_full_text(html)
    assert "It’s 20 km from the coast — the “old road” is closed" in text
