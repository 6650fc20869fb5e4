"""Markdown (trafilatura's, or a crawling API's ``format=md``) turned back into the page's own
text, so that every quote taken from it is text a reader can find on the page.

Block markers go: heading ``#``s (a heading becomes a paragraph of its own, never glued to the
one under it), list bullets (an ordered list's numbers stay: readers see them), blockquote
``>``s, horizontal rules, table pipes (a row becomes one line, its cells separated by a space)
and separator rows. Inline markup goes:
emphasis, strikethrough and code-span markers, ``[text](url)`` links (their text stays), images,
HTML tags; escapes are undone ("long \\[citation needed\\]." → "long [citation needed].").
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SEPARATOR_ROW = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$")
_TABLE_ROW = re.compile(r"^[ \t]*\|(.*?)\|?[ \t]*$")
_CELL_BREAK = re.compile(r"(?<!\\)\|")
_QUOTE = re.compile(r"^ {0,3}(?:>[ \t]?)+")
# A bullet is drawn by the browser, not written on the page; an ordered list's number is shown as
# text ("4. Send the receipt"), so it stays.
_LIST_ITEM = re.compile(r"^[ \t]*[-*+](?:[ \t]+|$)")
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n)+")

# trafilatura escapes these with a backslash wherever they appear in prose (doubling any
# backslashes before them), and marks emphasis, strikethrough and code with the unescaped ones.
_INLINE_SPECIALS = frozenset("*_`~[]<|")
_FORMATTING = frozenset("*_~")
# ... and escapes a line-start that would read as a heading, quote, list item or numbered item.
_ESCAPED_BLOCK_START = re.compile(
    r"^( {0,3})\\(#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$))|^( {0,3}\d{1,9})\\([.)](?=[ \t]|$))",
    re.M,
)
_LINK = re.compile(
    r"\[((?:\\.|[^\\\[\]\n])*)\]"  # the link text (escapes allowed, no nested brackets)
    r"\((?:<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\)"
)
_TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>", re.S)
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]+)>")


def _block(line: str) -> tuple[str | None, bool]:
    """A line without its block markers (None for a line that is only markup: a rule, a table's
    separator row), and whether it was a heading."""
    if _RULE.match(line) or ("|" in line and _SEPARATOR_ROW.match(line)):
        return None, False
    line = _LIST_ITEM.sub("", _QUOTE.sub("", line))
    heading = _HEADING.match(line)  # also a heading inside a list item or a quote
    if heading:
        return heading[1] or "", True
    row = _TABLE_ROW.match(line)
    if row and "|" in line.strip()[1:]:
        cells = (cell.strip() for cell in _CELL_BREAK.split(row[1]))
        return " ".join(cell for cell in cells if cell), False
    return line, False


def _inline(text: str) -> str:
    """``text`` with escapes undone and inline markup dropped (link text kept)."""
    out: list[str] = []
    i, end = 0, len(text)
    while i < end:
        char = text[i]
        if char == "\\":
            run = i
            while run < end and text[run] == "\\":
                run += 1
            count, follower = run - i, text[run] if run < end else ""
            if follower in _INLINE_SPECIALS:
                out.append("\\" * (count // 2))  # escaped backslashes before the character
                if count % 2:  # the character itself was escaped: literal
                    out.append(follower)
                    run += 1
            else:
                out.append("\\" * count)
            i = run
        elif char == "`":  # a code span: its content is verbatim, its fences are formatting
            fence = i
            while fence < end and text[fence] == "`":
                fence += 1
            closing = text.find(text[i:fence], fence)
            if closing < 0:
                out.append(text[i:fence])
                i = fence
            else:
                out.append(text[fence:closing])
                i = closing + fence - i
        elif char == "!" and (image := _LINK.match(text, i + 1)):
            i = image.end()  # an image is not text
        elif char == "[" and (link := _LINK.match(text, i)):
            out.append(_inline(link[1]))
            i = link.end()
        elif char == "<" and (autolink := _AUTOLINK.match(text, i)):
            out.append(autolink[1])
            i = autolink.end()
        elif char == "<" and (tag := _TAG.match(text, i)):
            i = tag.end()
        elif char in _FORMATTING:
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def markdown_to_text(markdown: str) -> str:
    """The page's own text from ``markdown`` (see module docstring): paragraphs separated by a
    blank line, a heading always a paragraph of its own."""
    lines: list[str] = []
    for line in markdown.split("\n"):
        text, heading = _block(line)
        if text is not None:
            lines.extend(["", text, ""] if heading else [text])
    joined = _ESCAPED_BLOCK_START.sub(
        lambda m: m[1] + m[2] if m[2] is not None else m[3] + m[4], "\n".join(lines)
    )
    text = _inline(joined)
    return _BLANK_RUN.sub("\n\n", text).strip("\n")
